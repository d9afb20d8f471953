/**
 * Deno 2 on the npm build: a Deno project with a package.json (or an `npm:` import) gets the npm
 * package, not the JSR source, resolved by Deno's npm resolver (conditions `deno`, `node`, `import`
 * or `require`: the `node:crypto` signer). The package, from its `npm pack` tarball, sits in a
 * `node_modules` folder beside a package.json, as `deno install` places it;
 * `checks/installed_entry.ts` loads it through `import` and through `require`, checks which build
 * each loaded, and runs the checks with each against the local endpoint. Deno runs from that folder,
 * as in a project of its own.
 *
 * Usage: `deno task test:deno-npm` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkLines, installPackage, prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { type RuntimeEndpoint, startRuntimeEndpoint } from "./endpoint.ts";
import { capture } from "./node.ts";

const CHECKS_DIR = new URL("./checks/", import.meta.url).pathname;

/**
 * Runs the checks on the npm build under the running Deno.
 *
 * @returns One result.
 */
export async function runDenoNpm(): Promise<RunResult[]> {
  const runStarted = performance.now();
  const label = `deno ${Deno.version.deno} (npm build: import and require)`;
  const work = mkdtempSync(join(tmpdir(), "service-client-deno-npm-"));
  let endpoint: RuntimeEndpoint["endpoint"] | undefined;
  try {
    const started = await startRuntimeEndpoint();
    endpoint = started.endpoint;
    await installPackage(work);
    writeFileSync(
      join(work, "package.json"),
      JSON.stringify({ type: "module", dependencies: { "@seed/service-client": "*" } }),
    );
    copyFileSync(join(CHECKS_DIR, "installed_entry.ts"), join(work, "installed_entry.ts"));
    const run = await capture(
      Deno.execPath(),
      [
        "run",
        "--allow-net",
        "--allow-read",
        "--allow-env",
        "installed_entry.ts",
        started.base,
        join(CHECKS_DIR, "checks.ts"),
      ],
      { NO_COLOR: "1" },
      work,
    );
    console.log(label);
    return [reportChecks(label, checkLines(run, "the checks ran, and Deno exited with 0"), runStarted)];
  } finally {
    await endpoint?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runDenoNpm();
  });
}
