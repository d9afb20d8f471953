/**
 * The Deno 1 run's script: the library from its source, as JSR serves it, and the checks against
 * the endpoint given as the first argument. Prints the results as JSON on one line, after
 * `checks: `.
 *
 * Usage (under Deno 1.x, with an import map for `graphql`):
 * `deno run --allow-net --no-config --no-lock --import-map=… deno1_entry.ts http://127.0.0.1:PORT`.
 *
 * @module
 */

import * as lib from "../../../mod.ts";
import * as sigv4 from "../../../src/sigv4.ts";
import { runChecks } from "./checks.ts";

const results = await runChecks({ lib, sigv4, base: Deno.args[0] ?? "" });
console.log(`checks: ${JSON.stringify(results)}`);
