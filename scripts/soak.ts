/**
 * Soak: many requests through one client against a local endpoint, to prove that nothing
 * accumulates and nothing is left running.
 *
 * - `--requests` requests (default 100,000), `--concurrency` in flight (default 200), every one
 *   with the same long-lived caller `AbortSignal` and its own `timeoutMs`;
 * - heap after GC, before and after: growth must stay under `--max-growth-mb` (default 5);
 * - no `MaxListenersExceededWarning`: at most 10 abort listeners at once on the shared signal
 *   (Node warns past 10; checked on every runtime), none left at the end, no warning emitted;
 * - then `--burst` requests (default 1,000) at once, all answered without an error;
 * - the client's process exits by itself right after the last request: it never calls
 *   `process.exit`, and this script, as supervisor, fails the run unless that process exits within
 *   `--exit-within-ms` (default 3,000) of printing `done` (a timer or a ref'd socket left behind
 *   would keep it alive).
 *
 * Three processes: this supervisor, the endpoint (`soak_server.ts`) and the client (this file again,
 * with `--child`), so the heap measured is the client's. Each runs on the runtime that runs this.
 *
 * Usage:
 *   deno task soak                       # 100,000 requests
 *   deno task soak:ci                    # 10,000 requests
 *   deno run -A scripts/soak.ts --requests 20000 --client ./npm/esm/mod.js
 *   node scripts/soak.ts --client ./npm/esm/mod.js   # Node 22.18+ (type stripping), or a compiled copy
 *
 * `--client` (or `SOAK_CLIENT`) names the module to import `ServiceClient` from: a path (relative to
 * the working directory) or a package name. Default: this repository's `mod.ts`. Only erasable
 * TypeScript here, so Node can strip the types and run it as it is.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { extname, resolve } from "node:path";
import process from "node:process";

const API_KEY = "da2-soaksentinel0000000000";
const MB = 1024 * 1024;

interface Options {
  requests: number;
  concurrency: number;
  burst: number;
  timeoutMs: number;
  maxGrowthMb: number;
  exitWithinMs: number;
  client: string;
  url: string;
  child: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    requests: 100_000,
    concurrency: 200,
    burst: 1_000,
    timeoutMs: 30_000,
    maxGrowthMb: 5,
    exitWithinMs: 3_000,
    client: process.env.SOAK_CLIENT ?? "",
    url: "",
    child: false,
  };
  const numbers = ["requests", "concurrency", "burst", "timeoutMs", "maxGrowthMb", "exitWithinMs"] as const;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--child") {
      options.child = true;
      continue;
    }
    const key = arg.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const value = argv[++i];
    if (value === undefined) throw new Error(`Missing a value after ${arg}`);
    if ((numbers as readonly string[]).includes(key)) {
      const number = Number(value.replaceAll("_", ""));
      if (!Number.isFinite(number) || number < 0) throw new Error(`Invalid ${arg}: ${value}`);
      options[key as typeof numbers[number]] = number;
    } else if (key === "client" || key === "url") {
      options[key] = value;
    } else {
      throw new Error(`Unknown option ${arg}`);
    }
  }
  return options;
}

const runtime = globalThis as { Deno?: unknown; Bun?: { gc(force: boolean): void } };

/** The command that runs `script` on the runtime running this file. */
function command(script: string, args: readonly string[], exposeGc: boolean): [string, string[]] {
  if (runtime.Deno) {
    return [process.execPath, [
      "run",
      "-A",
      ...(exposeGc ? ["--v8-flags=--expose-gc"] : []),
      script,
      ...args,
    ]];
  }
  if (runtime.Bun) return [process.execPath, [script, ...args]];
  const kept = process.execArgv.filter((flag) => /types|loader|^--import/.test(flag));
  return [process.execPath, [...kept, ...(exposeGc ? ["--expose-gc"] : []), script, ...args]];
}

