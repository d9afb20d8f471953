/**
 * The script of the edge-runtime run, bundled as one IIFE and evaluated in the edge VM: the shared
 * checks of `edge_entry.ts` (`__runChecks`), and `__runRealtimeChecks(url)`, which runs the real-time
 * checks of `realtime_checks.ts` through the VM's global `WebSocket` against the real-time server at
 * `url` (its GraphQL URL) and resolves their results as JSON text.
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as realtime from "@seed/service-client/realtime";
import "./edge_entry.ts";
import { runRealtimeChecks } from "./realtime_checks.ts";

(globalThis as { __runRealtimeChecks?: (url: string) => Promise<string> }).__runRealtimeChecks = async (
  url,
) => JSON.stringify(await runRealtimeChecks({ lib, realtime, url }));
