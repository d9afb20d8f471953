/**
 * The oldest runtimes the package supports (Deno 1.40 or later, Bun 1.0 or later), as old as npm
 * has them: Deno 1.46.0 (npm has no Deno from 1.40 to 1.45) and Bun 1.0.0, both from
 * .ci/node_modules (`npm install --prefix .ci`). Neither runs `node:test` files (Bun 1.0 finds no
 * test in them; Deno 1 cannot read this repository's Deno 2 lock), so each runs the checks of
 * `checks/checks.ts`, as the browser, worker and edge runs do:
 *
 * - Deno 1.46.0 on the source, as JSR serves it: `deno check` of both entries with its TypeScript
 *   (5.5), then the checks through `checks/deno1_entry.ts`. The import map gives `graphql` the
 *   `npm:` specifier that publishing to JSR writes in its place.
 * - Bun 1.0.0 on the built package, installed as a dependency would be (its `npm pack` tarball,
 *   unpacked into `node_modules`),
 *   once through `import` and once through `require` (`checks/installed_entry.ts`).
 *
 * Usage: `deno task test:oldest` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import denoJson from "../../deno.json" with { type: "json" };
import {
  type CheckLine,
  checkLines,
  CI_TOOLS,
  installPackage,
  prepare,
  reportChecks,
  type RunResult,
  runScript,
} from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";
import { capture } from "./node.ts";

const CHECKS_DIR = new URL("./checks/", import.meta.url).pathname;

/** The binaries, as .ci/package.json pins them. */
export const OLDEST = {
  deno: `${CI_TOOLS}/deno1/deno`,
  bun: `${CI_TOOLS}/bun1/bin/bun`,
} as const;

/** The first line a binary prints for `--version`, or a clear error when it does not run. */
async function versionOf(binary: string): Promise<string> {
  try {
    chmodSync(binary, 0o755); // npm does not mark the binary of a package that has no `bin` executable
  } catch {
    throw new Error(`Cannot run ${binary}: it is not installed (run \`npm install --prefix .ci --no-save\`)`);
  }
  const { code, output } = await capture(binary, ["--version"]);
  if (code !== 0) throw new Error(`Cannot run ${binary} (exit ${code}): ${output}`);
  return output.split("\n")[0]!.trim();
}

/** Deno 1.x on the source: the type check, then the checks. */
async function runDeno1(base: string, work: string): Promise<RunResult> {
  const started = performance.now();
  const version = (await versionOf(OLDEST.deno)).replace(/^deno (\S+).*/, "$1");
  const label = `deno ${version} (source)`;
  console.log(label);
  const importMap = join(work, "import_map.json");
  const { graphql, "@graphql-typed-document-node/core": typedDocumentNode } = denoJson.imports;
  const imports = { graphql, "@graphql-typed-document-node/core": typedDocumentNode };
  writeFileSync(importMap, JSON.stringify({ imports }));
  // Its own cache (the format is not Deno 2's), kept between runs; the machine's CA store as well
  // as Mozilla's, for registries reached through a proxy.
  const env = { DENO_DIR: `${CI_TOOLS}/.deno1-cache`, DENO_TLS_CA_STORE: "mozilla,system", NO_COLOR: "1" };
  const flags = ["--no-config", "--no-lock", `--import-map=${importMap}`];
  const check = await capture(OLDEST.deno, ["check", ...flags, "mod.ts", "src/sigv4.ts"], env);
  const checked: CheckLine = {
    name: `deno check of mod.ts and src/sigv4.ts (its TypeScript)`,
    ok: check.code === 0,
    ms: 0,
    ...(check.code === 0 ? {} : { error: check.output }),
  };
  const entry = join(CHECKS_DIR, "deno1_entry.ts");
  const run = await capture(OLDEST.deno, ["run", "--allow-net", ...flags, entry, base], env);
  return reportChecks(
    label,
    [checked, ...checkLines(run, "the checks ran, and Deno exited with 0")],
    started,
  );
}

/** Bun 1.0 on the built package, imported and required by its name. */
async function runBun1(base: string, work: string): Promise<RunResult> {
  const started = performance.now();
  const version = await versionOf(OLDEST.bun);
  const label = `bun ${version} (npm build: import and require)`;
  console.log(label);
  await installPackage(work);
  const entry = join(work, "installed_entry.ts");
  copyFileSync(join(CHECKS_DIR, "installed_entry.ts"), entry);
  const run = await capture(OLDEST.bun, [entry, base, join(CHECKS_DIR, "checks.ts")]);
  return reportChecks(label, checkLines(run, "the checks ran, and Bun exited with 0"), started);
}

/**
 * Runs the checks on the oldest Deno and Bun.
 *
 * @returns One result per runtime.
 */
export async function runOldest(): Promise<RunResult[]> {
  const { endpoint, base } = await startRuntimeEndpoint();
  const work = mkdtempSync(join(tmpdir(), "service-client-oldest-"));
  try {
    return [await runDeno1(base, work), await runBun1(base, work)];
  } finally {
    await endpoint.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runOldest();
  });
}
