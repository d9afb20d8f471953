/**
 * The worker run: a module worker on workerd (through miniflare) built from the package with the
 * conditions a workers bundler uses (`workerd`, `worker`, `browser`; then again without `workerd`,
 * as older wrangler and hand-made esbuild builds resolve it), code splitting on, every
 * module listed explicitly (workerd loads only what it is given, chunks included). Its outbound
 * fetches go to the network with `local` allowed, so it reaches the loopback endpoint.
 *
 * It runs every check of `checks/checks.ts` (apiKey and iam among them) inside the worker.
 *
 * Usage: `deno task test:worker` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { Miniflare } from "miniflare";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle, type OutputFile, stopBundler } from "../npm/bundle.ts";
import { type CheckLine, prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";

/** The compatibility date the worker runs under. */
const COMPATIBILITY_DATE = "2025-09-01";

/**
 * How workers bundlers resolve the package: wrangler today (`workerd`, `worker`, `browser`), and
 * older wrangler or a hand-made esbuild build (`worker`, `browser`), both as a production build.
 */
const CONDITION_SETS: ReadonlyArray<readonly [label: string, conditions: readonly string[]]> = [
  ["workerd", ["workerd", "worker", "production"]],
  ["workerd, bundled without the workerd condition", ["worker", "production"]],
];

/**
 * Runs the checks in a workerd module worker, once per bundling of {@link CONDITION_SETS}.
 *
 * @returns One result per bundling.
 */
export async function runWorker(): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const [name, conditions] of CONDITION_SETS) {
    const outputs = await bundle({
      entries: { worker: "scripts/runtimes/checks/worker_entry.ts" },
      format: "esm",
      conditions,
    });
    results.push(await runInWorkerd(`${name} (miniflare, ${outputs.length} modules)`, outputs));
  }
  await stopBundler();
  return results;
}

/** Runs the checks in a module worker made of `outputs`. */
async function runInWorkerd(label: string, outputs: readonly OutputFile[]): Promise<RunResult> {
  // Modules need a root on disk for their paths, though their contents are given inline.
  const root = mkdtempSync(join(tmpdir(), "service-client-worker-"));
  const modules = [...outputs]
    .sort((a, b) => Number(b.path === "worker.js") - Number(a.path === "worker.js"))
    .map((file) => ({ type: "ESModule" as const, path: join(root, file.path), contents: file.text }));

  const started = performance.now();
  const { endpoint, base } = await startRuntimeEndpoint();
  const worker = new Miniflare({
    modules,
    modulesRoot: root,
    compatibilityDate: COMPATIBILITY_DATE,
    outboundService: { network: { allow: ["local"] } },
  });
  try {
    console.log(label);
    let lines: CheckLine[];
    try {
      const response = await worker.dispatchFetch(`http://worker.test/?endpoint=${encodeURIComponent(base)}`);
      lines = await response.json() as CheckLine[];
    } catch (err) {
      lines = [{ name: "the worker ran its checks", ok: false, ms: 0, error: String(err) }];
    }
    return reportChecks(label, lines, started);
  } finally {
    await worker.dispose();
    await endpoint.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runWorker();
  });
}
