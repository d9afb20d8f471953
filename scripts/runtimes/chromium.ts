/**
 * Headless Chromium for the runs that load the package in a browser page (browser.ts, bundlers.ts):
 * Debian's package at /usr/bin/chromium, driven by playwright-core; a local static server for the
 * page and its scripts; and the checks a page runs (`checks/browser_page.ts`), read back.
 *
 * @module
 */

import type { Browser } from "playwright-core";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { CheckLine } from "./common.ts";

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";
/** Headless, in a container, without any of the browser's own network traffic. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** A static server on 127.0.0.1 (another origin than the endpoint's). */
export interface StaticServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Serves files from memory: `/` and paths ending in `.html` as HTML, every other one as JavaScript.
 *
 * @param files Path (such as `/app/page.js`) → text.
 */
export async function serveFiles(files: ReadonlyMap<string, string>): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const body = files.get(path);
    if (body === undefined) return void response.writeHead(404).end();
    const type = path === "/" || path.endsWith(".html") ? "text/html" : "text/javascript";
    response.writeHead(200, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" }).end(
      body,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Opens a page in a fresh context and waits for the checks it runs (`window.__results`); when none
 * arrive within a minute, one failed line says why, with the errors the page threw or logged.
 *
 * @param browser A launched Chromium.
 * @param url The page's URL, with the query `checks/browser_page.ts` reads.
 * @param withoutAbortSignalAny Delete `AbortSignal.any` before any script of the page runs (Safari
 * before 17.4 has none).
 * @returns The page's checks.
 */
export async function pageChecks(
  browser: Browser,
  url: string,
  withoutAbortSignalAny = false,
): Promise<CheckLine[]> {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    tab.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
    if (withoutAbortSignalAny) {
      await tab.addInitScript(() => {
        delete (AbortSignal as { any?: unknown }).any;
      });
    }
    await tab.goto(url);
    try {
      await tab.waitForFunction(() => "__results" in globalThis, undefined, { timeout: 60_000 });
      return await tab.evaluate(() => (globalThis as unknown as { __results: CheckLine[] }).__results);
    } catch (err) {
      return [{ name: "the page ran its checks", ok: false, ms: 0, error: `${err}\n${problems.join("\n")}` }];
    }
  } finally {
    await context.close();
  }
}
