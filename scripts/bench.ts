/**
 * Benchmarks the client against the peers a user would pick instead, in one process run, and
 * prints markdown tables:
 *
 * 1. Per-request client overhead: every client gets an injected `fetch` that answers at once with
 *    a fresh `Response` built from one pre-encoded body (`new Response(bytes, init)` per call, so
 *    each client parses a real, unread body; nothing touches the network). Ops/s of raw `fetch`
 *    usage (build the body and headers, `fetch`, check `ok`, `await res.json()`), ours (apiKey,
 *    and iam separately), graphql-request, @urql/core (fetch exchange only, network-only, POST)
 *    and ofetch; for iam, raw fetch signed by @smithy/signature-v4, aws4fetch's `AwsClient`, and
 *    raw fetch plus the least SigV4 work (a floor), each signature checked against smithy's first.
 *    Every request sends the same query with fresh variables `{ id: "1", n }` (`n` counts up):
 *    @urql/core would otherwise merge identical queries in flight into one request.
 * 2. Loopback throughput against `scripts/bench_server.mjs`, a fixed-answer keep-alive server that
 *    runs in a separate Node process: sequential, and 64 requests in flight. Every client uses the
 *    runtime's global `fetch` here.
 * 3. Bundle sizes: esbuild (minified, browser, ESM, code splitting), then gzip (zlib's default level).
 *
 * Sections 1 and 2 warm every client up, then run rounds with the order rotated by one each round;
 * they report the median ops/s (min–max), and the median of each round's ratio to raw `fetch`, by
 * wall time and by this process's CPU time (`process.cpuUsage()`, all threads): on a shared machine
 * other processes inflate wall time, not our CPU time. Only ratios from the same run mean much.
 *
 * The client module is imported from a path: `--client=PATH` (or `BENCH_CLIENT`), the source
 * `mod.ts` by default. `deno task bench` runs this file on Deno against the source; `deno task
 * bench:node` builds the npm package, compiles this file with esbuild (`scripts/bench_node.ts`)
 * and runs it on Node against `npm/esm/mod.js`.
 *
 * Flags: `--only=overhead,loopback,size`, `--rounds=11` (overhead), `--round-ms=300`,
 * `--loopback-rounds=9`, `--sequential=2000`, `--concurrent=5000`, `--in-flight=64`,
 * `--clients=ours-apikey,graphql-request,…` (a subset; raw fetch always runs), `--json=FILE`
 * (every round's numbers), `--root=DIR` (the repository, for the server and the sizes).
 * `--compare=PATH` adds a second build of ours ("ours B", a patched copy, say) to the same rounds,
 * with per-round B ÷ A ratios. Profiling: `--profile=NAME [--seconds=10] [--out=FILE.cpuprofile]`
 * runs NAME's overhead loop under the V8 sampling profiler (`node:inspector`, on Deno and Node
 * alike), writes the profile and prints where the time went; `--summarize=FILE.cpuprofile` prints
 * that for an existing profile (from `node --cpu-prof`, for instance).
 *
 * @module
 */

import process from "node:process";
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { GraphQLClient } from "graphql-request";
import { Client, fetchExchange } from "@urql/core";
import { createFetch } from "ofetch";
import { createHash, createHmac, type Hash } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import { Hash as SmithyHash } from "@smithy/hash-node";
import { AwsClient } from "aws4fetch";

type ClientModule = typeof import("../mod.ts");
type Fetch = typeof globalThis.fetch;
/** Variables of one request: `n` counts up, so that no two requests are the same operation. */
type Vars = { readonly id: string; readonly n: number };
type Call = (variables: Vars) => Promise<unknown>;

interface Contender {
  readonly name: string;
  readonly label: string;
  /** Makes one request function; `fetch` is the injected one, or `undefined` for the global one. */
  make(url: string, fetch: Fetch | undefined): Call;
  /** It signs each request with SigV4: its signature is checked before it is measured. */
  readonly signs?: true;
}

interface Series {
  readonly name: string;
  readonly label: string;
  /** Ops per second of wall time, one entry per round. */
  readonly rounds: number[];
  /** Ops per second of this process's CPU time (user + system, all threads), one entry per round. */
  readonly cpu: number[];
}

// ---------------------------------------------------------------------------------------------
// Arguments and setup

const args = new Map<string, string>();
for (const arg of process.argv.slice(2)) {
  const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
  if (!match) throw new TypeError(`Unknown argument ${arg}: expected --name or --name=value`);
  args.set(match[1]!, match[2] ?? "");
}
const number = (name: string, fallback: number): number => {
  const value = args.has(name) ? Number(args.get(name)) : fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`Invalid --${name}: expected an integer >= 1`);
  }
  return value;
};

const ROOT = resolve(args.get("root") || fileURLToPath(new URL("..", import.meta.url)));
const CLIENT_PATH = resolve(args.get("client") || process.env.BENCH_CLIENT || join(ROOT, "mod.ts"));
const RUNTIME = process.versions.deno ? `Deno ${process.versions.deno}` : `Node ${process.version}`;
const ON_NODE = !process.versions.deno;

