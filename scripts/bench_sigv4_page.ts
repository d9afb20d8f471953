/**
 * The page of `scripts/bench_sigv4_browser.ts`: signs the AppSync POST of `scripts/bench_sigv4.ts`
 * in a loop, with our `signRequest` and with aws4fetch's `AwsV4Signer`, in interleaved rounds.
 * Bundled for the browser (esbuild), where our signer runs on Web Crypto. `signRequest` of a second
 * build ("ours B") may be given to {@link runPageBench}, to compare two builds in the same rounds.
 *
 * @module
 */

import { signRequest } from "../src/sigv4.ts";
import { aws4fetchSign, body, credentials, headers, region, url } from "./bench_sigv4_request.ts";

/** Signs the benchmark request once. */
type Sign = () => Promise<unknown>;

/** The contenders, signing at `date` (or now): ours, ours B when given, and aws4fetch. */
function contenders(
  ours: typeof signRequest,
  oursB: typeof signRequest | undefined,
  date?: Date,
): [string, Sign][] {
  const request = { method: "POST", url, headers, body };
  const options = { region, service: "appsync", credentials, ...(date ? { date } : {}) };
  const aws4fetchCache = new Map();
  const list: [string, Sign][] = [["ours", () => ours(request, options)]];
  if (oursB) list.push(["ours B", () => oursB(request, options)]);
  list.push(["aws4fetch", () => aws4fetchSign(date, aws4fetchCache)]);
  return list;
}

/** The Authorization each contender gives at one fixed time: they must all agree. */
async function authorizations(oursB?: typeof signRequest): Promise<(string | null)[]> {
  const signed = await Promise.all(
    contenders(signRequest, oursB, new Date("2024-05-06T07:08:09Z")).map(([, sign]) => sign()),
  );
  return signed.map((result) =>
    result instanceof Headers ? result.get("authorization") : (result as { headers: Headers }).headers.get(
      "authorization",
    )
  );
}

/** Signatures per second of each contender, one entry per round, after a warm-up round. */
async function runPageBench(
  rounds: number,
  sliceMs: number,
  oursB?: typeof signRequest,
): Promise<{ names: string[]; rates: number[][]; agreed: boolean }> {
  const agreed = new Set(await authorizations(oursB)).size === 1;
  const list = contenders(signRequest, oursB);
  const rates = list.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    for (let step = 0; step < list.length; step++) {
      const index = (Math.max(round, 0) + step) % list.length;
      const sign = list[index]![1];
      let count = 0;
      const start = performance.now();
      while (performance.now() - start < (round < 0 ? sliceMs / 2 : sliceMs)) {
        for (let i = 0; i < 20; i++) await sign();
        count += 20;
      }
      if (round >= 0) rates[index]!.push((count * 1000) / (performance.now() - start));
    }
  }
  return { names: list.map(([name]) => name), rates, agreed };
}

(globalThis as unknown as { runPageBench: typeof runPageBench }).runPageBench = runPageBench;
