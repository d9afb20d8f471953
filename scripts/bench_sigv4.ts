/**
 * Signatures per second for a ~300-byte AppSync POST with a session token, in one process: our
 * public `signRequest` (`crypto.ts`, what JSR ships: on `node:crypto` through
 * `process.getBuiltinModule` on Deno 2, Node 20.16+ and Bun, on Web Crypto elsewhere), the client's
 * record signer on `crypto.ts`'s fast pair (what iam mode runs), our signer on `crypto_node.ts` (what
 * the npm build ships for Node and Bun), `@smithy/signature-v4` with `@smithy/hash-node`, and
 * aws4fetch's `AwsV4Signer` (`service: "appsync"`, `allHeaders: true`, the shared key cache its
 * `AwsClient` passes). In a browser, see `bench_sigv4_browser.ts`.
 *
 * Rounds are interleaved: after a warm-up round, every round runs each signer for the same time,
 * in an order rotated from round to round. Reports the median rate with its min–max, and the median
 * of the per-round ratios to each baseline (a busy machine slows a whole round, not one signer).
 *
 * Usage: `deno task bench:sigv4 [--rounds 11] [--slice-ms 300] [--clock wall|cpu]`. With `--clock cpu`,
 * rates are per second of the process's CPU time (all its threads), which a busy machine disturbs less.
 * Importable (see {@link runBench}), and free of Deno APIs, so that a bundle of it runs on Node and Bun.
 *
 * @module
 */

import { SignatureV4 } from "@smithy/signature-v4";
import { Hash } from "@smithy/hash-node";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { fastDigest, fastHmacKey } from "../src/crypto.ts";
import * as nodePrimitives from "../src/crypto_node.ts";
import { signRequest } from "../src/sigv4.ts";
import { createSigner, recordSigner } from "../src/sigv4_signer.ts";
import { aws4fetchSign, body, credentials, headers, region, url } from "./bench_sigv4_request.ts";

/** One signer under test: signs the benchmark request once. */
export interface Contender {
  /** The name in the table. */
  name: string;
  /** Signs the request and resolves when the headers are ready. */
  sign(): Promise<unknown>;
}

/** The rate of one contender across rounds. */
export interface Result {
  /** The contender's name. */
  name: string;
  /** Signatures per second, one per measured round, in round order. */
  rates: number[];
  /** The median of `rates`. */
  median: number;
}

/** What crypto.ts runs on here: `node:crypto` answers synchronously, Web Crypto with a Promise. */
const cryptoOfCryptoTs = fastHmacKey("probe") instanceof Promise ? "Web Crypto" : "node:crypto";

/**
 * The four signers, all signing the same request at `date`, or at the current time when none is
 * given (as in real use: each signer then formats the time itself).
 */
export function contenders(date?: Date): Contender[] {
  const request = { method: "POST", url, headers, body };
  const options = date
    ? { region, service: "appsync", credentials, date }
    : { region, service: "appsync", credentials };
  const onNodeCrypto = createSigner(nodePrimitives);
  const onRecords = recordSigner(fastHmacKey, fastDigest);
  const smithy = new SignatureV4({
    service: "appsync",
    region,
    credentials,
    sha256: Hash.bind(null, "sha256"),
    applyChecksum: false,
  });
  const parsed = new URL(url);
  const aws4fetchCache = new Map();
  return [
    {
      name: `ours, signRequest (crypto.ts, on ${cryptoOfCryptoTs})`,
      sign: () => signRequest(request, options),
    },
    {
      name: "ours, the client's record signer (crypto.ts, fast pair)",
      sign: () => onRecords(url, headers, body, options),
    },
    {
      name: "ours, signer on crypto_node.ts (npm build, Node and Bun)",
      sign: () => onNodeCrypto(request, options),
    },
    {
      name: "@smithy/signature-v4 + @smithy/hash-node",
      sign: () =>
        smithy.sign({
          method: "POST",
          protocol: parsed.protocol,
          hostname: parsed.hostname,
          path: parsed.pathname,
          query: {},
          headers: { ...headers, host: parsed.host },
          body,
        }, date ? { signingDate: date } : {}),
    },
    {
      name: "aws4fetch AwsV4Signer",
      sign: () => aws4fetchSign(date, aws4fetchCache),
    },
  ];
}

/** What a rate is measured against: elapsed time, or the CPU time of the whole process (all threads). */
export type Clock = "wall" | "cpu";

