/**
 * Links `.cache/node_modules` to the dev tools' `scripts/tools/node_modules`, so that what the
 * benchmarks write under `.cache/` (esbuild entry files, bundles that Node runs with their packages
 * left external) finds `graphql-request`, `@urql/core`, `ofetch`, `aws4fetch` and `@smithy/*` the
 * way Node and esbuild look for packages: in a `node_modules` folder above the importing file.
 *
 * Run by the `bench*` tasks before the benchmark; it installs nothing itself (Deno installs the
 * tools when it runs a script with `--config scripts/tools/deno.json`).
 *
 * @module
 */

import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const LINK = join(ROOT, ".cache", "node_modules");
const TARGET = join("..", "scripts", "tools", "node_modules");

let current: string | undefined;
try {
  current = lstatSync(LINK).isSymbolicLink() ? readlinkSync(LINK) : "(not a link)";
} catch {
  current = undefined;
}
if (current !== TARGET) {
  if (current !== undefined) rmSync(LINK, { recursive: true, force: true });
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  symlinkSync(TARGET, LINK, "dir");
}