const API_KEY = "da2-benchmarkbenchmarkbench";
const CREDENTIALS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "FwoGZXIvYXdzEBenchmarkSessionToken",
};
const QUERY = "query Post($id: ID!, $n: Int) { post(id: $id) { id title content } }";
let sent = 0;
/** Fresh variables for each request: @urql/core would otherwise merge identical queries in flight into one. */
const next = (): Vars => ({ id: "1", n: sent++ });
const ANSWER = { data: { post: { id: "1", title: "Hello", content: "First post" } } };
const EXPECTED = JSON.stringify(ANSWER.data);
const REMOTE_URL = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";

/** The injected fetch of section 1: a fresh Response per call, from bytes encoded once. */
const RESPONSE_BYTES = new TextEncoder().encode(JSON.stringify(ANSWER));
const RESPONSE_INIT: ResponseInit = { status: 200, headers: { "content-type": "application/json" } };
const instantFetch =
  ((_input: unknown, _init?: unknown) =>
    Promise.resolve(new Response(RESPONSE_BYTES, RESPONSE_INIT))) as Fetch;

const ours = await import(pathToFileURL(CLIENT_PATH).href) as ClientModule;
/** `--compare=PATH`: a second build of ours (a patched copy, say), measured in the same rounds. */
const COMPARE_PATH = args.get("compare") ? resolve(args.get("compare")!) : undefined;
const compared = COMPARE_PATH ? await import(pathToFileURL(COMPARE_PATH).href) as ClientModule : undefined;

/** Our client, apiKey and iam, from `module`; `suffix` tells two builds apart. */
function oursContenders(module: ClientModule, suffix: string): Contender[] {
  const build = suffix ? ` ${suffix.slice(1).toUpperCase()}` : "";
  return [
    {
      name: "ours-apikey" + suffix,
      label: `**ours${build}** (apiKey)`,
      make: (url, fetch) => {
        const client = new module.ServiceClient({
          url,
          auth: { type: "apiKey", apiKey: API_KEY },
          ...(fetch ? { fetch } : {}),
        });
        return (variables) => client.request(QUERY, variables);
      },
    },
    {
      name: "ours-iam" + suffix,
      signs: true,
      label: `**ours${build}** (iam, SigV4)`,
      make: (url, fetch) => {
        const client = new module.ServiceClient({
          url,
          auth: { type: "iam", region: "us-east-1", credentials: CREDENTIALS },
          ...(fetch ? { fetch } : {}),
        });
        return (variables) => client.request(QUERY, variables);
      },
    },
  ];
}

/** Raw `fetch` usage: POST `body` with `headers`, check `ok`, parse the JSON, return its `data`. */
async function post(fetch: Fetch, url: string, headers: HeadersInit, body: string): Promise<unknown> {
  const response = await fetch(url, { method: "POST", headers, body });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()).data;
}

/** @smithy/signature-v4 on @smithy/hash-node, for the benchmark's credentials. */
const smithySigner = () =>
  new SignatureV4({
    service: "appsync",
    region: "us-east-1",
    credentials: CREDENTIALS,
    sha256: SmithyHash.bind(null, "sha256"),
    applyChecksum: false,
  });

