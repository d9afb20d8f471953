/**
 * The Node runs: the same `node:test` files (npm/tests/, see node_tests.ts) under Node 18.17.1, 22,
 * 24 and 26 (from .ci/node_modules, installed by `npm install --prefix .ci`) and the machine's Node 20,
 * against the built package, imported (ESM) and required (CommonJS).
 *
 * Usage: `deno task test:node [18|20|22|24|26 …] [--no-build] [--verbose]`. A run's full output is printed
 * when it fails or with `--verbose`; its counts always.
 *
 * @module
 */

import {
  CI_TOOLS,
  NPM_DIR,
  prepare,
  ROOT,
  type RunResult,
  runScript,
  SIGV4_SUITE,
  summary,
} from "./common.ts";
import { watchForHang } from "./hang_report.ts";
import { type Counts, nodeCounts, nodeTestFiles } from "./node_tests.ts";

/** The Node binary of each major version the package supports. */
export const NODES: Readonly<Record<string, string>> = {
  "18": `${CI_TOOLS}/node18/bin/node`,
  "20": "node",
  "22": `${CI_TOOLS}/node22/bin/node`,
  "24": `${CI_TOOLS}/node24/bin/node`,
  "26": `${CI_TOOLS}/node26/bin/node`,
};

/**
 * How long one runtime's test run may take before it is killed and counted as failed. A run takes
 * about 25 s here, and up to 39 s with both cores busy with other work: twice that leaves room for a
 * slower CI machine, and a hang still costs at most two minutes.
 */
export const RUN_TIMEOUT_SECONDS = 120;

/**
 * Runs a command under coreutils' `timeout`, which kills its whole process group (test files run in
 * child processes) after {@link RUN_TIMEOUT_SECONDS}, and returns its exit code (124 when it timed
 * out) and its output (stdout, then stderr).
 *
 * @param command The program.
 * @param args Its arguments.
 * @param env Extra environment variables.
 * @param cwd The working directory (the repository's root by default).
 */
export async function capture(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
  cwd: string = ROOT,
): Promise<{ code: number; output: string }> {
  const child = await new Deno.Command("timeout", {
    args: ["--kill-after=10", String(RUN_TIMEOUT_SECONDS), command, ...args],
    cwd,
    env: { SIGV4_SUITE, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: child.code, output: text.decode(child.stdout) + text.decode(child.stderr) };
}

/**
 * Turns a runner's exit code and counts into a result, printing its output when it failed.
 *
 * @param runtime The runtime's label.
 * @param run The exit code and output.
 * @param counts The counts read off the output (undefined: none found, a failure).
 * @param started `performance.now()` at the start.
 * @param verbose Print the output even when it passed.
 */
export function resultOf(
  runtime: string,
  run: { code: number; output: string },
  counts: Counts | undefined,
  started: number,
  verbose: boolean,
): RunResult {
  const failed = !counts || counts.failed > 0 || run.code !== 0 || counts.passed === 0;
  if (failed || verbose) console.log(run.output);
  const result = {
    runtime,
    passed: counts?.passed ?? 0,
    failed: counts ? counts.failed + (failed && counts.failed === 0 ? 1 : 0) : 1,
    skipped: counts?.skipped ?? 0,
    seconds: (performance.now() - started) / 1000,
  };
  if (run.code === 124) {
    console.log(`  ✖ ${runtime} did not finish within ${RUN_TIMEOUT_SECONDS} s and was killed`);
  } else if (failed && counts?.failed === 0) {
    console.log(`  ✖ ${runtime} exited with ${run.code} or ran no test`);
  }
  console.log(summary(result));
  return result;
}

/**
 * Preloaded into Node 18's test processes: it ends each one at its `exit` event, before the
 * environment teardown in which Node 18.17.1 can spin forever (V8's FinalizationRegistry cleanup
 * task re-posting itself; see the file). Later Nodes do not need it and run without it.
 */
export const NODE18_EXIT: string = `${ROOT}/scripts/runtimes/node18_exit.cjs`;

/**
 * {@link capture} for a test run, watched: 5 s before the time limit, the run's processes still
 * alive are listed and asked for diagnostic reports, printed once the run has ended (see
 * hang_report.ts). A run that ends in time prints nothing more.
 *
 * @param preload A CommonJS file every Node process of the run loads first, if any.
 */
async function watched(
  binary: string,
  args: readonly string[],
  preload?: string,
): Promise<{ code: number; output: string }> {
  const watch = watchForHang();
  const disarm = watch.arm(RUN_TIMEOUT_SECONDS - 5, `${NPM_DIR}/tests/`);
  const nodeOptions = [watch.env.NODE_OPTIONS, preload && `--require ${JSON.stringify(preload)}`];
  try {
    return await capture(binary, args, { ...watch.env, NODE_OPTIONS: nodeOptions.filter(Boolean).join(" ") });
  } finally {
    disarm();
    watch.finish();
  }
}

/**
 * Makes a run once more when it hung (killed by `timeout`: exit 124), after printing the end of its
 * output. A safety net: Node 18.17.1's hang at exit, seen in 3 of 7 CI runs before NODE18_EXIT, was
 * the only hang so far.
 *
 * @param label The runtime, for the message.
 * @param start Starts the run.
 * @returns The last run's exit code and output.
 */
export async function onceMoreIfHung(
  label: string,
  start: () => Promise<{ code: number; output: string }>,
): Promise<{ code: number; output: string }> {
  const run = await start();
  if (run.code !== 124) return run;
  console.log(run.output.split("\n").slice(-30).join("\n"));
  console.log(`  ⚠ ${label} hung and was killed after ${RUN_TIMEOUT_SECONDS} s: running it once more`);
  return await start();
}

/**
 * Runs the test files under each requested Node version, one after another.
 *
 * @param versions Major versions, from {@link NODES}.
 * @param verbose Print every run's output.
 * @returns One result per version.
 */
export async function runNode(versions: readonly string[], verbose = false): Promise<RunResult[]> {
  const files = nodeTestFiles();
  const results: RunResult[] = [];
  for (const major of versions) {
    const binary = NODES[major];
    if (!binary) {
      throw new Error(`Cannot run Node ${major}: expected one of ${Object.keys(NODES).join(", ")}`);
    }
    const started = performance.now();
    const version = (await capture(binary, ["--version"])).output.trim();
    if (!version.startsWith(`v${major}.`)) {
      throw new Error(
        `Cannot run Node ${major}: ${binary} is ${version || "missing"} ` +
          "(run `npm install --prefix .ci --no-save`)",
      );
    }
    console.log(`node ${version}: ${files.length} test files`);
    const args = ["--test", "--test-reporter=spec", ...files];
    const preload = major === "18" ? NODE18_EXIT : undefined;
    // A run that hangs is reported with the evidence `watched` collected, and made once more.
    const run = await onceMoreIfHung(`node ${version}`, () => watched(binary, args, preload));
    results.push(resultOf(`node ${version.slice(1)}`, run, nodeCounts(run.output), started, verbose));
  }
  return results;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    const versions = Deno.args.filter((arg) => /^\d+$/.test(arg));
    return runNode(versions.length ? versions : Object.keys(NODES), Deno.args.includes("--verbose"));
  });
}
