/**
 * The page script of the browser run. The page's import map points `@seed/service-client` and
 * `@seed/service-client/sigv4` at the package's browser bundle (served as esm.sh would serve it),
 * so the library loads as a URL import. The results land on `window.__results` for the runner.
 * The WebKit and Firefox run (webkit_firefox.ts) bundles this script with the package instead
 * (Safari 16.0 has no import maps), and gets the results POSTed back to the page's origin, at
 * `/results`, with the errors the page recorded (`__problems`, filled by the page's first script).
 *
 * Query parameters: `endpoint` (the endpoint's base URL), `any` (`1` or `0`: whether
 * `AbortSignal.any` is expected to exist in this run) and `post` (`1`: POST the results).
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as sigv4 from "@seed/service-client/sigv4";
import { type CheckResult, runChecks } from "./checks.ts";

/** Runs the checks and publishes the results. No top-level await: bundlers.ts also bundles this as CommonJS. */
async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const results: CheckResult[] = await runChecks({
    lib,
    sigv4,
    base: params.get("endpoint") ?? "",
    abortSignalAny: params.get("any") === "1",
    hidesRedirects: true,
  });
  (globalThis as { __results?: CheckResult[] }).__results = results;
  if (params.get("post") === "1") {
    // A rejection left unhandled by the checks is reported after the microtasks run: let it land first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const problems = (globalThis as { __problems?: string[] }).__problems ?? [];
    await fetch("/results", { method: "POST", body: JSON.stringify({ results, problems }) });
  }
}

void main();