function sibling(name: string): string {
  const self = fileURLToPath(import.meta.url);
  return resolve(self, "..", `${name}${extname(self)}`);
}

// ---------------------------------------------------------------------------------------------
// Supervisor: starts the endpoint and the client, and times the client's exit.

async function supervise(options: Options): Promise<void> {
  const [serverCmd, serverArgs] = command(sibling("soak_server"), [API_KEY], false);
  const server = spawn(serverCmd, serverArgs, { stdio: ["pipe", "pipe", "inherit"] });
  const serverExited = new Promise<void>((done) => server.once("exit", () => done()));
  const url = await new Promise<string>((done, fail) => {
    const lines = createInterface({ input: server.stdout! });
    lines.once("line", (line) => {
      lines.close();
      const match = /^listening (\S+)$/.exec(line);
      if (match) done(match[1]!);
      else fail(new Error(`The soak server said: ${line}`));
    });
    server.once("exit", (code) => fail(new Error(`The soak server exited (${code}) before listening`)));
  });

  const childArgs = ["--child", "--url", url];
  for (const key of ["requests", "concurrency", "burst", "timeoutMs", "maxGrowthMb"] as const) {
    childArgs.push(`--${key}`, String(options[key]));
  }
  if (options.client) childArgs.push("--client", options.client);
  const [childCmd, childArgv] = command(sibling("soak"), childArgs, true);
  const started = Date.now();
  const child = spawn(childCmd, childArgv, { stdio: ["ignore", "pipe", "inherit"] });
  let doneAt: number | undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  let killed = false;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    console.log(line);
    if (line === "done") {
      doneAt = Date.now();
      watchdog = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, options.exitWithinMs);
    }
  });
  const code = await new Promise<number | null>((done) => child.once("exit", (exitCode) => done(exitCode)));
  const exitedAt = Date.now();
  if (watchdog !== undefined) clearTimeout(watchdog);
  server.kill("SIGTERM");
  server.stdin!.end();
  await serverExited;

  const seconds = ((exitedAt - started) / 1000).toFixed(1);
  const problems: string[] = [];
  if (doneAt === undefined) problems.push(`the client process ended (code ${code}) without printing "done"`);
  else if (killed) {
    problems.push(`the client process did not exit by itself within ${options.exitWithinMs} ms of "done"`);
  } else if (code !== 0) problems.push(`the client process reported a failure (exit code ${code})`);
  const exitNote = doneAt === undefined || killed ? "" : `, exited ${exitedAt - doneAt} ms after done`;
  if (problems.length === 0) {
    console.log(
      `soak: PASS ${options.requests} requests + burst of ${options.burst} in ${seconds} s${exitNote}`,
    );
  } else {
    console.log(`soak: FAIL ${problems.join("; ")}`);
    process.exitCode = 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Client: the requests, the heap and the listeners.

interface Client {
  request(document: string, variables?: undefined, options?: object): Promise<unknown>;
}
type ClientConstructor = new (options: object) => Client;

function clientSpecifier(given: string): string {
  if (!given) return new URL("../mod.ts", import.meta.url).href;
  return /^[./]/.test(given) ? pathToFileURL(resolve(given)).href : given;
}

async function collectGarbage(): Promise<(() => void) | undefined> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") return gc;
  if (runtime.Bun) return () => runtime.Bun!.gc(true);
  try {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose-gc");
    const exposed = vm.runInNewContext("gc") as unknown;
    if (typeof exposed === "function") return exposed as () => void;
  } catch {
    // Not available on this runtime; reported below.
  }
  return undefined;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((done) => setTimeout(done, 20));
  }
  return process.memoryUsage().heapUsed;
}

