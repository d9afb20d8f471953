/**
 * The WebKit and Firefox runs: two browsers from Debian that load the checks page from the command
 * line, headless, and get the results POSTed back (no driver):
 *
 * - WPE WebKit 2.38 (through `cog`, its launcher), the WebKit and JavaScriptCore of Safari 16.0's
 *   time: its user agent says `Version/16.0`, and it has no `AbortSignal.any` (Safari 17.4) nor
 *   import maps (Safari 16.4). Its network stack is libsoup, not Safari's.
 * - Firefox ESR (`firefox-esr`), Gecko, in a fresh profile.
 *
 * The page is an application bundle (esbuild, browser conditions with `production`, code
 * splitting, `es2022` so that the package's own syntax reaches the engine unchanged) of
 * `checks/browser_page.ts` with the package, served on 127.0.0.1 (a secure context, so
 * `crypto.subtle` is there for iam) and calling the endpoint on another origin (CORS). The page
 * POSTs its results back to `/results`, with every error that escaped on the page until then (each
 * is also POSTed at once to `/problems`, for a module that never loads): one fails the run, as a
 * failed check of its own. A browser that exits, or sends nothing, fails the run too, and one that
 * hangs is killed.
 *
 * Usage: `deno task test:webkit-firefox` (`--no-build` to use npm/ as built). Needs `cog` and
 * `firefox-esr` (`apt-get install cog firefox-esr`).
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle, stopBundler } from "../npm/bundle.ts";
import { type CheckLine, prepare, reportChecks, type RunResult, runScript } from "./common.ts";
import { startRuntimeEndpoint } from "./endpoint.ts";
import type { Endpoint } from "../../tests/_server.ts";

/** How long the page may take to POST its results. */
const RESULTS_TIMEOUT_MS = 60_000;
/** How long to wait for the results after the page reported an error (a module that failed to load sends none). */
const AFTER_PROBLEM_MS = 3_000;
/** How long a browser may take to exit after SIGTERM before SIGKILL, and then before the run goes on without it. */
const EXIT_WAIT_MS = 5_000;

/**
 * The page: a classic script that records every error that escapes (and POSTs it at once, for a
 * module that never loads), then the application bundle, which POSTs its results together with the
 * errors recorded until then.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>service-client</title>
<script>
  const problems = (globalThis.__problems = []);
  const problem = (text) => {
    problems.push(String(text));
    fetch("/problems", { method: "POST", body: String(text) });
  };
  addEventListener("error", (event) => problem("page error: " + event.message));
  addEventListener("unhandledrejection", (event) => problem("unhandled rejection: " + event.reason));
</script>
<script type="module" src="/app/page.js"></script>`;

/** What the page POSTs to `/results` (see checks/browser_page.ts). */
interface PageReport {
  readonly results: CheckLine[];
  readonly problems: string[];
}

/** What the page sent back. */
interface Received {
  readonly report: Promise<PageReport>;
  /** The errors POSTed one by one. */
  readonly problems: string[];
  /** Resolves at the first of them. */
  readonly problem: Promise<void>;
}

/** Serves the page and its bundle, and receives what the page POSTs. */
async function serve(
  files: ReadonlyMap<string, string>,
): Promise<Received & { server: Server; origin: string }> {
  const problems: string[] = [];
  let deliver: (text: string) => void = () => {};
  let flag: () => void = () => {};
  const report = new Promise<string>((resolve) => deliver = resolve).then((text) =>
    JSON.parse(text) as PageReport
  );
  const problem = new Promise<void>((resolve) => flag = resolve);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (request.method === "POST") {
      let text = "";
      request.setEncoding("utf8").on("data", (chunk: string) => text += chunk).on("end", () => {
        if (path === "/results") deliver(text);
        else {
          problems.push(text);
          flag();
        }
        response.end();
      });
      return;
    }
    const body = path === "/" ? PAGE : files.get(path);
    if (body === undefined) return void response.writeHead(404).end();
    const type = path === "/" ? "text/html" : "text/javascript";
    response.writeHead(200, { "content-type": `${type}; charset=utf-8`, "cache-control": "no-store" }).end(
      body,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    report,
    problems,
    problem,
  };
}

/** A browser that loads a URL given on its command line. */
interface LaunchedBrowser {
  /** Its package, for the error when it is missing. */
  readonly debianPackage: string;
  readonly command: string;
  /** Its label, from what `--version` printed. */
  label(version: string): string;
  /** The arguments that load `url`, with `profile` an empty directory it may use. */
  args(url: string, profile: string): string[];
  /** Whether it has `AbortSignal.any`. */
  readonly abortSignalAny: boolean;
}

const BROWSERS: readonly LaunchedBrowser[] = [
  {
    debianPackage: "cog",
    command: "cog",
    // `0.16.1 (WPE WebKit 2.38.6)`
    label: (version) =>
      `webkit ${/WebKit ([\d.]+)/.exec(version)?.[1] ?? version} (WPE, cog ${version.split(" ")[0]})`,
    args: (url) => ["--platform=headless", url],
    abortSignalAny: false,
  },
  {
    debianPackage: "firefox-esr",
    command: "firefox-esr",
    // `Mozilla Firefox 153.7.0esr`
    label: (version) => `firefox ${version.replace(/^Mozilla Firefox /, "")} (headless)`,
    args: (url, profile) => ["--headless", "--no-remote", "--profile", profile, url],
    abortSignalAny: true,
  },
];

