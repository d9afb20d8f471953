/**
 * The entry of the webpack run for Node (bundlers.ts): the package imported by its name and bundled
 * with webpack's `target: "node18.17"`, as a server-side build (Next.js, a Lambda bundle) makes it,
 * then the checks against the endpoint given as the first argument. Prints the results as JSON on
 * one line, after `checks: `.
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as sigv4 from "@seed/service-client/sigv4";
import { runChecks } from "./checks.ts";

const results = await runChecks({ lib, sigv4, base: process.argv[2] ?? "" });
console.log(`checks: ${JSON.stringify(results)}`);
