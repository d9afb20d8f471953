/**
 * The Bun run: `bun test` on the same `node:test` files as Node (npm/tests/, see node_tests.ts),
 * against the built package. Bun comes from .ci/node_modules (`npm install --prefix .ci`).
 *
 * Usage: `deno task test:bun [--no-build] [--verbose]`.
 *
 * @module
 */

import { CI_TOOLS, prepare, type RunResult, runScript } from "./common.ts";
import { capture, resultOf } from "./node.ts";
import { bunCounts, nodeTestFiles } from "./node_tests.ts";

/**
 * The Bun binaries the toolchain may hold: the one bun's postinstall puts in place, and the
 * platform package's own, for an npm that skipped the postinstall (the first is then a placeholder).
 */
export const BUNS: readonly string[] = [`${CI_TOOLS}/.bin/bun`, `${CI_TOOLS}/@oven/bun-linux-x64/bin/bun`];

/**
 * Runs the test files under Bun.
 *
 * @param verbose Print the output even when it passed.
 * @returns The run's result.
 */
export async function runBun(verbose = false): Promise<RunResult[]> {
  const files = nodeTestFiles();
  const started = performance.now();
  let bun: string | undefined;
  let version = "";
  for (const candidate of BUNS) {
    version = (await capture(candidate, ["--version"])).output.trim();
    if (/^\d+\.\d+\.\d+$/.test(version)) {
      bun = candidate;
      break;
    }
  }
  if (!bun) throw new Error(`Cannot run Bun: none of ${BUNS.join(", ")} runs (install the .ci toolchain)`);
  console.log(`bun ${version}: ${files.length} test files`);
  // Bun's runner stops a test after 5 s by default: the smithy differential (2,000 requests on every
  // signing variant) runs longer on a busy 2-core machine. Node's runner has no such limit.
  const run = await capture(bun, ["test", "--timeout", "120000", ...files]);
  return [resultOf(`bun ${version}`, run, bunCounts(run.output), started, verbose)];
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runBun(Deno.args.includes("--verbose"));
  });
}
