/**
 * The edge run: the package bundled as one script with the conditions of edge bundlers
 * (`edge-light`, `worker`, `browser`) and evaluated in an `edge-runtime` VM, whose globals are the
 * Web APIs of edge functions and lack `AbortSignal.any`: the checks run on the client's own signal
 * fallback there, and one of them fails if `AbortSignal.any` ever appears. Then the real-time checks
 * of `checks/realtime_checks.ts` (the package's `./realtime` entry, in the same bundle) run through
 * the VM's global `WebSocket` against the local real-time server, and the run checks what that
 * server saw (`checks/realtime_host.ts`).
 *
 * The VM runs in a Node child (`checks/edge_vm.mjs`): edge-runtime is built on Node's Web APIs,
 * and under Deno its VM's typed arrays are refused by the host's Web Crypto as another realm's.
 *
 * Usage: `deno task test:edge` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle, stopBundler } from "../npm/bundle.ts";
import { type CheckLine, DEV_TOOLS, prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";
import { AFTER_REALTIME_CHECKS, serverLine, startAnsweringServer } from "./checks/realtime_host.ts";
import { capture } from "./node.ts";

/** What `checks/edge_vm.mjs` prints before the results' JSON. */
const RESULTS_MARKER = "edge-runtime results: ";

/**
 * Runs the checks in an edge-runtime VM.
 *
 * @returns The run's result.
 */
export async function runEdge(): Promise<RunResult[]> {
  const [script] = await bundle({
    entries: { edge: "scripts/runtimes/checks/realtime_edge_entry.ts" },
    format: "iife",
    conditions: ["edge-light", "worker"],
  });
  await stopBundler();
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "service-client-edge-"));
  const { endpoint, base } = await startRuntimeEndpoint();
  const server = await startAnsweringServer();
  try {
    writeFileSync(join(dir, "edge.js"), script!.text);
    const label = "edge-runtime";
    console.log(label);
    const vm = new URL("./checks/edge_vm.mjs", import.meta.url).pathname;
    const child = await capture("node", [vm, join(dir, "edge.js"), base, DEV_TOOLS, server.url]);
    const marker = child.output.indexOf(RESULTS_MARKER);
    let lines: CheckLine[];
    try {
      lines = JSON.parse(child.output.slice(marker + RESULTS_MARKER.length).split("\n")[0]!) as CheckLine[];
      if (marker < 0) throw new Error("no results");
    } catch {
      lines = [{
        name: "the edge VM ran its checks",
        ok: false,
        ms: 0,
        error: `exit ${child.code}: ${child.output}`,
      }];
    }
    lines.push(await serverLine(server, AFTER_REALTIME_CHECKS));
    return [reportChecks(label, lines, started)];
  } finally {
    await server.close();
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runEdge();
  });
}
