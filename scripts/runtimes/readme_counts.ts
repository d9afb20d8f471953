/**
 * The runtimes table of docs/runtimes.md (the README links to it) says what each `node:test` run
 * gives ("660 passed, 36 skipped" for Node 18.17.1, …), and how many checks each run of the shared
 * checks makes ("22 checks pass" for Chromium, …). This compares those claims with the runs just
 * made, so that a test or a check added, or a new skip, fails the matrix until the table says so,
 * instead of leaving a stale number behind.
 *
 * Used by `all.ts` after the whole matrix; tested by tests/scripts/runtime_counts_test.ts.
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

/**
 * The runs of the shared checks (checks/checks.ts, with what each run adds) and the row that states
 * their number, as "N checks pass" ("N checks pass each" for a row of several runs): a pattern of the
 * run's label, and one of the row's first cell.
 */
const CHECK_ROWS: ReadonlyArray<readonly [run: RegExp, row: RegExp]> = [
  [/^deno 1\.[\d.]+ \(source\)$/, /^Deno 1\./],
  [/^bun 1\.0\.\d+ \(npm build/, /^Bun 1\.0\./],
  [/^deno 2\.[\d.]+ \(npm build/, /^Deno [\d.]+ on the npm build/],
  [/^chromium [\d.]+$/, /^Chromium \d+ \(headless\)/],
  [/^chromium [\d.]+ without AbortSignal\.any$/, /^Chromium without/],
  [/^chromium [\d.]+, the package's files without a bundler$/, /^Chromium, the package's files/],
  [/^webkit /, /^WebKit /],
  [/^firefox /, /^Firefox /],
  [/^workerd \(/, /^workerd \(/],
  [/^workerd, bundled without/, /^workerd, bundled without/],
  [/^edge-runtime$/, /^edge-runtime/],
  [/^vite/, /^Vite /],
  [/^webpack [\d.]+ \(web/, /^webpack [\d.]+, `target: "web"`/],
  [/^webpack [\d.]+ \(node/, /^webpack [\d.]+, `target: "node/],
];

/** The versions a text names (`156`, `1.46.0`, `153 ESR` gives `153`, `153.8.0esr` gives `153.8.0`). */
const versionsIn = (text: string) => text.match(/\d+(?:\.\d+)+|(?<= )\d+(?= )/g) ?? [];

/**
 * The rows' check counts that disagree with `results`. Every row of {@link CHECK_ROWS} must have had
 * its runs: one, or at least two for a row that says "each"; each run must have made as many checks
 * (passed or failed) as its row says, and be of a version the row names, when the row names one
 * (Chromium 156 for `chromium 156.0.8078.108`). A footnote mark after the count is allowed.
 */
export function checkCountMismatches(results: readonly RunResult[], doc: string): Mismatch[] {
  const cells = doc.split("\n").filter((line) => line.startsWith("| ")).map((line) =>
    line.split("|").slice(1, -1).map((cell) => cell.trim())
  );
  const mismatches: Mismatch[] = [];
  for (const [run, row] of CHECK_ROWS) {
    const runs = results.filter((result) => run.test(result.runtime));
    const cellsOfRow = cells.find((cell) => row.test(cell[0]!));
    const claim = cellsOfRow && /^(\d+) checks pass( each)?[¹²³⁴⁵⁶⁷⁸⁹⁰]*$/.exec(cellsOfRow.at(-1)!);
    if (!claim) {
      mismatches.push(`${row}: no row states its checks`);
      continue;
    }
    const each = claim[2] !== undefined;
    if (each ? runs.length < 2 : runs.length != 1) {
      const wanted = each ? "twice or more" : "once";
      mismatches.push(`${row}: the matrix ran ${run} ${runs.length} times, not ${wanted}`);
    }
    const named = versionsIn(` ${cellsOfRow![0]} `);
    for (const result of runs) {
      const [version] = versionsIn(result.runtime);
      if (named.length && !named.some((prefix) => version == prefix || version?.startsWith(prefix + "."))) {
        mismatches.push(`${result.runtime}: the table names ${named.join(", ")}`);
      }
      if (result.passed + result.failed !== +claim[1]!) {
        mismatches.push(
          `${result.runtime}: the table says ${claim[1]} checks; this run made ${
            result.passed + result.failed
          }`,
        );
      }
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
  const doc = Deno.readTextFileSync(`${ROOT}/${COUNTS_DOC}`);
  const mismatches = [...readmeMismatches(checked, doc), ...checkCountMismatches(results, doc)];
  for (const mismatch of mismatches) {
    console.log(`  ✖ ${mismatch}: update the table of ${COUNTS_DOC}`);
  }
  const result = {
    runtime: `${COUNTS_DOC}'s runtime counts`,
    passed: Math.max(0, checked.length + CHECK_ROWS.length - mismatches.length),
    failed: mismatches.length,
    skipped: 0,
    seconds: (performance.now() - started) / 1000,
  };
  console.log(summary(result));
  return result;
}
