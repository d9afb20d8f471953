/**
 * The runtimes table of docs/runtimes.md (the README links to it) says what each `node:test` run
 * gives ("660 passed, 36 skipped" for Node 18.17.1, …). This compares those claims with the runs just
 * made, so that a test added, or a new skip, fails the matrix until the table says so, instead of
 * leaving a stale number behind.
 *
 * Used by `all.ts` after the Node and Bun runs; `deno run -A scripts/runtimes/readme_counts.ts`
 * runs its self-check.
 *
 * @module
 */

import { ROOT, type RunResult, summary } from "./common.ts";

/** The label of a `node:test` run of Node or Bun: `node 18.17.1`, `bun 1.4.5` (not `bun 1.0.0 (…)`). */
const NODE_TEST_RUN = /^(node|bun) (\d+\.\d+\.\d+)$/;

/** One mismatch between the README and a run, in words. */
export type Mismatch = string;

/**
 * The README rows' claims that disagree with `results` (those of `node <version>` and
 * `bun <version>`; other runtimes are left out). A run whose version no row names is a mismatch.
 */
export function readmeMismatches(results: readonly RunResult[], readme: string): Mismatch[] {
  const rows = readme.split("\n").filter((line) => line.startsWith("| "));
  const mismatches: Mismatch[] = [];
  for (const result of results) {
    const [, runtime, version] = NODE_TEST_RUN.exec(result.runtime) ?? [];
    if (!runtime) continue;
    const row = rows.find((line) =>
      new RegExp(`^\\| ${runtime}\\b[^|]*\\b${version!.replaceAll(".", "\\.")}\\b`, "i").test(line)
    );
    const claim = row && /(\d+) passed, (\d+) skipped/.exec(row);
    if (!claim) {
      mismatches.push(`${result.runtime}: no row states its counts`);
    } else if (+claim[1]! !== result.passed || +claim[2]! !== result.skipped) {
      mismatches.push(
        `${result.runtime}: the table says ${claim[1]} passed, ${
          claim[2]
        } skipped; this run: ${result.passed} passed, ${result.skipped} skipped`,
      );
    }
  }
  return mismatches;
}

/** The document whose table states the counts. */
export const COUNTS_DOC = "docs/runtimes.md";

/** Checks docs/runtimes.md against `results` and returns the check as a run of its own. */
export function readmeCountsResult(results: readonly RunResult[]): RunResult {
  const started = performance.now();
  const checked = results.filter((result) => NODE_TEST_RUN.test(result.runtime));
  const mismatches = readmeMismatches(checked, Deno.readTextFileSync(`${ROOT}/${COUNTS_DOC}`));
  for (const mismatch of mismatches) {
    console.log(`  ✖ ${mismatch}: update the table of ${COUNTS_DOC}`);
  }
  const result = {
    runtime: `${COUNTS_DOC}'s runtime counts`,
    passed: checked.length - mismatches.length,
    failed: mismatches.length,
    skipped: 0,
    seconds: (performance.now() - started) / 1000,
  };
  console.log(summary(result));
  return result;
}

if (import.meta.main) {
  // Self-check: the function finds a row by runtime and version, and tells a stale claim.
  const readme = [
    "| Node 18.17.1          | … | 660 passed, 36 skipped¹ |",
    "| Node 20.20.2, 22.23.3 | … | 693 passed, 3 skipped²  |",
    "| Bun 1.4.5             | … | 692 passed, 4 skipped³  |",
  ].join("\n");
  const run = (runtime: string, passed: number, skipped: number): RunResult => ({
    runtime,
    passed,
    failed: 0,
    skipped,
    seconds: 0,
  });
  const agreeing = readmeMismatches(
    [run("node 18.17.1", 660, 36), run("node 22.23.3", 693, 3), run("bun 1.4.5", 692, 4)],
    readme,
  );
  const stale = readmeMismatches([run("node 20.20.2", 694, 3), run("node 24.0.0", 1, 0)], readme);
  if (agreeing.length !== 0 || stale.length !== 2) {
    console.error("readme_counts self-check failed:", { agreeing, stale });
    Deno.exit(1);
  }
  console.log("readme_counts: self-check passed;", stale.join("; "));
}
