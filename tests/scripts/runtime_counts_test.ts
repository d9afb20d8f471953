/**
 * The count check of the runtime matrix (scripts/runtimes/readme_counts.ts), which keeps the table of
 * docs/runtimes.md true: a `node:test` run's passed and skipped counts, and a run of the shared
 * checks' number of checks, must be what the table states, and every row of checks must have had a
 * run. On a table of the same shape as the real one.
 *
 * Deno only (it reads scripts/): not part of the npm build's tests.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { checkCountMismatches, readmeMismatches } from "../../scripts/runtimes/readme_counts.ts";
import type { RunResult } from "../../scripts/runtimes/common.ts";

const TABLE = [
  "| Runtime | How | Result |",
  "| ------- | --- | ------ |",
  "| Node 18.17.1 | … | 660 passed, 36 skipped¹ |",
  "| Bun 1.4.5 | … | 692 passed, 4 skipped³ |",
  "| Deno 1.46.0 (the oldest Deno on npm) | … | 23 checks pass |",
  "| Bun 1.0.0 | … | 45 checks pass |",
  "| Deno 2.9.6 on the npm build | … | 45 checks pass |",
  "| Chromium 156 (headless) | … | 22 checks pass |",
  "| Chromium without `AbortSignal.any` | … | 22 checks pass |",
  "| Chromium, the package's files without a bundler | … | 22 checks pass |",
  "| WebKit 2.38 (WPE, headless `cog`) | … | 23 checks pass |",
  "| Firefox 153 ESR (headless) | … | 23 checks pass |",
  "| workerd (Cloudflare Workers, via miniflare) | … | 21 checks pass |",
  "| workerd, bundled without `workerd` | … | 21 checks pass |",
  "| edge-runtime (Vercel Edge) | … | 22 checks pass |",
  "| Vite 8.3.8 (Rolldown), Vite 7.3.8 (Rollup) | … | 25 checks pass each |",
  '| webpack 5.112.2, `target: "web"` | … | 25 checks pass each |',
  '| webpack 5.112.2, `target: "node18.17"` | … | 25 checks pass |',
].join("\n");

/** The runs of a whole matrix, labelled as the runners label them, each as the table states it. */
const MATRIX: ReadonlyArray<readonly [label: string, checks: number]> = [
  ["deno 1.46.0 (source)", 23],
  ["bun 1.0.0 (npm build: import and require)", 45],
  ["deno 2.9.6 (npm build: import and require)", 45],
  ["chromium 156.0.8078.108", 22],
  ["chromium 156.0.8078.108 without AbortSignal.any", 22],
  ["chromium 156.0.8078.108, the package's files without a bundler", 22],
  ["webkit 2.38.6 (WPE, cog 0.16.1)", 23],
  ["firefox 153.7.0esr (headless)", 23],
  ["workerd (miniflare, 7 modules)", 21],
  ["workerd, bundled without the workerd condition (miniflare, 7 modules)", 21],
  ["edge-runtime", 22],
  ["vite 8.3.8 (browser) on chromium 156.0.8078.108", 25],
  ["vite 7.3.8 (browser) on chromium 156.0.8078.108", 25],
  ["webpack 5.112.2 (web) on chromium 156.0.8078.108", 25],
  ["webpack 5.112.2 (web, require) on chromium 156.0.8078.108", 25],
  ["webpack 5.112.2 (node18.17) on node 18.17.1", 25],
  ["chromium 156.0.8078.108 (realtime)", 3],
];

const run = (runtime: string, passed: number, skipped = 0, failed = 0): RunResult => ({
  runtime,
  passed,
  failed,
  skipped,
  seconds: 0,
});

