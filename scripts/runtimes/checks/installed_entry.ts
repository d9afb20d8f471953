/**
 * The script of the runs on the package as installed (Bun 1.0 in oldest.ts, Deno 2 in deno_npm.ts):
 * the built package, loaded by its name both ways (`import` and `require`), and the checks once for
 * each against the endpoint given as the first argument. Copied by the run into a directory whose
 * `node_modules/@seed/service-client` holds the packed package, as an install would place it (Bun
 * 1.0 does not resolve a package's self-reference). Prints the results as JSON on one line, after
 * `checks: `.
 *
 * Usage: `bun <dir>/installed_entry.ts http://127.0.0.1:PORT <path of checks.ts>` (or `deno run`,
 * from `<dir>`).
 *
 * @module
 */

import { createRequire } from "node:module";
import * as esm from "@seed/service-client";
import * as esmSigv4 from "@seed/service-client/sigv4";
import type { runChecks as RunChecks } from "./checks.ts";

const require = createRequire(import.meta.url);
const [base = "", checksPath = ""] = process.argv.slice(2);
const { runChecks } = await import(checksPath) as { runChecks: typeof RunChecks };
const loaded = {
  import: { lib: esm, sigv4: esmSigv4, path: await import.meta.resolve("@seed/service-client") },
  require: {
    lib: require("@seed/service-client") as typeof esm,
    sigv4: require("@seed/service-client/sigv4") as typeof esmSigv4,
    path: require.resolve("@seed/service-client"),
  },
};
const results = [];
for (const [how, { lib, sigv4, path }] of Object.entries(loaded)) {
  const format = /[\\/]cjs[\\/]mod\.cjs$/.test(path)
    ? "require"
    : /[\\/]esm[\\/]mod\.js$/.test(path)
    ? "import"
    : path;
  const checks = await runChecks({ lib, sigv4, base });
  results.push(
    {
      name: `${how}: loads the package's ${how} build`,
      ok: format === how,
      ms: 0,
      error: format === how ? undefined : `resolved to ${path}`,
    },
    ...checks.map((check) => ({ ...check, name: `${how}: ${check.name}` })),
  );
}
console.log(`checks: ${JSON.stringify(results)}`);
