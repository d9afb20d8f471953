/**
 * Measures the lazily loaded printer (`src/print.ts`) as a bundler ships it: bundled, minified ESM, gzipped
 * at level 9. Prints two numbers: the printer alone (its `./validate.ts` import left external, because the
 * client's main chunk carries that module anyway) and the printer with everything it imports. Fails when the
 * printer alone exceeds its budget, or when the bundle pulls in any part of `graphql` at run time.
 *
 * Usage: `deno run -A scripts/size_print.ts`
 *
 * @module
 */

import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";

/** The printer's share of the bundle budget, in gzipped bytes. */
const BUDGET = 610;
const entry = new URL("../src/print.ts", import.meta.url).pathname;

async function measure(shared: boolean): Promise<{ minified: number; gzipped: number; inputs: string[] }> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    plugins: shared
      ? [{
        name: "shared-modules",
        setup(build) {
          build.onResolve({ filter: /\/validate\.ts$/ }, (args) => ({ path: args.path, external: true }));
        },
      }]
      : [],
  });
  const code = result.outputFiles[0]!.contents;
  return {
    minified: code.byteLength,
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
  };
}

try {
  const alone = await measure(true);
  const whole = await measure(false);
  console.log(`src/print.ts alone:        ${alone.minified} B minified, ${alone.gzipped} B gzipped`);
  console.log(`src/print.ts with imports: ${whole.minified} B minified, ${whole.gzipped} B gzipped`);
  const runtimeGraphql = whole.inputs.filter((input) => input.includes("graphql"));
  if (runtimeGraphql.length > 0) {
    console.error(`Printer bundle imports graphql at run time: ${runtimeGraphql.join(", ")}`);
    Deno.exitCode = 1;
  }
  if (alone.gzipped > BUDGET) {
    console.error(`Printer is over budget: ${alone.gzipped} B gzipped, budget ${BUDGET} B`);
    Deno.exitCode = 1;
  }
} finally {
  await esbuild.stop();
}
