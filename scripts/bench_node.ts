/**
 * Runs `scripts/bench.ts` on Node: compiles it with esbuild (TypeScript stripped, imports kept)
 * into `.cache/bench/bench.mjs`, then runs it with `node`, passing the flags through.
 *
 * The client module is the npm build's ESM entry, `npm/esm/mod.js`, when it exists. Otherwise
 * this script bundles `mod.ts` for Node as the npm build resolves it there (`src/crypto.ts`
 * replaced by `src/crypto_node.ts`, the lazy chunks kept lazy) into `.cache/bench/client/`, and says so.
 * `--source` bundles the source even when the npm build exists; `--client=PATH` (or `BENCH_CLIENT`)
 * picks another module; `BENCH_NODE` another `node`.
 *
 * Usage: `deno task bench:node [flags of scripts/bench.ts]` (the task runs `deno task build:npm`
 * first, so that the numbers are the current source's), or `deno run -A scripts/bench_node.ts …`.
 *
 * @module
 */

import * as esbuild from "esbuild";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cache = join(root, ".cache", "bench");
const passed = Deno.args.filter((arg) => !arg.startsWith("--client=") && arg !== "--source");
const fromSource = Deno.args.includes("--source");
let client = Deno.args.find((arg) => arg.startsWith("--client="))?.slice("--client=".length) ||
  Deno.env.get("BENCH_CLIENT");

try {
  await esbuild.build({
    entryPoints: [join(root, "scripts", "bench.ts")],
    outfile: join(cache, "bench.mjs"),
    format: "esm",
    platform: "node",
    target: "node18",
    logLevel: "warning",
  });

  if (!client && !fromSource && existsSync(join(root, "npm", "esm", "mod.js"))) {
    client = join(root, "npm", "esm", "mod.js");
  }
  if (!client) {
    console.error(
      `${
        fromSource ? "--source" : "npm/esm/mod.js not found"
      }: bundling mod.ts for Node (crypto.ts → crypto_node.ts)`,
    );
    const nodeCrypto: esbuild.Plugin = {
      name: "crypto-node",
      setup(build) {
        build.onResolve({ filter: /\/crypto\.ts$/ }, () => ({ path: join(root, "src", "crypto_node.ts") }));
      },
    };
    await esbuild.build({
      entryPoints: [join(root, "mod.ts")],
      outdir: join(cache, "client"),
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node18",
      plugins: [nodeCrypto],
      logLevel: "warning",
    });
    client = join(cache, "client", "mod.mjs");
  }
} finally {
  await esbuild.stop();
}

const node = Deno.env.get("BENCH_NODE") || "node";
const status = await new Deno.Command(node, {
  args: [join(cache, "bench.mjs"), `--root=${root}`, `--client=${client}`, ...passed],
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn().status;
Deno.exit(status.code);
