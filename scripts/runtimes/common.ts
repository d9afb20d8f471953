/**
 * What every runtime run shares: paths, the build step, the result type and its report lines.
 *
 * Each run ends with a line `<runtime>: N passed, N failed[, N skipped]`, and each run's
 * script exits with 1 when anything failed.
 *
 * @module
 */

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNpm } from "../build_npm.ts";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
/** The built package. */
export const NPM_DIR: string = `${ROOT}/npm`;
/** The toolchain CI installs first (`npm install --prefix .ci`). */
export const CI_TOOLS: string = `${ROOT}/.ci/node_modules`;
/**
 * The dev tools' folder (scripts/tools/: its deno.json, and the node_modules Deno installs there),
 * where a script run by Node finds playwright-core, edge-runtime and the rest.
 */
export const DEV_TOOLS: string = `${ROOT}/scripts/tools`;
/** AWS's SigV4 suite, read by tests/sigv4_suite_test.ts (its relative default does not hold in npm/tests/). */
export const SIGV4_SUITE: string = `${ROOT}/tests/fixtures/sigv4-suite/`;

/**
 * Installs the built package into `<dir>/node_modules/@seed/service-client` as npm would: packed by
 * `npm pack` (so only what its `files` list ships), then unpacked there. A runtime or a bundler then
 * resolves it by its name, as a dependency inside `node_modules`.
 *
 * @param dir The project folder.
 */
export async function installPackage(dir: string): Promise<void> {
  const into = join(dir, "node_modules", "@seed", "service-client");
  mkdirSync(into, { recursive: true });
  const run = async (command: string, args: string[]) => {
    const child = await new Deno.Command(command, { args, cwd: dir, stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder();
    if (!child.success) {
      throw new Error(
        `${command} ${args.join(" ")} failed: ${text.decode(child.stdout)}${text.decode(child.stderr)}`,
      );
    }
    return text.decode(child.stdout);
  };
  const [packed] = JSON.parse(await run("npm", ["pack", NPM_DIR, "--json", "--loglevel=error"])) as [
    { filename: string },
  ];
  try {
    await run("tar", ["-xzf", packed.filename, "-C", into, "--strip-components=1"]);
  } finally {
    rmSync(join(dir, packed.filename), { force: true });
  }
}

/** The outcome of one runtime's run. */
export interface RunResult {
  /** The runtime and its version, such as `node 18.17.1`. */
  readonly runtime: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly seconds: number;
}

/** One check inside a runtime, as reported by the in-runtime harness. */
export interface CheckLine {
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  /** Why it failed, or why it was skipped. */
  readonly error?: string;
  /** Not run to a verdict: counted as skipped, whatever `ok` says. */
  readonly skipped?: boolean;
}

/**
 * Builds the package unless `--no-build` is among the arguments; fails when there is none to test.
 *
 * @param args The script's arguments.
 */
export function prepare(args: readonly string[]): void {
  if (!args.includes("--no-build")) buildNpm();
  if (!existsSync(`${NPM_DIR}/package.json`)) {
    throw new Error("Cannot test the npm package: npm/ is not built (run `deno task build:npm`)");
  }
}

/** The summary line of a run: `runtime: N passed, N failed, N skipped`. */
export function summary(result: RunResult): string {
  const skipped = result.skipped ? `, ${result.skipped} skipped` : "";
  return `${result.runtime}: ${result.passed} passed, ${result.failed} failed${skipped} (${
    result.seconds.toFixed(1)
  } s)`;
}

/**
 * Prints the checks of an in-runtime run, then its summary, and returns the result.
 *
 * @param runtime The runtime's label.
 * @param lines The checks' outcomes.
 * @param started `performance.now()` at the start of the run.
 */
export function reportChecks(runtime: string, lines: readonly CheckLine[], started: number): RunResult {
  for (const line of lines) {
    const mark = line.skipped ? "↷" : line.ok ? "✔" : "✖";
    console.log(`  ${mark} ${line.name} (${line.ms} ms)${line.error ? `\n      ${line.error}` : ""}`);
  }
  const failed = lines.filter((line) => !line.ok && !line.skipped).length;
  const skipped = lines.filter((line) => line.skipped).length;
  const result = {
    runtime,
    passed: lines.length - failed - skipped,
    failed: lines.length ? failed : 1,
    skipped,
    seconds: (performance.now() - started) / 1000,
  };
  if (!lines.length) console.log(`  ✖ ${runtime}: no check ran`);
  console.log(summary(result));
  return result;
}

/** What an entry run as a process prints before its checks' JSON. */
const RESULTS_MARKER = "checks: ";

/**
 * The checks an entry run as a process printed (one line, `checks: <JSON>`), then one line for its
 * exit: an error thrown after the checks (an uncaught one, an unhandled rejection) makes the runtime
 * exit with another code than 0, and fails the run.
 *
 * @param child The process's exit code and output.
 * @param name The exit line's name, such as `the checks ran, and Bun exited with 0`.
 */
export function checkLines(child: { code: number; output: string }, name: string): CheckLine[] {
  const line = child.output.split("\n").find((text) => text.startsWith(RESULTS_MARKER));
  const lines = line === undefined ? [] : JSON.parse(line.slice(RESULTS_MARKER.length)) as CheckLine[];
  const exited = child.code === 0 && line !== undefined;
  return [...lines, {
    name,
    ok: exited,
    ms: 0,
    ...(exited ? {} : { error: `exit ${child.code}: ${child.output}` }),
  }];
}

/**
 * Runs `main` as a script: prints its results and exits with 1 when any failed or it threw.
 *
 * @param main The run; returns one result per runtime.
 */
export async function runScript(main: () => Promise<readonly RunResult[]>): Promise<void> {
  try {
    const results = await main();
    Deno.exit(results.some((result) => result.failed > 0) ? 1 : 0);
  } catch (err) {
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    Deno.exit(1);
  }
}