const ALL_CONTENDERS: readonly Contender[] = [
  {
    name: "raw",
    label: "raw fetch",
    make: (url, fetch = globalThis.fetch) => (variables) => {
      const body = JSON.stringify({ query: QUERY, variables });
      return post(fetch, url, { "content-type": "application/json", "x-api-key": API_KEY }, body);
    },
  },
  {
    // Raw fetch with the headers an iam request carries (fixed values of the same size, signed once):
    // what those headers cost on the wire and in the server, apart from any client's work.
    name: "raw-iam-headers",
    label: "raw fetch, iam's headers (fixed)",
    make: (url, fetch = globalThis.fetch) => {
      const headers = {
        "content-type": "application/json",
        "x-amz-date": "20261126T000000Z",
        "x-amz-security-token": CREDENTIALS.sessionToken,
        authorization: `AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/20261126/us-east-1/appsync/` +
          `aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=${
            "0".repeat(64)
          }`,
      };
      return (variables) => post(fetch, url, { ...headers }, JSON.stringify({ query: QUERY, variables }));
    },
  },
  {
    // The least work any SigV4 signer on `node:crypto` does per request, over raw fetch: four SHA-256
    // passes (the body, the canonical request, then an HMAC's inner and outer pass over key pads hashed
    // once), the strings written inline, nothing checked, one fixed set of headers. Not a signer for
    // use: the floor a signer's ratio to raw fetch cannot pass on this runtime and machine.
    name: "raw-iam-floor",
    signs: true,
    label: "raw fetch + the least SigV4 work (4 SHA-256 passes)",
    make: (url, fetch = globalThis.fetch) => {
      const { host, pathname: path } = new URL(url);
      const names = "content-type;host;x-amz-date;x-amz-security-token";
      const signingKey = (date: string) =>
        [date, "us-east-1", "appsync", "aws4_request"].reduce(
          (key: Uint8Array, part) => createHmac("sha256", key).update(part).digest(),
          new TextEncoder().encode("AWS4" + CREDENTIALS.secretAccessKey),
        );
      const pads = (key: Uint8Array) =>
        [0x36, 0x5c].map((mask) =>
          createHash("sha256").update(Uint8Array.from({ length: 64 }, (_, i) => (key[i] ?? 0) ^ mask))
        );
      const inner = new Uint8Array(32);
      let second = -1, stamp = "", scope = "", ipad: Hash, opad: Hash;
      return (variables) => {
        const body = JSON.stringify({ query: QUERY, variables });
        const now = Date.now();
        if (Math.floor(now / 1000) !== second) {
          second = Math.floor(now / 1000);
          stamp = new Date(now).toISOString().replace(/\.\d+|\W/g, "");
          scope = `${stamp.slice(0, 8)}/us-east-1/appsync/aws4_request`;
          [ipad, opad] = pads(signingKey(stamp.slice(0, 8))) as [Hash, Hash];
        }
        const canonical =
          `POST\n${path}\n\ncontent-type:application/json\nhost:${host}\nx-amz-date:${stamp}\n` +
          `x-amz-security-token:${CREDENTIALS.sessionToken}\n\n${names}\n${
            createHash("sha256").update(body).digest("hex")
          }`;
        const innerHex = ipad.copy().update(
          `AWS4-HMAC-SHA256\n${stamp}\n${scope}\n${createHash("sha256").update(canonical).digest("hex")}`,
        ).digest("hex");
        for (let i = 0, code; i < 64; i++) {
          code = innerHex.charCodeAt(i);
          inner[i >> 1] = inner[i >> 1]! << 4 | (code > 57 ? code - 87 : code - 48);
        }
        return post(fetch, url, {
          "content-type": "application/json",
          "x-amz-date": stamp,
          "x-amz-security-token": CREDENTIALS.sessionToken,
          authorization:
            `AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/${scope}, SignedHeaders=${names}, ` +
            `Signature=${opad.copy().update(inner).digest("hex")}`,
        }, body);
      };
    },
  },
  {
    // What a user who signs with the official signer writes: raw fetch, each request signed by
    // @smithy/signature-v4 on @smithy/hash-node (`node:crypto`, Deno's too).
    name: "raw-iam-smithy",
    signs: true,
    label: "raw fetch + @smithy/signature-v4 5.7.5 (hash-node)",
    make: (url, fetch = globalThis.fetch) => {
      const { hostname, port, pathname, host } = new URL(url);
      const smithy = smithySigner();
      return async (variables) => {
        const body = JSON.stringify({ query: QUERY, variables });
        const { headers } = await smithy.sign({
          method: "POST",
          protocol: "https:",
          hostname,
          ...(port ? { port: Number(port) } : {}),
          path: pathname,
          query: {},
          headers: { "content-type": "application/json", host },
          body,
        });
        delete headers.host;
        return post(fetch, url, headers, body);
      };
    },
  },
  {
    // The small signing fetch wrapper of edge runtimes: Web Crypto, its own key cache.
    name: "raw-iam-aws4fetch",
    signs: true,
    label: "aws4fetch 1.0.20 (AwsClient.sign, then fetch)",
    make: (url, fetch = globalThis.fetch) => {
      const client = new AwsClient({ ...CREDENTIALS, service: "appsync", region: "us-east-1" });
      return async (variables) => {
        const signed = await client.sign(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: QUERY, variables }),
        });
        const response = await fetch(signed);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return (await response.json()).data;
      };
    },
  },
  ...oursContenders(ours, ""),
  ...(compared ? oursContenders(compared, "-b") : []),
  {
    name: "graphql-request",
    label: "graphql-request 7.4.0",
    make: (url, fetch) => {
      const client = new GraphQLClient(url, {
        headers: { "x-api-key": API_KEY },
        ...(fetch ? { fetch } : {}),
      });
      return (variables) => client.request(QUERY, variables);
    },
  },
  {
    name: "urql",
    label: "@urql/core 6.0.3",
    make: (url, fetch) => {
      const client = new Client({
        url,
        exchanges: [fetchExchange],
        requestPolicy: "network-only",
        preferGetMethod: false,
        fetchOptions: { headers: { "x-api-key": API_KEY } },
        ...(fetch ? { fetch } : {}),
      });
      return async (variables) => {
        const result = await client.query(QUERY, variables).toPromise();
        if (result.error) throw result.error;
        return result.data;
      };
    },
  },
  {
    name: "ofetch",
    label: "ofetch 1.5.1",
    make: (url, fetch) => {
      const $fetch = createFetch(fetch ? { fetch } : {});
      return async (variables) => {
        const result = await $fetch<typeof ANSWER>(url, {
          method: "POST",
          headers: { "x-api-key": API_KEY },
          body: { query: QUERY, variables },
        });
        return result.data;
      };
    },
  },
];

