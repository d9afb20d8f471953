/**
 * Measures the signer alone as a browser would ship it: `src/sigv4.ts` bundled by esbuild (ESM,
 * browser platform, minified) with `crypto_web.ts` in place of `crypto.ts`, as the npm package's
 * web build imports it, then gzipped. The source as JSR ships it, with its `node:crypto` path, is
 * printed beside it for reference. Exits with 1 above the regression ceiling, a little
 * over the last measurement; lower it as the signer shrinks. The budget (1,200 B) is not met: see
 * {@link SIZE_CEILING} for what the signer holds and what each part costs.
 *
 * Usage: `deno task size:sigv4` (add `--print` to see the bundle, `--floor` for its size with every
 * string literal emptied: the logic alone, see `string_floor.ts`).
 *
 * @module
 */

import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { stringFloor } from "./string_floor.ts";

/** The budget, in gzipped bytes (zlib's default level). */
export const SIZE_BUDGET = 1_200;
/**
 * The regression ceiling CI enforces until the budget is met: the last measurement plus a little.
 *
 * 1,284 B before `node:crypto` came in. Since then the bundle holds two crypto paths: Web Crypto
 * for pages and Deno 1, and `node:crypto` (through `process.getBuiltinModule`) for Deno 2, Node and
 * Bun, which signs several times faster there (about +80 B); and it reads a `+` in the query as a
 * plus sign, as AWS does (+16 B). Shaved since: the signing key named by secret and scope alone,
 * `escape` for four of RFC 3986's five extra characters, and the key derivation written out in each
 * signer (-23 B): 1,355 B. Then 1,355 -> 1,347 B: `hmacKey` one function that picks its path when
 * called (-6 B), `getBuiltinModule("crypto")` without the `node:` prefix (-4 B; Node, Deno and Bun
 * take both). Then 1,347 -> 1,264 B: measured as browsers get it, on `crypto_web.ts`, which the npm
 * package's web build imports in place of `crypto.ts` (no `node:crypto` path a page could never take:
 * -83 B; the source as JSR ships it is 1,355 B, printed beside it).
 *
 * What each part costs, measured by taking it out of a copy (1,357 B then): the Web Crypto path
 * 147 B (its hex encoding 41), the unsignable-header pattern 110, the canonical path and query
 * 128 (the query alone 68), the field checks and their errors 157 (54 over plain reads), fetch's
 * method normalization 44, the body's check 23. Speed bought with bytes, kept because the benchmarks
 * need it: the cache of the last x-amz-date (24 B; without it `signRequest` on Node fell from about
 * 2.0x to 1.8x smithy), the body hashed before the headers are worked out (7 B; without it Chromium
 * fell from 1.13x to 0.99x aws4fetch), no `URLSearchParams` for a URL without a query (4 B).
 * Rewritings that left the behaviour alone (checks driven by a table, one `try` for every field,
 * `Object.assign` or a class for the error, `async` Web Crypto, `for…of` over the headers) each
 * moved the size by -5 to +20 B: the budget is out of reach without dropping a behaviour the tests
 * describe or one of those speeds.
 */
export const SIZE_CEILING = 1_270;

/**
 * Bundles `src/sigv4.ts` and returns the minified code: on the web build's `crypto_web.ts`, or with
 * `source`, on `crypto.ts` as JSR ships it.
 */
export async function bundleSigner(source = false): Promise<string> {
  const web = new URL("../src/crypto_web.ts", import.meta.url).pathname;
  const result = await esbuild.build({
    entryPoints: [new URL("../src/sigv4.ts", import.meta.url).pathname],
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    write: false,
    logLevel: "silent",
    plugins: source ? [] : [{
      name: "web-build",
      setup: (build) => build.onResolve({ filter: /^\.\/crypto\.ts$/ }, () => ({ path: web })),
    }],
  });
  await esbuild.stop();
  return result.outputFiles[0]!.text;
}

if (import.meta.main) {
  const code = await bundleSigner();
  const bytes = new TextEncoder().encode(code);
  const gzipped = gzipSync(bytes).length;
  const gzippedBest = gzipSync(bytes, { level: 9 }).length;
  if (Deno.args.includes("--print")) console.log(code);
  console.log(
    `src/sigv4.ts (web build, crypto_web.ts): ${bytes.length} B minified, ${gzipped} B gzipped (${gzippedBest} B at level 9)`,
  );
  const jsr = new TextEncoder().encode(await bundleSigner(true));
  console.log(
    `src/sigv4.ts (as JSR ships it, crypto.ts with its node:crypto path): ${jsr.length} B minified, ${
      gzipSync(jsr).length
    } B gzipped, not budgeted`,
  );
  console.log(
    `budget: ${SIZE_BUDGET} B gzipped: ${
      gzipped <= SIZE_BUDGET ? "ok" : `OVER by ${gzipped - SIZE_BUDGET} B`
    }`,
  );
  console.log(
    `regression ceiling: ${SIZE_CEILING} B gzipped: ${gzipped <= SIZE_CEILING ? "ok" : "EXCEEDED"}`,
  );
  if (Deno.args.includes("--floor")) {
    const { gzipped: floor } = stringFloor(code);
    console.log(`with every string literal emptied (logic alone): ${floor} B gzipped`);
  }
  if (gzipped > SIZE_CEILING) Deno.exit(1);
}
