/**
 * The browser run: headless Chromium (Debian's package at /usr/bin/chromium) driven by
 * playwright-core loads a local page whose import map points `@seed/service-client` at the package's
 * browser bundle (esbuild, browser conditions with `production`, code splitting: a production build
 * as Vite or webpack makes it, close to what esm.sh serves), and runs the
 * checks of `checks/checks.ts` against the local endpoint on another origin (CORS).
 *
 * Twice: as is, and with `AbortSignal.any` deleted before any script runs (Safari before 17.4 has
 * none), where timeouts and aborts must work all the same. Then once more without a bundler: the
 * page's import map points the two names at the files of npm/ as they are published, the ones the
 * package's `exports` give a browser (no `node` condition), served as they are; nothing else is
 * mapped, so any import the package could not resolve by itself (such as a `#` import) fails the
 * run.
 *
 * Usage: `deno task test:browser` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { chromium } from "playwright-core";
import { OUT as NPM_DIR } from "../build_npm.ts";
import { bundle, type OutputFile, stopBundler } from "../npm/bundle.ts";
import { CHROMIUM, CHROMIUM_ARGS, pageChecks, serveFiles } from "./chromium.ts";
import { prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";

const PACKAGE = ["@seed/service-client", "@seed/service-client/sigv4"];

/** The page: an import map for the package (as URL imports), then the checks. */
function page(imports: Readonly<Record<string, string>>): string {
  return `<!doctype html><meta charset="utf-8"><title>service-client</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="/app/page.js"></script>`;
}

function mount(prefix: string, outputs: readonly OutputFile[], into: Map<string, string>): void {
  for (const file of outputs) into.set(`${prefix}/${file.path}`, file.text);
}

/** The conditions a browser's resolver (a CDN, an import map generator) matches in `exports`. */
const BROWSER_CONDITIONS = new Set(["browser", "import", "default"]);

/**
 * The file `exports` gives a browser for a subpath: the first condition, in the package's order,
 * that a browser matches, followed down to a path.
 *
 * @param exports package.json `exports`.
 * @param subpath Such as `.` or `./sigv4`.
 * @returns The path, such as `./web/mod.js`.
 */
export function browserExport(exports: Record<string, unknown>, subpath: string): string {
  let target = exports[subpath];
  while (target && typeof target === "object") {
    const entries = Object.entries(target as Record<string, unknown>);
    target = entries.find(([condition]) => BROWSER_CONDITIONS.has(condition))?.[1];
  }
  if (typeof target !== "string") {
    throw new Error(`package.json exports gives a browser nothing for ${subpath}`);
  }
  return target;
}

/** The published JavaScript files of npm/ (the tests left out), by path below it. */
function publishedScripts(dir = NPM_DIR): Array<[path: string, text: string]> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return full === join(NPM_DIR, "tests") ? [] : publishedScripts(full);
    if (!/\.m?js$/.test(entry.name)) return [];
    return [[relative(NPM_DIR, full), readFileSync(full, "utf8")] as [string, string]];
  });
}

/**
 * Runs the browser checks twice (with and without `AbortSignal.any`).
 *
 * @returns One result per variant.
 */
export async function runBrowser(): Promise<RunResult[]> {
  const files = new Map<string, string>([
    ["/", page({ [PACKAGE[0]!]: "/pkg/mod.js", [PACKAGE[1]!]: "/pkg/sigv4.js" })],
  ]);
  // The same page without a bundler: the published files, and an import map of the package's names.
  const { exports } = JSON.parse(readFileSync(join(NPM_DIR, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  const unbundled = Object.fromEntries(
    PACKAGE.map((name) => [
      name,
      `/npm/${browserExport(exports, "." + name.slice(PACKAGE[0]!.length)).replace(/^\.\//, "")}`,
    ]),
  );
  for (const [path, text] of publishedScripts()) files.set(`/npm/${path}`, text);
  files.set("/unbundled.html", page(unbundled));
  console.log(
    `without a bundler: ${Object.values(unbundled).join(", ")} and the files they import, as published`,
  );
  const pkg = await bundle({
    entries: { mod: PACKAGE[0]!, sigv4: PACKAGE[1]! },
    format: "esm",
    conditions: ["production"],
  });
  console.log(`package bundle (browser conditions, production): ${pkg.map((file) => file.path).join(", ")}`);
  mount("/pkg", pkg, files);
  mount(
    "/app",
    await bundle({
      entries: { page: "scripts/runtimes/checks/browser_page.ts" },
      format: "esm",
      external: PACKAGE,
    }),
    files,
  );
  await stopBundler();

  const { endpoint, base } = await startRuntimeEndpoint();
  const server = await serveFiles(files);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  const results: RunResult[] = [];
  try {
    console.log(`chromium ${browser.version()}`);
    for (const withAny of [true, false]) {
      const started = performance.now();
      const label = `chromium ${browser.version()}${withAny ? "" : " without AbortSignal.any"}`;
      const url = `${server.origin}/?endpoint=${encodeURIComponent(base)}&any=${withAny ? 1 : 0}`;
      const lines = await pageChecks(browser, url, !withAny);
      console.log(label);
      results.push(reportChecks(label, lines, started));
    }
    const started = performance.now();
    const label = `chromium ${browser.version()}, the package's files without a bundler`;
    const url = `${server.origin}/unbundled.html?endpoint=${encodeURIComponent(base)}&any=1`;
    const lines = await pageChecks(browser, url);
    console.log(label);
    results.push(reportChecks(label, lines, started));
  } finally {
    await browser.close();
    await endpoint.close();
    await server.close();
  }
  return results;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runBrowser();
  });
}