function now(clock: Clock): number {
  if (clock === "wall") return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function rate(contender: Contender, sliceMs: number, clock: Clock): Promise<number> {
  let count = 0;
  const wallStart = performance.now();
  const start = now(clock);
  while (performance.now() - wallStart < sliceMs) {
    for (let i = 0; i < 50; i++) await contender.sign();
    count += 50;
  }
  return (count / (now(clock) - start)) * 1000;
}

/** Runs the interleaved rounds and returns each contender's rates, in the order given. */
export async function runBench(
  list: Contender[],
  rounds = 11,
  sliceMs = 300,
  clock: Clock = "wall",
): Promise<Result[]> {
  const rates = list.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    const start = Math.max(round, 0) % list.length;
    for (let step = 0; step < list.length; step++) {
      const index = (start + step) % list.length;
      const measured = await rate(list[index]!, round < 0 ? sliceMs / 2 : sliceMs, clock);
      if (round >= 0) rates[index]!.push(measured);
    }
  }
  return list.map((contender, index) => ({
    name: contender.name,
    rates: rates[index]!,
    median: median(rates[index]!),
  }));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * A markdown table of `results`: each signer's median rate (min–max), and the median of its per-round
 * ratios to each of the named baselines (min–max).
 */
export function table(results: Result[], baselines: string[]): string {
  const base = baselines.map((name) => results.find((r) => r.name.startsWith(name))!);
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const lines = [
    `| signer | signatures/s, median (min–max) | ${
      base.map((b) => `× ${b.name}, median of rounds (min–max)`).join(" | ")
    } |`,
    `|---|---:|${base.map(() => "---:").join("|")}|`,
  ];
  for (const r of results) {
    const ratios = base.map((b) => {
      const perRound = r.rates.map((rate, round) => rate / b.rates[round]!);
      return `${median(perRound).toFixed(2)}× (${Math.min(...perRound).toFixed(2)}–${
        Math.max(...perRound).toFixed(2)
      })`;
    });
    lines.push(
      `| ${r.name} | ${fmt(r.median)} (${fmt(Math.min(...r.rates))}–${fmt(Math.max(...r.rates))}) | ${
        ratios.join(" | ")
      } |`,
    );
  }
  return lines.join("\n");
}

/** Whether this file is the program (Deno sets `import.meta.main`; Node 20 does not). */
function isMain(): boolean {
  const main = (import.meta as { main?: boolean }).main;
  return main ?? (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href);
}

/** The runtime, for the report. */
function runtime(): string {
  const versions = process.versions as Record<string, string | undefined>;
  const name = versions.deno
    ? `Deno ${versions.deno}`
    : versions.bun
    ? `Bun ${versions.bun}`
    : `Node ${versions.node}`;
  return `${name} (V8 ${versions.v8 ?? "?"})`;
}

if (isMain()) {
  const flag = (name: string, fallback: number) => {
    const at = process.argv.indexOf(`--${name}`);
    return at < 0 ? fallback : Number(process.argv[at + 1]);
  };
  const rounds = flag("rounds", 11);
  const sliceMs = flag("slice-ms", 300);
  const clock: Clock = process.argv[process.argv.indexOf("--clock") + 1] === "cpu" ? "cpu" : "wall";
  // The contenders must agree before they race: the same Authorization at the same time.
  const agreed = await Promise.all(contenders(new Date("2024-05-06T07:08:09Z")).map((c) => c.sign()));
  const authorizations = [
    (agreed[0] as Headers).get("authorization"),
    (agreed[1] as Record<string, string>).authorization,
    (agreed[2] as Headers).get("authorization"),
    (agreed[3] as { headers: Record<string, string> }).headers.authorization,
    (agreed[4] as { headers: Headers }).headers.get("authorization"),
  ];
  if (new Set(authorizations).size !== 1) {
    throw new Error(`The signers disagree: ${authorizations.join("\n")}`);
  }
  const list = contenders();
  const bytes = new TextEncoder().encode(body).length;
  console.log(
    `${runtime()}; an AppSync POST of ${bytes} B with a session token; ` +
      `${rounds} rounds of ${sliceMs} ms per signer, interleaved, after a warm-up round; ${clock} clock\n`,
  );
  const results = await runBench(list, rounds, sliceMs, clock);
  console.log(table(results, ["aws4fetch", "@smithy"]));
}