/** `--clients=raw,ours-apikey,…`: a subset (raw fetch is always kept: ratios are to it). */
const CONTENDERS = args.get("clients")
  ? ALL_CONTENDERS.filter((c) => c.name === "raw" || args.get("clients")!.split(",").includes(c.name))
  : ALL_CONTENDERS;

// ---------------------------------------------------------------------------------------------
// Measuring

/** A measurement: ops per second of wall time, and per second of this process's CPU time. */
type Rate = readonly [wall: number, cpu: number];

/** Times `run`, which makes `count` calls, by both clocks. */
async function rate(count: number, run: () => Promise<unknown>): Promise<Rate> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return [(count * 1000) / elapsed, (count * 1e6) / Math.max(1, used.user + used.system)];
}

/** Runs `call` back to back, in batches of 50, for at least `ms`. */
async function forDuration(call: Call, ms: number): Promise<Rate> {
  let count = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 50; i++) await call(next());
    count += 50;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  const used = process.cpuUsage(cpu);
  return [(count * 1000) / elapsed, (count * 1e6) / Math.max(1, used.user + used.system)];
}

/** Runs `total` calls one after another. */
function sequential(call: Call, total: number): Promise<Rate> {
  return rate(total, async () => {
    for (let i = 0; i < total; i++) await call(next());
  });
}

/** Runs `total` calls with `width` of them in flight at any time. */
function inFlight(call: Call, total: number, width: number): Promise<Rate> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await call(next());
    }
  };
  return rate(total, () => Promise.all(Array.from({ length: width }, worker)));
}

/**
 * For a contender that signs (ours with iam, the SigV4 rows): its request's signature, checked
 * against @smithy/signature-v4's for the same headers, body and time, so that no row is fast by
 * signing wrong.
 */
async function checkSignature(contender: Contender): Promise<void> {
  if (!contender.signs) return;
  let sent: Request | undefined;
  const spy = ((input: RequestInfo | URL, init?: RequestInit) => {
    sent = new Request(input, init);
    return instantFetch(input, init);
  }) as Fetch;
  await contender.make(REMOTE_URL, spy)(next());
  const authorization = sent!.headers.get("authorization") ?? "";
  if (!authorization.startsWith("AWS4-HMAC-SHA256 ")) throw new Error(`${contender.name} sent no signature`);
  const { hostname, host, pathname } = new URL(sent!.url);
  const names = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(";");
  const stamp = sent!.headers.get("x-amz-date")!;
  const expected = await smithySigner().sign({
    method: "POST",
    protocol: "https:",
    hostname,
    path: pathname,
    query: {},
    headers: Object.fromEntries(
      names.map((name) => [name, name == "host" ? host : sent!.headers.get(name)!]),
    ),
    body: await sent!.text(),
  }, { signingDate: new Date(stamp.replace(/(....)(..)(..)T(..)(..)/, "$1-$2-$3T$4:$5:")) });
  if (expected.headers.authorization !== authorization) {
    throw new Error(`${contender.name} signed ${authorization}, expected ${expected.headers.authorization}`);
  }
}

async function check(contender: Contender, call: Call): Promise<void> {
  const got = JSON.stringify(await call(next()));
  if (got !== EXPECTED) throw new Error(`${contender.name} returned ${got}, expected ${EXPECTED}`);
}

/**
 * Warms each client up with `warm`, then runs `rounds` rounds of `measure`, the order rotated by
 * one each round.
 */
async function interleaved(
  calls: ReadonlyArray<readonly [Contender, Call]>,
  rounds: number,
  warm: (call: Call) => Promise<unknown>,
  measure: (call: Call) => Promise<Rate>,
): Promise<Series[]> {
  for (const [contender, call] of calls) {
    await check(contender, call);
    await warm(call);
  }
  const series = calls.map(([contender]) => ({
    name: contender.name,
    label: contender.label,
    rounds: [] as number[],
    cpu: [] as number[],
  }));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < calls.length; i++) {
      const index = (i + round) % calls.length;
      const [wall, cpu] = await measure(calls[index]![1]);
      series[index]!.rounds.push(wall);
      series[index]!.cpu.push(cpu);
    }
    process.stderr.write(`  round ${round + 1}/${rounds}\r`);
  }
  process.stderr.write("\n");
  return series;
}

// ---------------------------------------------------------------------------------------------
// Statistics and tables

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Each round's `a / b` (a, b: ops/s of the same round). */
const ratios = (a: Series, b: Series, clock: Clock = "rounds"): number[] =>
  a[clock].map((value, i) => value / b[clock][i]!);
/** Each round's extra µs per request of `a` over `b`. */
const extraMicros = (a: Series, b: Series, clock: Clock = "rounds"): number[] =>
  a[clock].map((value, i) => 1e6 / value - 1e6 / b[clock][i]!);
/** Wall time (`rounds`) or CPU time (`cpu`). */
type Clock = "rounds" | "cpu";

const ops = (value: number) => Math.round(value).toLocaleString("en-US");
const times = (value: number) => `${value.toFixed(2)}×`;
const precise = (value: number) => `${value.toFixed(3)}×`;
const micros = (opsPerSecond: number) => (1e6 / opsPerSecond).toFixed(1);
const range = (values: readonly number[], format: (value: number) => string) =>
  `${format(Math.min(...values))}–${format(Math.max(...values))}`;