describe("the runtime matrix's count check", () => {
  it("finds a node:test run's row by runtime and version, and tells a stale or missing one", () => {
    assert.deepEqual(readmeMismatches([run("node 18.17.1", 660, 36), run("bun 1.4.5", 692, 4)], TABLE), []);
    assert.deepEqual(readmeMismatches([run("node 18.17.1", 661, 36), run("node 24.0.0", 1)], TABLE), [
      "node 18.17.1: the table says 660 passed, 36 skipped; this run: 661 passed, 36 skipped",
      "node 24.0.0: no row states its counts",
    ]);
  });

  it("agrees with a whole matrix as the table states it (a run no row names is left out)", () => {
    assert.deepEqual(checkCountMismatches(MATRIX.map(([label, checks]) => run(label, checks)), TABLE), []);
  });

  it("tells a run of one check more or less, each run of an 'each' row, and counts failed checks in", () => {
    // workerd: 20 passed and 1 failed are its 21 checks (the failure is reported by the run itself).
    const runs = MATRIX.map(([label, checks]) =>
      label == "edge-runtime"
        ? run(label, 23)
        : label.startsWith("vite 7")
        ? run(label, 23, 0, 1)
        : label.startsWith("workerd (")
        ? run(label, 20, 0, 1)
        : run(label, checks)
    );
    assert.deepEqual(checkCountMismatches(runs, TABLE), [
      "edge-runtime: the table says 22 checks; this run made 23",
      "vite 7.3.8 (browser) on chromium 156.0.8078.108: the table says 25 checks; this run made 24",
    ]);
  });

  it("tells a row that no run of the matrix matched, and a row that states no checks", () => {
    const withoutEdge = MATRIX.filter(([label]) => label != "edge-runtime").map(([label, n]) =>
      run(label, n)
    );
    assert.deepEqual(checkCountMismatches(withoutEdge, TABLE), [
      "/^edge-runtime/: the matrix ran /^edge-runtime$/ 0 times, not once",
    ]);
    const noEdgeRow = TABLE.split("\n").filter((line) => !line.startsWith("| edge-runtime")).join("\n");
    assert.deepEqual(checkCountMismatches(MATRIX.map(([label, n]) => run(label, n)), noEdgeRow), [
      "/^edge-runtime/: no row states its checks",
    ]);
  });

  it("tells a run of another version than its row names, and a row with too few or too many runs", () => {
    const runs = MATRIX
      .filter(([label]) => !label.startsWith("vite 7"))
      .flatMap(([label, checks]) =>
        label.startsWith("deno 1.46")
          ? [run("deno 1.45.2 (source)", checks)]
          : label.startsWith("chromium 156.0.8078.108 without")
          ? [run(label, checks), run("chromium 160.0.1 without AbortSignal.any", checks)]
          : label == "chromium 156.0.8078.108"
          ? [run("chromium 160.0.1", checks)]
          : [run(label, checks)]
      );
    assert.deepEqual(checkCountMismatches(runs, TABLE), [
      "deno 1.45.2 (source): the table names 1.46.0",
      "chromium 160.0.1: the table names 156",
      "/^Chromium without/: the matrix ran /^chromium [\\d.]+ without AbortSignal\\.any$/ 2 times, not once",
      "/^Vite /: the matrix ran /^vite/ 1 times, not twice or more",
    ]);
  });

  it("takes a browser's update within the version its row names (Debian's ESR and WPE releases)", () => {
    const updated = MATRIX.map(([label, n]) =>
      run(label.replace("153.7.0esr", "153.8.1esr").replace("webkit 2.38.6", "webkit 2.38.7"), n)
    );
    assert.deepEqual(checkCountMismatches(updated, TABLE), []);
    const next = MATRIX.map(([label, n]) => run(label.replace("153.7.0esr", "160.1.0esr"), n));
    assert.deepEqual(checkCountMismatches(next, TABLE), [
      "firefox 160.1.0esr (headless): the table names 153",
    ]);
  });

  it("takes a footnote mark after a row's count", () => {
    const marked = TABLE.replace(
      "| 22 checks pass |\n| Chromium without",
      "| 22 checks pass¹ |\n| Chromium without",
    );
    assert.notEqual(marked, TABLE);
    assert.deepEqual(checkCountMismatches(MATRIX.map(([label, n]) => run(label, n)), marked), []);
  });
});