/** Wraps the signal's listener methods (on this instance only) to count its abort listeners. */
function countListeners(signal: AbortSignal): { now(): number; most(): number } {
  const live = new Set<unknown>();
  let most = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
    if (type === "abort") most = Math.max(most, live.add(listener).size);
    add(type, listener, options);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListener, options?: EventListenerOptions) => {
    if (type === "abort") live.delete(listener);
    remove(type, listener, options);
  }) as typeof signal.removeEventListener;
  return { now: () => live.size, most: () => most };
}

async function soak(options: Options): Promise<void> {
  const failures: string[] = [];
  const warnings: string[] = [];
  process.on("warning", (warning) => void warnings.push(`${warning.name}: ${warning.message}`));

  const specifier = clientSpecifier(options.client);
  const { ServiceClient } = (await import(specifier)) as { ServiceClient: ClientConstructor };
  const gc = await collectGarbage();
  if (!gc) {
    throw new Error("No way to run the GC: run with --expose-gc (Node) or --v8-flags=--expose-gc (Deno)");
  }

  const controller = new AbortController();
  const listeners = countListeners(controller.signal);
  const client = new ServiceClient({ url: options.url, auth: { type: "apiKey", apiKey: API_KEY } });
  const requestOptions = { signal: controller.signal, timeoutMs: options.timeoutMs };
  let errors = 0;
  let firstError = "";

  async function run(total: number, concurrency: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < total) {
        next++;
        try {
          await client.request("{ hello }", undefined, requestOptions);
        } catch (err) {
          errors++;
          firstError ||= `${(err as Error).name} ${(err as { code?: string }).code ?? ""}: ${
            (err as Error).message
          }`;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  }

  console.log(`client: ${specifier}`);
  await run(Math.min(2_000, options.requests), options.concurrency);
  const before = await settledHeap(gc);
  const started = Date.now();
  await run(options.requests, options.concurrency);
  const seconds = (Date.now() - started) / 1000;
  const after = await settledHeap(gc);
  const growth = (after - before) / MB;
  console.log(
    `requests: ${options.requests} at ${options.concurrency} in flight in ${seconds.toFixed(1)} s ` +
      `(${Math.round(options.requests / seconds)}/s), ${errors} failed${
        firstError ? ` (first: ${firstError})` : ""
      }`,
  );
  console.log(
    `heap after GC: before ${(before / MB).toFixed(2)} MB, after ${(after / MB).toFixed(2)} MB, ` +
      `growth ${growth.toFixed(2)} MB (limit ${options.maxGrowthMb} MB)`,
  );
  if (errors > 0) failures.push(`${errors} requests failed`);
  if (growth >= options.maxGrowthMb) failures.push(`the heap grew by ${growth.toFixed(2)} MB`);

  const burstErrors = errors;
  await run(options.burst, options.burst);
  const burstFailed = errors - burstErrors;
  console.log(
    `burst: ${options.burst} at once, ${burstFailed} failed${burstFailed ? ` (first: ${firstError})` : ""}`,
  );
  if (burstFailed > 0) failures.push(`${burstFailed} of the burst failed`);

  console.log(
    `shared signal: at most ${listeners.most()} abort listener(s) at once, ${listeners.now()} left`,
  );
  if (listeners.now() !== 0) failures.push(`${listeners.now()} listeners left on the shared signal`);
  // Checked on every runtime: only Node warns, but the client is the same everywhere.
  if (listeners.most() > 10) {
    failures.push(`${listeners.most()} listeners at once on the shared signal (Node warns past 10)`);
  }
  await new Promise((done) => setTimeout(done, 0));
  const maxListeners = warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"));
  console.log(`warnings: ${warnings.length === 0 ? "none" : warnings.join(" | ")}`);
  if (maxListeners.length > 0) failures.push("MaxListenersExceededWarning was emitted");

  console.log(failures.length === 0 ? "client: ok" : `client: FAIL ${failures.join("; ")}`);
  if (failures.length > 0) process.exitCode = 1;
  console.log("done");
}

const options = parseOptions(process.argv.slice(2));
await (options.child ? soak(options) : supervise(options));
