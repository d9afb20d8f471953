/**
 * Proves what `node18_exit.cjs` is for, on the Node 18.17.1 of the runtime matrix. That Node can spin
 * forever at 100% CPU when a process that used fetch exits (V8's FinalizationRegistry cleanup task
 * re-posting itself while the environment is torn down; Node 18.20.3 and later do not). It happened
 * in our CI's Node 18 runs now and then. `--stress-incremental-marking` makes it happen on every
 * run of `fetch_then_exit.mjs`, a plain fetch with no library, so the preload can be checked:
 *
 * - with the preload, the process exits, with its own exit code (3);
 * - without it, the process still hangs (the control: when it stops hanging, the first check no
 *   longer proves anything, and this one fails, saying that the preload may no longer be needed).
 *
 * Usage: `deno task test:node18-exit`. Part of `deno task test:runtimes`.
 *
 * @module
 */

import { reportChecks, ROOT, type RunResult, runScript } from "./common.ts";
import { NODE18_EXIT, NODES } from "./node.ts";

const SCRIPT = `${ROOT}/scripts/runtimes/fetch_then_exit.mjs`;
/**
 * The script takes ~5 s (fetch's idle connection closes after 4 s), so this leaves a loaded machine
 * time to start Node, fetch and exit; a process still running then is hung, and killed.
 */
const LIMIT_MS = 15_000;

/** Runs the script; `undefined` when it was still running at the limit (then killed). */
async function exitCodeOf(preload: boolean, code: number): Promise<number | undefined> {
  const args = [
    "--stress-incremental-marking",
    ...(preload ? ["--require", NODE18_EXIT] : []),
    SCRIPT,
    `${code}`,
  ];
  const child = new Deno.Command(NODES["18"]!, { args, stdout: "null", stderr: "null" }).spawn();
  let timer: number | undefined;
  const limit = new Promise<undefined>((resolve) => timer = setTimeout(resolve, LIMIT_MS));
  const status = await Promise.race([child.status, limit]);
  clearTimeout(timer);
  if (status) return status.code;
  child.kill("SIGKILL");
  await child.status;
  return undefined;
}

/** The check and its control, as a runtime result. */
export async function runNode18ExitCheck(): Promise<RunResult[]> {
  const started = performance.now();
  const code = await exitCodeOf(true, 3);
  const exitMs = Math.round(performance.now() - started);
  const control = await exitCodeOf(false, 0);
  const controlMs = Math.round(performance.now() - started) - exitMs;
  return [reportChecks("node 18 exit (node18_exit.cjs)", [
    {
      name: "with node18_exit.cjs, a process that used fetch exits, with its own exit code (3)",
      ok: code === 3,
      ms: exitMs,
      ...(code === 3
        ? {}
        : { error: code === undefined ? `still running after ${LIMIT_MS} ms` : `exit code ${code}` }),
    },
    {
      name: "control: without it, the same process hangs at exit (so the preload is still needed)",
      ok: control === undefined,
      ms: controlMs,
      ...(control === undefined ? {} : {
        error: `it exited (code ${control}), so the check above proves nothing: find another way to ` +
          "make the hang happen, or drop node18_exit.cjs if it is no longer needed",
      }),
    },
  ], started)];
}

if (import.meta.main) await runScript(runNode18ExitCheck);
