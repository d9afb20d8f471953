/**
 * The script of the edge-runtime run, bundled as one IIFE and evaluated in the edge VM. It exposes
 * `__runChecks(endpoint)`, which resolves the checks' results as JSON text (plain text crosses the
 * VM boundary unchanged).
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as sigv4 from "@seed/service-client/sigv4";
import { runChecks } from "./checks.ts";

(globalThis as { __runChecks?: (base: string) => Promise<string> }).__runChecks = async (base) =>
  JSON.stringify(await runChecks({ lib, sigv4, base, abortSignalAny: false }));
