/**
 * The worker run: a module worker on workerd (through miniflare) built from the package with the
 * conditions a workers bundler uses (`workerd`, `worker`, `browser`; then again without `workerd`,
 * as older wrangler and hand-made esbuild builds resolve it), code splitting on, every
 * module listed explicitly (workerd loads only what it is given, chunks included). Its outbound
 * fetches go to the network with `local` allowed, so it reaches the loopback endpoint.
 *
 * It runs every check of `checks/checks.ts` (apiKey and iam among them) inside the worker, then the
 * real-time checks of `checks/realtime_checks.ts` (the package's `./realtime` entry, bundled with the
 * rest, through workerd's global `WebSocket`) against the local real-time server, in one request
 * and across two requests of a Durable Object, and checks what that server saw
 * (`checks/realtime_host.ts`).
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
import {
  AFTER_HELD_CHECKS,
  AFTER_REALTIME_CHECKS,
  serverLine,
  startAnsweringServer,
} from "./checks/realtime_host.ts";

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
      entries: { worker: "scripts/runtimes/checks/realtime_worker_entry.ts" },
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
    durableObjects: { REALTIME: "RealtimeHolder" },
  });
  /** The checks' lines a request answers, or one failed line named `name` when it fails. */
  const checksOf = async (query: string, name: string): Promise<CheckLine[]> => {
    try {
      const response = await worker.dispatchFetch(`http://worker.test/?${query}`);
      return await response.json() as CheckLine[];
    } catch (err) {
      return [{ name, ok: false, ms: 0, error: String(err) }];
    }
  };
  try {
    console.log(label);
    const lines = await checksOf(`endpoint=${encodeURIComponent(base)}`, "the worker ran its checks");
    lines.push(...await realtimeChecks(checksOf));
    return reportChecks(label, lines, started);
  } finally {
    await worker.dispose();
    await endpoint.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The real-time checks: one request, then two requests of the Durable Object, each against a server
 * of its own, and what each server saw.
 */
async function realtimeChecks(
  checksOf: (query: string, name: string) => Promise<CheckLine[]>,
): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const server = await startAnsweringServer();
  try {
    const url = `realtime=${encodeURIComponent(server.url)}`;
    lines.push(...await checksOf(url, "the worker ran the real-time checks"));
    lines.push(await serverLine(server, AFTER_REALTIME_CHECKS));
  } finally {
    await server.close();
  }
  const held = await startAnsweringServer();
  try {
    const url = `realtime=${encodeURIComponent(held.url)}`;
    lines.push(...await checksOf(`${url}&durable=open`, "the Durable Object ran its first request"));
    lines.push(...await checksOf(`${url}&durable=reuse`, "the Durable Object ran its second request"));
    lines.push(await serverLine(held, AFTER_HELD_CHECKS));
  } finally {
    await held.close();
  }
  return lines;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runWorker();
  });
}