function table(series: readonly Series[]): string {
  const raw = find(series, "raw")!;
  const lines = [
    "| client | ops/s (median) | min–max | µs/request | × raw fetch (median) | min–max | " +
    "CPU µs/request | × raw fetch, by CPU time |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const s of series) {
    const r = ratios(s, raw);
    const c = ratios(s, raw, "cpu");
    lines.push(
      `| ${s.label} | ${ops(median(s.rounds))} | ${range(s.rounds, ops)} | ${micros(median(s.rounds))} | ` +
        `${times(median(r))} | ${range(r, times)} | ${micros(median(s.cpu))} | ${times(median(c))} |`,
    );
  }
  return lines.join("\n");
}

const find = (series: readonly Series[], name: string) => series.find((s) => s.name === name);

// ---------------------------------------------------------------------------------------------
// Sections

async function overhead(): Promise<Series[]> {
  const rounds = number("rounds", 11);
  const ms = number("round-ms", 300);
  console.error(`Overhead: warm-up, then ${rounds} rounds of ${ms} ms per client`);
  const calls = CONTENDERS.map((c) => [c, c.make(REMOTE_URL, instantFetch)] as const);
  return await interleaved(
    calls,
    rounds,
    (call) => forDuration(call, Math.max(1_000, ms * 2)),
    (call) => forDuration(call, ms),
  );
}

async function loopback(): Promise<{ sequential: Series[]; concurrent: Series[]; server: string }> {
  const rounds = number("loopback-rounds", 9);
  const sequentialTotal = number("sequential", 2_000);
  const concurrentTotal = number("concurrent", 5_000);
  const width = number("in-flight", 64);
  const server = await startServer();
  try {
    const calls = CONTENDERS.map((c) => [c, c.make(server.url, undefined)] as const);
    console.error(
      `Loopback, sequential: warm-up, then ${rounds} rounds of ${sequentialTotal} requests per client`,
    );
    const seq = await interleaved(
      calls,
      rounds,
      (call) => sequential(call, 500),
      (call) => sequential(call, sequentialTotal),
    );
    console.error(
      `Loopback, ${width} in flight: warm-up, then ${rounds} rounds of ${concurrentTotal} requests per client`,
    );
    const concurrent = await interleaved(
      calls,
      rounds,
      (call) => inFlight(call, 1_000, width),
      (call) => inFlight(call, concurrentTotal, width),
    );
    return { sequential: seq, concurrent, server: server.command };
  } finally {
    server.close();
  }
}

