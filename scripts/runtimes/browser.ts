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
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { bundle, type OutputFile, stopBundler } from "../npm/bundle.ts";
import { type CheckLine, prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";

/** Where Debian's chromium package puts the browser. */
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const PACKAGE = ["@seed/service-client", "@seed/service-client/sigv4"];

/** The page: an import map for the package (as URL imports), then the checks. */
function page(): string {
  const imports = { [PACKAGE[0]!]: "/pkg/mod.js", [PACKAGE[1]!]: "/pkg/sigv4.js" };
  return `<!doctype html><meta charset="utf-8"><title>service-client</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="/app/page.js"></script>`;
}

/** Serves the page and the two bundles on 127.0.0.1 (another origin than the endpoint's). */
async function serve(files: ReadonlyMap<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const body = path === "/" ? page() : files.get(path);
    if (body === undefined) return void response.writeHead(404).end();
    const type = path === "/" ? "text/html" : "text/javascript";
    response.writeHead(200, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" }).end(
      body,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
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
  const files = new Map<string, string>();
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
  const { server, origin } = await serve(files);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const results: RunResult[] = [];
  try {
    console.log(`chromium ${browser.version()}`);
    for (const withAny of [true, false]) {
      const started = performance.now();
      const label = `chromium ${browser.version()}${withAny ? "" : " without AbortSignal.any"}`;
      const context = await browser.newContext();
      const tab = await context.newPage();
      const problems: string[] = [];
      tab.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      tab.on("console", (message) => {
        if (message.type() === "error") problems.push(`console error: ${message.text()}`);
      });
      if (!withAny) {
        await tab.addInitScript(() => {
          delete (AbortSignal as { any?: unknown }).any;
        });
      }
      await tab.goto(`${origin}/?endpoint=${encodeURIComponent(base)}&any=${withAny ? 1 : 0}`);
      let lines: CheckLine[];
      try {
        await tab.waitForFunction(() => "__results" in globalThis, undefined, { timeout: 60_000 });
        lines = await tab.evaluate(() => (globalThis as unknown as { __results: CheckLine[] }).__results);
      } catch (err) {
        lines = [{
          name: "the page ran its checks",
          ok: false,
          ms: 0,
          error: `${err}\n${problems.join("\n")}`,
        }];
      }
      console.log(label);
      results.push(reportChecks(label, lines, started));
      await context.close();
    }
  } finally {
    await browser.close();
    await endpoint.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return results;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runBrowser();
  });
}
