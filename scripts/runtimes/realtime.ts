/**
 * The real-time entry beyond `node:test`: (1) a subscriber process under Deno (the source), Node 18,
 * 20, 22, 24, 26 and Bun (the built package; `ws` where there is no global WebSocket) must exit by
 * itself after `break` (the idle socket closes a second later) and after `close()`: a timer,
 * listener or socket left behind would keep it alive past the limit. Where the socket can be cut
 * without the close handshake (`ws` on Node 18 and 20, Bun's), it must also exit soon after
 * `close()` when the server leaves the close unanswered (a frozen peer: `ws` alone waits 30 s, Bun
 * as long); Deno's and Node 22+'s standard WebSocket wait for such a peer (over a minute for Node
 * 22's) and give no way to cut it, so they are not run that way; (2) headless Chromium loads the
 * package's browser bundle (main and `./realtime` entries) in a page that subscribes through the
 * browser's WebSocket, and the server checks what the page sent (credentials in the subprotocol,
 * none in the URL, `stop`). Both against the local real-time server of the tests
 * (`tests/_realtime_server.ts`). The realtime `node:test` file itself runs in every Node and Bun
 * run of node.ts and bun.ts.
 *
 * Usage: `deno task test:realtime-runtimes [--no-build]`.
 *
 * @module
 */

import { chromium } from "playwright-core";
import { startRealtimeServer } from "../../tests/_realtime_server.ts";
import { bundle, stopBundler } from "../npm/bundle.ts";
import { CHROMIUM, CHROMIUM_ARGS, pageChecks, serveFiles } from "./chromium.ts";
import {
  type CheckLine,
  CI_TOOLS,
  NPM_DIR,
  prepare,
  reportChecks,
  ROOT,
  type RunResult,
  runScript,
} from "./common.ts";
import { NODE18_EXIT, NODES } from "./node.ts";

/** How long a subscriber may take from its start to its exit. */
const EXIT_LIMIT_MS = 15_000;
/** The same after a frozen peer: the client cuts its socket a second after `close()`. */
const FROZEN_LIMIT_MS = 10_000;
const EXIT_CHECK = `${ROOT}/scripts/runtimes/checks/realtime_exit.mjs`;

/** A runtime that runs the subscriber: its label, its command, and the modules it loads. */
interface Runtime {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly modules: readonly [string, string];
  readonly env?: Record<string, string>;
  /** Whether its WebSocket has `terminate()`: `ws`'s (Node 18 and 20) and Bun's. */
  readonly terminates?: boolean;
}

function runtimes(): Runtime[] {
  const built: [string, string] = [`file://${NPM_DIR}/esm/mod.js`, `file://${NPM_DIR}/esm/src/realtime.js`];
  return [
    {
      label: "deno",
      command: Deno.execPath(),
      args: ["run", "-A"],
      modules: [`file://${ROOT}/mod.ts`, `file://${ROOT}/src/realtime.ts`],
    },
    ...Object.entries(NODES).map(([major, command]) => ({
      label: `node ${major}`,
      command,
      args: [],
      modules: built,
      // Node 18.17.1 can spin in its teardown after the exit event (see node18_exit.cjs): not a leak.
      env: major === "18" ? { NODE_OPTIONS: `--require ${JSON.stringify(NODE18_EXIT)}` } : {},
      terminates: major === "18" || major === "20",
    })),
    { label: "bun", command: `${CI_TOOLS}/.bin/bun`, args: [], modules: built, terminates: true },
  ];
}

/** What ends the subscription, and how each line names it. */
const MODES: Readonly<Record<string, string>> = {
  break: "ends with break",
  close: "ends with close()",
  frozen: "ends with close() towards a peer that leaves it unanswered",
};

