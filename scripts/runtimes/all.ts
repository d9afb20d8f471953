/**
 * The whole runtime matrix on the built package, one run after another: Node 18.17.1, 20, 22, 24 and 26,
 * the check of Node 18's exit preload (node18_exit_check.ts), Bun, Chromium (with and without
 * `AbortSignal.any`), WebKit 2.38 (Safari 16.0's) and Firefox ESR, workerd, edge-runtime, the
 * oldest Deno and Bun on npm (oldest.ts), Deno 2 on the npm build (deno_npm.ts), the package built
 * by Vite 8, Vite 7 and webpack 5 (bundlers.ts), and the real-time entry's own checks (realtime.ts: a
 * subscriber exits by itself under each runtime; a Chromium page subscribes). Deno 2 runs the whole
 * suite on the source with `deno task test`, not here.
 *
 * Builds npm/ first (`--no-build` to skip), keeps going when a runtime fails, checks the counts
 * docs/runtimes.md states for the Node and Bun runs and for the shared checks' runs
 * (readme_counts.ts), then prints one line per runtime and a closing `runtimes: N passed, N failed,
 * N skipped`; exits with 1 if any failed.
 *
 * Usage: `deno task test:runtimes [--no-build] [--verbose]`.
 *
 * @module
 */

import { runBrowser } from "./browser.ts";
import { runBun } from "./bun.ts";
import { runBundlers } from "./bundlers.ts";
import { prepare, type RunResult, runScript, summary } from "./common.ts";
import { runDenoNpm } from "./deno_npm.ts";
import { runEdge } from "./edge.ts";
import { NODES, runNode } from "./node.ts";
import { runNode18ExitCheck } from "./node18_exit_check.ts";
import { runOldest } from "./oldest.ts";
import { readmeCountsResult } from "./readme_counts.ts";
import { runRealtimeBrowser, runRealtimeExit } from "./realtime.ts";
import { runWebkitFirefox } from "./webkit_firefox.ts";
import { runWorker } from "./worker.ts";

/** Runs every runtime and returns their results, a failure to start counting as a failed run. */
export async function runAll(verbose = false): Promise<RunResult[]> {
  const runs: ReadonlyArray<[string, () => Promise<RunResult[]>]> = [
    ...Object.keys(NODES).map((major): [string, () => Promise<RunResult[]>] => [
      `node ${major}`,
      () => runNode([major], verbose),
    ]),
    ["node 18 exit", runNode18ExitCheck],
    ["bun", () => runBun(verbose)],
    ["chromium", runBrowser],
    ["webkit and firefox", runWebkitFirefox],
    ["workerd", runWorker],
    ["edge-runtime", runEdge],
    ["deno 1 and bun 1.0", runOldest],
    ["deno on the npm build", runDenoNpm],
    ["vite and webpack", runBundlers],
    ["realtime: subscribers exit by themselves", runRealtimeExit],
    ["realtime: chromium", runRealtimeBrowser],
  ];
  const results: RunResult[] = [];
  for (const [name, run] of runs) {
    console.log(`::group::${name}`);
    const started = performance.now();
    try {
      results.push(...await run());
    } catch (err) {
      console.error(err instanceof Error ? err.stack ?? err.message : err);
      const failed = {
        runtime: name,
        passed: 0,
        failed: 1,
        skipped: 0,
        seconds: (performance.now() - started) / 1000,
      };
      console.log(summary(failed));
      results.push(failed);
    }
    console.log("::endgroup::");
  }
  // docs/runtimes.md states the node:test counts and the checks': a run that tells otherwise fails.
  console.log("::group::README's runtime counts");
  results.push(readmeCountsResult(results));
  console.log("::endgroup::");
  console.log("\nruntime matrix:");
  for (const result of results) console.log(`  ${result.failed ? "✖" : "✔"} ${summary(result)}`);
  const total = (key: "passed" | "failed" | "skipped") =>
    results.reduce((sum, result) => sum + result[key], 0);
  console.log(`runtimes: ${total("passed")} passed, ${total("failed")} failed, ${total("skipped")} skipped`);
  return results;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runAll(Deno.args.includes("--verbose"));
  });
}
