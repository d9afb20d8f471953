/**
 * Runs the edge bundle in an `edge-runtime` VM under Node (the host edge-runtime is made for: its
 * Web APIs come from Node's, and Deno's Web Crypto refuses the VM's typed arrays as another realm's).
 *
 * Usage: `node edge_vm.mjs <bundle.js> <endpoint base URL> <folder> [<real-time GraphQL URL>]`, where
 * `edge-runtime` is installed in `<folder>/node_modules` (the dev tools' scripts/tools/); prints the
 * checks' results as JSON on one line, after `edge-runtime results: `. With a real-time URL, the
 * bundle's real-time checks (`__runRealtimeChecks`) run after the others, and their results follow
 * theirs in the same list.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";

const [bundlePath, base, tools, realtimeUrl] = process.argv.slice(2);
/** @type {typeof import("edge-runtime")} */
const { EdgeRuntime } = createRequire(join(tools, "deno.json"))("edge-runtime");
const runtime = new EdgeRuntime({ initialCode: readFileSync(bundlePath, "utf8") });
const results = JSON.parse(await runtime.evaluate(`__runChecks(${JSON.stringify(base)})`));
if (realtimeUrl) {
  results.push(...JSON.parse(await runtime.evaluate(`__runRealtimeChecks(${JSON.stringify(realtimeUrl)})`)));
}
process.stdout.write(`\nedge-runtime results: ${JSON.stringify(results)}\n`);