/** Runs the subscriber under each runtime, ended by `break` and by `close()` (and a frozen peer). */
export async function runRealtimeExit(): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const runtime of runtimes()) {
    const started = performance.now();
    const lines: CheckLine[] = [];
    for (const mode of ["break", "close", ...runtime.terminates ? ["frozen"] : []]) {
      const server = await startRealtimeServer();
      server.behaviour.ignoreClose = mode === "frozen";
      const limit = mode === "frozen" ? FROZEN_LIMIT_MS : EXIT_LIMIT_MS;
      const begun = performance.now();
      try {
        // The server sends one event once the subscription has started.
        const published = server.until(() => server.connections[0]?.live.size === 1, "the start")
          .then(() => server.publish({ data: { onPost: { id: runtime.label } } }));
        published.catch(() => {});
        const child = await new Deno.Command(runtime.command, {
          args: [...runtime.args, EXIT_CHECK, server.url, ...runtime.modules, mode],
          cwd: ROOT,
          env: runtime.env ?? {},
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(limit),
        }).output();
        const ms = Math.round(performance.now() - begun);
        const output = new TextDecoder().decode(child.stdout) + new TextDecoder().decode(child.stderr);
        // A frozen peer's side stays open: the client's FIN is what shows it let go.
        const connection = server.connections[0];
        const ok = child.code === 0 && output.includes(`received {"onPost":{"id":"${runtime.label}"}}`) &&
          output.includes(`ended by ${mode}`) &&
          (mode === "frozen" ? connection?.ended : connection?.closed) === true;
        lines.push({
          name: `subscribes, ${MODES[mode]}, and exits by itself`,
          ok,
          ms,
          ...(ok ? {} : {
            error: child.signal
              ? `still running after ${limit} ms: killed (${child.signal})\n${output}`
              : `exit ${child.code}\n${output}`,
          }),
        });
      } finally {
        await server.close();
      }
    }
    console.log(runtime.label);
    results.push(reportChecks(`${runtime.label} (realtime exit)`, lines, started));
  }
  return results;
}

/** Runs the page in headless Chromium, then checks what the server saw. */
export async function runRealtimeBrowser(): Promise<RunResult[]> {
  const started = performance.now();
  const entries = ["@seed/service-client", "@seed/service-client/realtime"];
  const files = new Map<string, string>([[
    "/",
    `<!doctype html><meta charset="utf-8"><title>realtime</title>
<script type="importmap">${
      JSON.stringify({ imports: { [entries[0]!]: "/pkg/mod.js", [entries[1]!]: "/pkg/realtime.js" } })
    }</script>
<script type="module" src="/app/realtime_page.js"></script>`,
  ]]);
  const pkg = await bundle({
    entries: { mod: entries[0]!, realtime: entries[1]! },
    format: "esm",
    conditions: ["production"],
  });
  for (const file of pkg) files.set(`/pkg/${file.path}`, file.text);
  const page = await bundle({
    entries: { realtime_page: "scripts/runtimes/checks/realtime_page.ts" },
    format: "esm",
    external: entries,
  });
  for (const file of page) files.set(`/app/${file.path}`, file.text);
  await stopBundler();
  const server = await startRealtimeServer();
  const site = await serveFiles(files);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  try {
    const label = `chromium ${browser.version()} (realtime)`;
    const published = server.until(() => server.connections[0]?.live.size === 1, "the start")
      .then(() => server.publish({ data: { onPost: { id: "browser" } } }));
    published.catch(() => {});
    const lines = await pageChecks(browser, `${site.origin}/?url=${encodeURIComponent(server.url)}`);
    const connection = server.connections[0];
    const sawStop = connection?.received.some((message) => message.type === "stop") === true;
    const protocols = connection?.protocols ?? [];
    const ok = protocols[0] === "graphql-ws" && /^header-/.test(protocols[1] ?? "") &&
      connection?.path === "/graphql/realtime" && connection?.header?.["x-api-key"] === "da2-browser" &&
      sawStop;
    lines.push({
      name:
        "the server saw graphql-ws and the credentials in a header- subprotocol, none in the URL, then stop",
      ok,
      ms: 0,
      ...(ok ? {} : { error: JSON.stringify({ protocols, path: connection?.path, sawStop }) }),
    });
    return [reportChecks(label, lines, started)];
  } finally {
    await browser.close();
    await site.close();
    await server.close();
  }
}

if (import.meta.main) {
  await runScript(async () => {
    prepare(Deno.args);
    return [...await runRealtimeExit(), ...await runRealtimeBrowser()];
  });
}
