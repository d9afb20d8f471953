/**
 * The browser run: headless Chromium (Debian's package at /usr/bin/chromium) driven by
 * playwright-core loads a local page whose import map points `@seed/service-client` at the package's
 * browser bundle (esbuild, browser conditions with `production`, code splitting: a production build
 * as Vite or webpack makes it, close to what esm.sh serves), and runs the
 * checks of `checks/checks.ts` against the local endpoint on another origin (CORS).
 *
 * Twice: as is, and with `AbortSignal.any` deleted before any script runs (Safari before 17.4 has
 * none), where timeouts and aborts must work all the same.
 *
 * Usage: `deno task test:browser` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { chromium } from "playwright-core";
import { bundle, type OutputFile, stopBundler } from "../npm/bundle.ts";
import { CHROMIUM, CHROMIUM_ARGS, pageChecks, serveFiles } from "./chromium.ts";
import { prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";

const PACKAGE = ["@seed/service-client", "@seed/service-client/sigv4"];

/** The page: an import map for the package (as URL imports), then the checks. */
function page(): string {
  const imports = { [PACKAGE[0]!]: "/pkg/mod.js", [PACKAGE[1]!]: "/pkg/sigv4.js" };
  return `<!doctype html><meta charset="utf-8"><title>service-client</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="/app/page.js"></script>`;
}

function mount(prefix: string, outputs: readonly OutputFile[], into: Map<string, string>): void {
  for (const file of outputs) into.set(`${prefix}/${file.path}`, file.text);
}

/**
 * Runs the browser checks twice (with and without `AbortSignal.any`).
 *
 * @returns One result per variant.
 */
export async function runBrowser(): Promise<RunResult[]> {
  const files = new Map<string, string>([["/", page()]]);
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
