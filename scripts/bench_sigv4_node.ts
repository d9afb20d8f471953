/**
 * Runs `scripts/bench_sigv4.ts` on Node: bundles it with esbuild (packages left external, so Node
 * resolves smithy and aws4fetch from node_modules) into `.cache/bench/`, then runs it with the
 * machine's `node`, passing the arguments on. Run it with `deno task bench:sigv4:node`.
 *
 * @module
 */

import * as esbuild from "esbuild";

const outfile = ".cache/bench/bench_sigv4.mjs";
await esbuild.build({
  entryPoints: ["scripts/bench_sigv4.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  logLevel: "warning",
  outfile,
});
await esbuild.stop();
const run = await new Deno.Command("node", {
  args: [outfile, ...Deno.args],
  stdout: "inherit",
  stderr: "inherit",
})
  .output();
Deno.exit(run.code);
