/**
 * The `node:test` files that Node and Bun run against the built package: the compiled tests in
 * npm/tests/ (from tests/*_test.ts) and the two package smokes of `smoke/` (ESM `import`, CommonJS
 * `require`), copied beside them so that they resolve the package by its own name.
 *
 * Also the parsing of each runner's closing counts.
 *
 * @module
 */

import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { NPM_DIR } from "./common.ts";

const SMOKE_DIR = new URL("./smoke/", import.meta.url).pathname;

/**
 * Copies the smokes into npm/tests/ and lists every test file there.
 *
 * @returns Absolute paths of the test files, sorted.
 */
export function nodeTestFiles(): string[] {
  const testsDir = join(NPM_DIR, "tests");
  for (const name of readdirSync(SMOKE_DIR)) copyFileSync(join(SMOKE_DIR, name), join(testsDir, name));
  return readdirSync(testsDir)
    .filter((name) => /_test\.(c|m)?js$/.test(name))
    .sort()
    .map((name) => join(testsDir, name));
}

/** Counts read off a runner's output. */
export interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/**
 * The closing counts of `node --test` with the spec reporter (`ℹ pass 12`, …); cancelled tests
 * count as failed. Undefined when there are none (the runner crashed).
 */
export function nodeCounts(output: string): Counts | undefined {
  const count = (label: string) => Number(new RegExp(`^ℹ ${label} (\\d+)$`, "m").exec(output)?.[1] ?? NaN);
  const [passed, failed, cancelled, skipped] = ["pass", "fail", "cancelled", "skipped"].map(count);
  if ([passed, failed].some(Number.isNaN)) return undefined;
  return { passed: passed!, failed: failed! + (cancelled || 0), skipped: skipped || 0 };
}

/** The closing counts of `bun test` (` 12 pass`, ` 0 fail`, ` 3 skip`). */
export function bunCounts(output: string): Counts | undefined {
  const count = (label: string) => Number(new RegExp(`^\\s*(\\d+) ${label}$`, "m").exec(output)?.[1] ?? NaN);
  const [passed, failed, skipped] = ["pass", "fail", "skip"].map(count);
  if ([passed, failed].some(Number.isNaN)) return undefined;
  return { passed: passed!, failed: failed!, skipped: skipped || 0 };
}
