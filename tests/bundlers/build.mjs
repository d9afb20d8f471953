// Builds one application with one bundler, as its users would run it: a production build with the
// bundler's defaults for the target, plus only what an app must say (entry, output folder, the
// public path its chunks load from). Run by scripts/runtimes/bundlers.ts under Node 22:
//
//   node tests/bundlers/build.mjs <vite|vite7|webpack-web|webpack-node> <entry.js> <outdir> <publicPath>
//
// The entry imports `@seed/service-client` by name; the run places the package in a `node_modules`
// folder beside it, so each bundler resolves `exports`, `imports` and conditions on its own.
// Prints `bundler: <name> <version>` and `warnings: <JSON array>` (the bundler's warnings, which fail the run) and exits with 1 when
// the build fails.

import { dirname } from "node:path";

const [bundler, entry, outDir, publicPath] = process.argv.slice(2);
if (!bundler || !entry || !outDir || !publicPath) {
  console.error("usage: build.mjs <vite|vite7|webpack-web|webpack-node> <entry.js> <outdir> <publicPath>");
  process.exit(2);
}

/**
 * `vite build` of a JavaScript entry, ES modules with chunks: Vite 8 bundles with Rolldown, Vite 7
 * with Rollup (its options keep Rollup's name).
 */
async function buildWithVite(major) {
  const { build, createLogger, version } = await import(major === 8 ? "vite" : "vite7");
  console.log(`bundler: vite ${version}`);
  const warnings = [];
  const logger = createLogger("warn");
  const warn = logger.warn;
  logger.warn = (message, options) => {
    warnings.push(message);
    warn(message, options);
  };
  await build({
    root: dirname(entry),
    base: publicPath,
    configFile: false,
    customLogger: logger,
    build: {
      outDir,
      emptyOutDir: true,
      [major === 8 ? "rolldownOptions" : "rollupOptions"]: {
        input: entry,
        output: { entryFileNames: "page.js", chunkFileNames: "chunks/[name]-[hash].js" },
        onwarn(warning) {
          warnings.push(warning.message);
        },
      },
    },
  });
  return warnings;
}

/** webpack 5: `mode: "production"` for the browser (`target: "web"`) or for Node 18.17. */
async function buildWithWebpack(target) {
  const { default: webpack } = await import("webpack");
  console.log(`bundler: webpack ${webpack.version}`);
  const compiler = webpack({
    mode: "production",
    target,
    context: dirname(entry),
    entry,
    output: {
      path: outDir,
      filename: "page.js",
      chunkFilename: "chunks/[name].[contenthash].js",
      publicPath,
      clean: true,
    },
    // The checks bundle graphql's parser: past webpack's size hint, which is advice, not a fault.
    performance: { hints: false },
  });
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