/** What `--version` prints, or a clear error when the browser is missing. */
async function versionOf(browser: LaunchedBrowser): Promise<string> {
  try {
    const { stdout } = await new Deno.Command(browser.command, { args: ["--version"], stderr: "null" })
      .output();
    return new TextDecoder().decode(stdout).trim();
  } catch {
    throw new Error(
      `Cannot run ${browser.command}: it is not installed (\`apt-get install ${browser.debianPackage}\`)`,
    );
  }
}

/** Resolves after `ms`, or with `undefined` at once when `promise` settles first. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Ends a browser: SIGTERM to its `timeout`, which passes it on to the browser's process group and
 * sends SIGKILL there after {@link EXIT_WAIT_MS}; SIGKILL to `timeout` itself if it is still there.
 * Returns its output, unless its pipes stay open.
 */
async function stop(child: Deno.ChildProcess, output: Promise<Deno.CommandOutput>): Promise<string> {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    try {
      child.kill(signal);
    } catch {
      break; // it has exited
    }
    if (await within(child.status, 2 * EXIT_WAIT_MS)) break;
  }
  const ended = await within(output, EXIT_WAIT_MS);
  if (!ended) return "(its output pipes stayed open)";
  const decoder = new TextDecoder();
  return decoder.decode(ended.stdout) + decoder.decode(ended.stderr);
}

/** Loads the page in one browser and gathers its results. */
async function runIn(browser: LaunchedBrowser, files: ReadonlyMap<string, string>): Promise<RunResult> {
  const label = browser.label(await versionOf(browser));
  console.log(label);
  const started = performance.now();
  const profile = mkdtempSync(join(tmpdir(), "service-client-browser-"));
  let endpoint: Endpoint | undefined;
  let served: Awaited<ReturnType<typeof serve>> | undefined;
  let child: Deno.ChildProcess | undefined;
  let output: Promise<Deno.CommandOutput> | undefined;
  let stopped: Promise<string> | undefined;
  const end = () => child && output ? stopped ??= stop(child, output) : Promise.resolve("");
  const timers: ReturnType<typeof setTimeout>[] = [];
  let settled = false;
  const failAfter = (ms: number, message: string) =>
    new Promise<never>((_, reject) => {
      if (!settled) timers.push(setTimeout(() => reject(new Error(message)), ms));
    });
  let lines: CheckLine[];
  try {
    const runtime = await startRuntimeEndpoint();
    endpoint = runtime.endpoint;
    served = await serve(files);
    const url = `${served.origin}/?endpoint=${encodeURIComponent(runtime.base)}&any=${
      browser.abortSignalAny ? 1 : 0
    }&post=1`;
    // Under coreutils' timeout, in a process group of its own: a signal to timeout reaches the
    // browser's helper processes too, and it kills them all if they outlive the run's own limit.
    child = new Deno.Command("timeout", {
      args: [
        `--kill-after=${EXIT_WAIT_MS / 1000}`,
        String(RESULTS_TIMEOUT_MS / 1000 + 30),
        browser.command,
        ...browser.args(url, profile),
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    output = child.output();
    const report = await Promise.race([
      served.report,
      failAfter(RESULTS_TIMEOUT_MS, `no results within ${RESULTS_TIMEOUT_MS} ms`),
      served.problem.then(() =>
        failAfter(AFTER_PROBLEM_MS, `no results within ${AFTER_PROBLEM_MS} ms of an error`)
      ),
      child.status.then(({ code }) =>
        Promise.reject(new Error(`the browser exited (code ${code}) before posting results`))
      ),
    ]);
    // The report holds every error recorded before it was sent; one POSTed alone may also have arrived.
    const problems = [...new Set([...report.problems, ...served.problems])];
    lines = [...report.results, {
      name: "no error escaped on the page",
      ok: problems.length === 0,
      ms: 0,
      ...(problems.length ? { error: problems.join("\n") } : {}),
    }];
  } catch (err) {
    const said = await end();
    lines = [{
      name: "the page ran its checks",
      ok: false,
      ms: 0,
      error: [String(err), ...(served?.problems ?? []), said].join("\n"),
    }];
  } finally {
    settled = true;
    timers.forEach(clearTimeout);
    await end();
    await endpoint?.close();
    if (served) {
      served.server.closeAllConnections();
      await new Promise((resolve) => served!.server.close(resolve));
    }
    rmSync(profile, { recursive: true, force: true });
  }
  return reportChecks(label, lines, started);
}

/**
 * Runs the checks in WebKit, then in Firefox.
 *
 * @returns One result per browser.
 */
export async function runWebkitFirefox(): Promise<RunResult[]> {
  const app = await bundle({
    entries: { page: "scripts/runtimes/checks/browser_page.ts" },
    format: "esm",
    conditions: ["production"],
  });
  await stopBundler();
  const files = new Map(app.map((file) => [`/app/${file.path}`, file.text]));
  console.log(
    `application bundle (browser conditions, production): ${app.map((file) => file.path).join(", ")}`,
  );
  const results: RunResult[] = [];
  for (const browser of BROWSERS) results.push(await runIn(browser, files));
  return results;
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runWebkitFirefox();
  });
}