/** Starts `scripts/bench_server.mjs` with Node (`BENCH_SERVER_NODE`, `node` by default). */
async function startServer(): Promise<{ url: string; command: string; close(): void }> {
  const node = process.env.BENCH_SERVER_NODE || "node";
  const script = join(ROOT, "scripts", "bench_server.mjs");
  const child = spawn(node, [script], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise<number>((resolvePort, reject) => {
    let text = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`The bench server exited early with code ${code}`)));
    child.stdout!.on("data", (chunk: Uint8Array) => {
      text += new TextDecoder().decode(chunk);
      const line = text.split("\n")[0];
      if (text.includes("\n") && line) resolvePort(JSON.parse(line).port);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    command: `${node} ${relative(ROOT, script)}`,
    close() {
      child.removeAllListeners("exit");
      child.stdin!.end();
      child.kill();
    },
  };
}

interface SizeRow {
  readonly label: string;
  readonly note: string;
  readonly initial: [minified: number, gzipped: number];
  readonly total: [minified: number, gzipped: number];
}

/** Bundles small entry files, one per user of a library, and sizes what a browser would load. */
async function sizes(): Promise<SizeRow[]> {
  const esbuild = await import("esbuild");
  const dir = join(ROOT, ".cache", "bench", "size");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const url = JSON.stringify(REMOTE_URL);
  const from = (path: string) => JSON.stringify(relative(dir, path).replaceAll("\\", "/"));
  /** A user of apiKey only, and a user of everything, of the build whose `mod.ts` is `modPath`. */
  const ours = (modPath: string, who: string, file: string) => {
    const mod = from(modPath);
    const sigv4 = from(join(dirname(modPath), "src", "sigv4.ts"));
    return [
      [
        `${file}_apikey.js`,
        `**${who}**, apiKey user`,
        "`ServiceClient` + `request`; iam signing, the printer and introspection are lazy chunks never loaded",
        `import { ServiceClient } from ${mod};
const client = new ServiceClient({ url: ${url}, auth: { type: "apiKey", apiKey: () => globalThis.key } });
export const run = () => client.request("query { hello }");`,
      ],
      [
        `${file}_all.js`,
        `**${who}**, everything`,
        "every export of `mod.ts` and `./sigv4`; all chunks = with the lazy ones (signer, printer, introspection)",
        `export * from ${mod};
export * from ${sigv4};`,
      ],
    ] as const;
  };
  const entries: ReadonlyArray<readonly [file: string, label: string, note: string, code: string]> = [
    ...ours(join(ROOT, "mod.ts"), "ours", "ours"),
    // A patched copy, when `--compare` names its source `mod.ts`.
    ...(COMPARE_PATH?.endsWith(".ts") ? ours(COMPARE_PATH, "ours B", "ours_b") : []),
    [
      "graphql_request.js",
      "graphql-request 7.4.0",
      "`GraphQLClient` + `request` (pulls in `graphql`'s parser and printer)",
      `import { GraphQLClient } from "graphql-request";
const client = new GraphQLClient(${url}, { headers: { "x-api-key": globalThis.key } });
export const run = () => client.request("query { hello }");`,
    ],
    [
      "urql.js",
      "@urql/core 6.0.3",
      "`Client` + `fetchExchange` + `query`",
      `import { Client, fetchExchange } from "@urql/core";
const client = new Client({ url: ${url}, exchanges: [fetchExchange], preferGetMethod: false });
export const run = () => client.query("query { hello }", {}).toPromise();`,
    ],
    [
      "ofetch.js",
      "ofetch 1.5.1",
      "`ofetch` POSTing a JSON body (no GraphQL handling)",
      `import { ofetch } from "ofetch";
export const run = () => ofetch(${url}, { method: "POST", body: { query: "query { hello }" } });`,
    ],
    [
      "aws4fetch.js",
      "aws4fetch 1.0.20 (reference)",
      "`AwsClient.fetch`: SigV4 signing only, no GraphQL; for comparison with ours, iam",
      `import { AwsClient } from "aws4fetch";
const aws = new AwsClient({ accessKeyId: "a", secretAccessKey: "b", service: "appsync", region: "us-east-1" });
export const run = () => aws.fetch(${url}, { method: "POST", body: "{}" });`,
    ],
  ];
  const rows: SizeRow[] = [];
  try {
    for (const [file, label, note, code] of entries) {
      writeFileSync(join(dir, file), code + "\n");
      const result = await esbuild.build({
        entryPoints: [join(dir, file)],
        bundle: true,
        minify: true,
        splitting: true,
        platform: "browser",
        conditions: ["production"], // as Vite and webpack set it in a production build, for every package
        format: "esm",
        outdir: join(dir, "out", file.replace(/\.js$/, "")),
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      const byPath = new Map(result.outputFiles.map((output) => [output.path, output.contents]));
      const outputs = result.metafile.outputs;
      const size = (paths: Iterable<string>): [number, number] => {
        let minified = 0;
        let gzipped = 0;
        for (const path of paths) {
          const contents = byPath.get(resolve(path)) ?? byPath.get(resolve(process.cwd(), path))!;
          minified += contents.length;
          gzipped += gzipSync(contents).length;
        }
        return [minified, gzipped];
      };
      // The entry chunk and what it imports statically: what loads before `run` can be called.
      const initial = new Set<string>();
      const visit = (path: string) => {
        if (initial.has(path)) return;
        initial.add(path);
        for (const imported of outputs[path]!.imports) {
          if (imported.kind === "import-statement") visit(imported.path);
        }
      };
      visit(Object.keys(outputs).find((path) => outputs[path]!.entryPoint)!);
      const all = Object.keys(outputs).filter((path) => path.endsWith(".js"));
      rows.push({ label, note, initial: size(initial), total: size(all) });
    }
  } finally {
    await esbuild.stop();
  }
  return rows;
}

function sizeTable(rows: readonly SizeRow[]): string {
  const kb = ([minified, gzipped]: [number, number]) =>
    [minified, gzipped].map((n) => n.toLocaleString("en-US"));
  const lines = [
    "| bundle | initial, min | initial, **gzip** | all chunks, min | all chunks, gzip | what the entry uses |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    "| raw fetch | 0 | 0 | 0 | 0 | the platform's `fetch` |",
  ];
  for (const row of rows) {
    const [im, ig] = kb(row.initial);
    const [tm, tg] = kb(row.total);
    lines.push(`| ${row.label} | ${im} | **${ig}** | ${tm} | ${tg} | ${row.note} |`);
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Profiling

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
}

async function profile(name: string): Promise<void> {
  const contender = CONTENDERS.find((c) => c.name === name);
  if (!contender) {
    throw new RangeError(`Unknown --profile=${name}: expected ${CONTENDERS.map((c) => c.name)}`);
  }
  const seconds = number("seconds", 10);
  const out = resolve(
    args.get("out") || join(ROOT, ".cache", "bench", `${name}.${ON_NODE ? "node" : "deno"}.cpuprofile`),
  );
  const call = contender.make(REMOTE_URL, instantFetch);
  await check(contender, call);
  await forDuration(call, 1_000);
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((ok, fail) =>
      session.post(method, params, (err, result) => err ? fail(err) : ok(result as T))
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 50 });
  await post("Profiler.start");
  const [wall, cpu] = await forDuration(call, seconds * 1_000);
  const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
  session.disconnect();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(profile));
  console.log(
    `${contender.label} on ${RUNTIME}: ${ops(wall)} ops/s (${ops(cpu)} per CPU-second) while profiled; ` +
      `profile: ${out}\n`,
  );
  console.log(summarize(profile));
}

/** Self and total time by function, and self time by file, as markdown tables. */
function summarize(profile: CpuProfile, top = Number(args.get("top") || 25)): string {
  const parents = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const place = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, "").replace(ROOT + "/", "").replace(
      /^.*node_modules\/(\.deno\/[^/]+\/)?/,
      "",
    );
    return [`\`${functionName || "(anonymous)"}\``, file ? `${file}:${lineNumber + 1}` : ""] as const;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const files = new Map<string, number>();
  let samples = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    samples += hits;
    const [fn, where] = place(node);
    self.set(`${fn} | ${where}`, (self.get(`${fn} | ${where}`) ?? 0) + hits);
    const file = where.replace(/:\d+$/, "") || fn;
    files.set(file, (files.get(file) ?? 0) + hits);
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = byId.get(node.id); at; at = parents.get(at.id)) {
      const key = place(at).join(" | ");
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + hits);
    }
  }
  const pct = (hits: number) => `${((100 * hits) / samples).toFixed(1)}%`;
  const rank = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `${samples} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
    "",
    "| self | function | where |",
    "| ---: | --- | --- |",
    ...rank(self, top).map(([key, hits]) => `| ${pct(hits)} | ${key} |`),
    "",
    "| total | function | where |",
    "| ---: | --- | --- |",
    ...rank(total, top).filter(([key]) => !key.startsWith("`(root)`")).map(([key, hits]) =>
      `| ${pct(hits)} | ${key} |`
    ),
    "",
    "| self | file |",
    "| ---: | --- |",
    ...rank(files, 15).map(([file, hits]) => `| ${pct(hits)} | ${file} |`),
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main

if (args.has("summarize")) {
  console.log(summarize(JSON.parse(readFileSync(args.get("summarize")!, "utf8"))));
} else if (args.has("profile")) {
  await profile(args.get("profile")!);
} else {
  const only = new Set((args.get("only") || "overhead,loopback,size").split(","));
  for (const contender of CONTENDERS) await checkSignature(contender);
  const results: Record<string, unknown> = { runtime: RUNTIME, client: relative(ROOT, CLIENT_PATH) };
  const out: string[] = [
    `Runtime: ${RUNTIME} (V8 ${process.versions.v8}); client module: \`${relative(ROOT, CLIENT_PATH)}\`` +
    (COMPARE_PATH ? `; ours B: \`${relative(ROOT, COMPARE_PATH)}\`` : ""),
  ];
  const targets: string[] = [];
  /** Our builds in this run: the client module, and the `--compare` one. */
  const BUILDS: ReadonlyArray<readonly [suffix: string, who: string]> = [["", "ours"], ["-b", "ours B"]];
  /** A target row, judged on each clock's per-round median; `judged: false` prints "n/a". */
  const target = (
    what: string,
    compute: (clock: Clock) => number,
    format: (value: number) => string,
    pass: (value: number) => boolean,
    judged = true,
  ) => {
    const verdict = (value: number) => !judged ? "n/a" : pass(value) ? "met" : "**not met**";
    const [wall, cpu] = [compute("rounds"), compute("cpu")];
    targets.push(`| ${what} | ${format(wall)} | ${verdict(wall)} | ${format(cpu)} | ${verdict(cpu)} |`);
  };

  /** Per-round comparisons under a table: ours ÷ graphql-request, iam − apiKey, and B ÷ A with `--compare`. */
  const notes = (series: readonly Series[]): string[] => {
    const lines: string[] = [];
    const line = (what: string, compute: (clock: Clock) => number[], format: (v: number) => string) => {
      const [wall, cpu] = [compute("rounds"), compute("cpu")];
      lines.push(
        `- ${what}, per round: median ${format(median(wall))} (${range(wall, format)}); ` +
          `by CPU time ${format(median(cpu))} (${range(cpu, format)})`,
      );
    };
    const us = (v: number) => `${v.toFixed(2)} µs`;
    const pairs: [string, string, string, "÷" | "−"][] = [
      // The ceiling of the next ratio: a client can cost nothing, and no less.
      ["raw fetch ÷ graphql-request", "raw", "graphql-request", "÷"],
      ["ours (apiKey) ÷ graphql-request", "ours-apikey", "graphql-request", "÷"],
      ["ours: iam − apiKey", "ours-iam", "ours-apikey", "−"],
      // The ceiling of a signer's ratio: the least SigV4 work, over raw fetch.
      ["raw fetch + the least SigV4 work ÷ raw fetch", "raw-iam-floor", "raw", "÷"],
      ["ours (iam) ÷ raw fetch + the least SigV4 work", "ours-iam", "raw-iam-floor", "÷"],
      ["ours (iam) ÷ raw fetch + @smithy/signature-v4", "ours-iam", "raw-iam-smithy", "÷"],
      ["ours (iam) ÷ aws4fetch", "ours-iam", "raw-iam-aws4fetch", "÷"],
      ["ours B (apiKey) ÷ graphql-request", "ours-apikey-b", "graphql-request", "÷"],
      ["ours B ÷ ours (apiKey)", "ours-apikey-b", "ours-apikey", "÷"],
      ["ours B − ours (apiKey)", "ours-apikey-b", "ours-apikey", "−"],
      ["ours B ÷ ours (iam)", "ours-iam-b", "ours-iam", "÷"],
      ["ours B − ours (iam)", "ours-iam-b", "ours-iam", "−"],
      ["ours B: iam − apiKey", "ours-iam-b", "ours-apikey-b", "−"],
    ];
    for (const [what, a, b, op] of pairs) {
      const [sa, sb] = [find(series, a), find(series, b)];
      if (!sa || !sb) continue;
      if (op === "÷") line(what, (clock) => ratios(sa, sb, clock), times);
      else line(what, (clock) => extraMicros(sa, sb, clock), us);
    }
    return lines.length ? ["", ...lines] : [];
  };

  if (only.has("overhead")) {
    const series = await overhead();
    results.overhead = series;
    out.push(
      "",
      "### Per-request overhead (injected `fetch` answering at once)",
      "",
      table(series),
      ...notes(series),
    );
    const [raw, gqlr] = [find(series, "raw")!, find(series, "graphql-request")];
    for (const [suffix, who] of BUILDS) {
      const [apiKey, iam] = [find(series, `ours-apikey${suffix}`), find(series, `ours-iam${suffix}`)];
      if (apiKey) {
        target(
          `overhead: ${who} (apiKey) ≥ 0.85× raw fetch`,
          (clock) => median(ratios(apiKey, raw, clock)),
          precise,
          (v) => v >= 0.85,
        );
      }
      if (apiKey && gqlr) {
        target(
          `overhead: ${who} (apiKey) ≥ 1.7× graphql-request`,
          (clock) => median(ratios(apiKey, gqlr, clock)),
          precise,
          (v) => v >= 1.7,
        );
      }
      if (apiKey && iam) {
        // Node and Bun sign on crypto_node.ts; Deno 2 on crypto.ts through process.getBuiltinModule.
        target(
          `overhead: ${who}, iam ≤ ${ON_NODE ? 15 : 20} µs/request more than apiKey (${RUNTIME})`,
          (clock) => median(extraMicros(iam, apiKey, clock)),
          (v) => `${v.toFixed(1)} µs`,
          (v) => v <= (ON_NODE ? 15 : 20),
        );
      }
    }
  }
  if (only.has("loopback")) {
    const { sequential: seq, concurrent, server } = await loopback();
    const width = number("in-flight", 64);
    results.loopback = { sequential: seq, concurrent, server };
    out.push(
      "",
      `### Loopback, sequential (${number("sequential", 2_000)} requests per round; server: \`${server}\`)`,
      "",
      table(seq),
      ...notes(seq),
      "",
      `### Loopback, ${width} in flight (${number("concurrent", 5_000)} requests per round)`,
      "",
      table(concurrent),
      ...notes(concurrent),
    );
    const raw = find(concurrent, "raw")!;
    for (const [suffix, who] of BUILDS) {
      const apiKey = find(concurrent, `ours-apikey${suffix}`);
      const iam = find(concurrent, `ours-iam${suffix}`);
      if (apiKey) {
        target(
          `loopback, ${width} in flight: ${who} (apiKey) ≥ 0.95× raw fetch`,
          (clock) => median(ratios(apiKey, raw, clock)),
          precise,
          (v) => v >= 0.95,
        );
      }
      if (iam) {
        target(
          `loopback, ${width} in flight: ${who} (iam) ≥ 0.85× raw fetch`,
          (clock) => median(ratios(iam, raw, clock)),
          precise,
          (v) => v >= 0.85,
        );
        // No slower than the peers a user signs with instead.
        for (
          const [peer, name] of [["raw-iam-smithy", "@smithy/signature-v4"], [
            "raw-iam-aws4fetch",
            "aws4fetch",
          ]]
        ) {
          const series = find(concurrent, peer!);
          if (!series) continue;
          target(
            `loopback, ${width} in flight: ${who} (iam) ≥ 1.0× raw fetch + ${name}`,
            (clock) => median(ratios(iam, series, clock)),
            precise,
            (v) => v >= 1,
          );
        }
      }
    }
  }
  if (only.has("size")) {
    const rows = await sizes();
    results.size = rows;
    out.push(
      "",
      "### Bundle size (bytes; esbuild --bundle --minify --splitting, browser with the production condition, ESM; gzip level 6)",
      "",
      sizeTable(rows),
    );
  }
  if (targets.length) {
    out.push(
      "",
      "### Targets (per-round medians)",
      "",
      "| target | wall time | | CPU time | |",
      "| --- | ---: | --- | ---: | --- |",
      ...targets,
    );
  }
  console.log(out.join("\n"));
  if (args.get("json")) writeFileSync(args.get("json")!, JSON.stringify(results, null, 2) + "\n");
}
