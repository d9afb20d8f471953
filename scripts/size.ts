/**
 * The size budgets of the npm package, measured as an application bundler ships it: esbuild bundles
 * the built package (browser conditions, minified ESM, code splitting on) into two applications of
 * `scripts/size/`, and each output file is gzipped on its own (zlib's default level), as it travels.
 *
 * - (a) `everything.ts`, a user of everything: every chunk counts. Budget 3,072 B (aim: 2,500 B).
 * - (b) `api_key.ts`, a user of API key auth only: the entry and the chunks it imports statically,
 *   that is what loads before the first request; a chunk reached only through `import()` does not
 *   count. Budget 2,048 B.
 *
 * Usage: `deno task size` (`--no-build` to use npm/ as built, `--print` to show the bundles).
 * Exits with 1 above a budget.
 *
 * @module
 */

import { gzipSync } from "node:zlib";
import { buildNpm } from "./build_npm.ts";
import { bundle, type OutputFile, stopBundler } from "./npm/bundle.ts";

/** A measured application. */
interface Budget {
  readonly name: string;
  readonly entry: string;
  readonly budget: number;
  /** Which output files count. */
  readonly counts: "all" | "before-first-request";
}

const BUDGETS: readonly Budget[] = [
  { name: "(a) everything", entry: "scripts/size/everything.ts", budget: 3_072, counts: "all" },
  {
    name: "(b) apiKey only",
    entry: "scripts/size/api_key.ts",
    budget: 2_048,
    counts: "before-first-request",
  },
];

/** The entry and every output it reaches through static imports, transitively. */
function staticClosure(files: readonly OutputFile[]): Set<string> {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const item of byPath.get(path)?.imports ?? []) if (!item.dynamic) visit(item.path);
  };
  for (const file of files) if (file.entry) visit(file.path);
  return reached;
}

/** The gzipped size of a file's text. */
function gzipped(text: string, level?: number): number {
  return gzipSync(new TextEncoder().encode(text), level === undefined ? {} : { level }).length;
}

/**
 * Bundles and measures one application.
 *
 * @param budget The application and its budget.
 * @param print Print the bundled code too.
 * @returns The counted gzipped bytes.
 */
export async function measure(budget: Budget, print = false): Promise<number> {
  const files = (await bundle({ entries: { app: budget.entry }, format: "esm", minify: true }))
    .filter((file) => file.path.endsWith(".js"));
  const loadedFirst = staticClosure(files);
  const counted = budget.counts === "all" ? new Set(files.map((file) => file.path)) : loadedFirst;
  let total = 0;
  let totalBest = 0;
  console.log(`${budget.name} (${budget.entry})`);
  for (const file of files) {
    const size = gzipped(file.text);
    const counts = counted.has(file.path);
    if (counts) [total, totalBest] = [total + size, totalBest + gzipped(file.text, 9)];
    const role = (file.entry ? "entry" : loadedFirst.has(file.path) ? "static chunk" : "lazy chunk") +
      (counts ? "" : ", not counted");
    console.log(
      `  ${file.path.padEnd(34)} ${String(file.text.length).padStart(6)} B min ${
        String(size).padStart(6)
      } B gz  ${role}`,
    );
    if (print) console.log(file.text);
  }
  const verdict = total <= budget.budget ? "ok" : "OVER BUDGET";
  console.log(
    `  total: ${total} B gzipped (${totalBest} B at level 9), budget ${budget.budget} B: ${verdict}`,
  );
  return total;
}

if (import.meta.main) {
  try {
    if (!Deno.args.includes("--no-build")) buildNpm();
    let over = 0;
    for (const budget of BUDGETS) {
      if (await measure(budget, Deno.args.includes("--print")) > budget.budget) over++;
    }
    await stopBundler();
    console.log(`size: ${BUDGETS.length - over} passed, ${over} failed`);
    Deno.exit(over ? 1 : 0);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    Deno.exit(1);
  }
}
