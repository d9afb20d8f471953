// Builds one application with one bundler, as its users would run it: a production build with the
// bundler's defaults, given only the entry and the output folder (and, for webpack, the target). Run
// by scripts/runtimes/bundlers.ts under Node 22:
//
//   node tests/bundlers/build.mjs <vite|vite7|webpack-web|webpack-node> <entry> <outdir>
//
// Vite's entry is the app's index.html (Vite writes the built page, script tags included); webpack's
// is a script (its output is `main.js` and chunks, loaded from where `main.js` was loaded). The
// entry imports `@seed/service-client` by name, from the `node_modules` folder beside it, so each
// bundler resolves `exports`, `imports` and conditions on its own.
//
// Prints `bundler: <name> <version>` and `warnings: <JSON array>` (every warning and error the
// bundler logged, which fail the run), and exits with 1 when the build fails.

import { dirname } from "node:path";

const [bundler, entry, outDir] = process.argv.slice(2);
if (!bundler || !entry || !outDir) {
  console.error("usage: build.mjs <vite|vite7|webpack-web|webpack-node> <entry> <outdir>");
  process.exit(2);
}

/** `vite build` of an app: Vite 8 bundles with Rolldown, Vite 7 with Rollup. */
async function buildWithVite(major) {
  const { build, createLogger, version } = await import(major === 8 ? "vite" : "vite7");
  console.log(`bundler: vite ${version}`);
  const warnings = [];
  const logger = createLogger("warn");
  for (const level of ["warn", "warnOnce", "error"]) {
    const log = logger[level];
    logger[level] = (message, options) => {
      warnings.push(`${level}: ${message}`);
      log(message, options);
    };
  }
  await build({
    root: dirname(entry),
    configFile: false,
    customLogger: logger,
    build: { outDir, emptyOutDir: true },
  });
  return warnings;
}

/** webpack 5 with `mode: "production"`, for the browser (`web`) or for Node 18.17. */
async function buildWithWebpack(target) {
  const { default: webpack } = await import("webpack");
  console.log(`bundler: webpack ${webpack.version}`);
  const compiler = webpack({ mode: "production", target, entry, output: { path: outDir } });
  const stats = await new Promise((resolve, reject) =>
    compiler.run((err, result) => (err ? reject(err) : resolve(result)))
  );
  await new Promise((resolve) => compiler.close(resolve));
  const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true });
  if (errors.length) throw new Error(errors.map((error) => error.message).join("\n"));
  return warnings.map((warning) => warning.message);
}

try {
  const warnings = bundler === "vite"
    ? await buildWithVite(8)
    : bundler === "vite7"
    ? await buildWithVite(7)
    : bundler === "webpack-web"
    ? await buildWithWebpack("web")
    : bundler === "webpack-node"
    ? await buildWithWebpack("node18.17")
    : undefined;
  if (!warnings) throw new Error(`unknown bundler ${bundler}`);
  console.log(`warnings: ${JSON.stringify(warnings)}`);
} catch (err) {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
}
