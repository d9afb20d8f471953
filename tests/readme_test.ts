/**
 * Every TypeScript block of README.md and of each docs/*.md runs here (fenced `ts`; `ts ignore` marks
 * a block that cannot run, such as one that needs a real AWS account). The example URLs are rewritten
 * to a local server, and `@seed/service-client` (and its `/sigv4` and `/realtime` entries) point at
 * the source. A block that makes requests must reach the local endpoint. What a block prints is
 * checked too: a `console.log(…)` or `console.error(…)` line whose comment is a JSON value must have
 * printed that value first, and a block with no such `console.error` line may not print through
 * `console.error` at all (so an example that catches its own failure still fails here). A subscription block (one
 * that imports `/realtime`) talks to the local real-time server instead, which sends its live
 * subscriptions one `onPost` event (`{ id: "1", title: "Hello" }`) once they have started; the block
 * must have started one. `deno task check` type-checks the same blocks (`deno check --doc-only`), and
 * a test below checks that it covers every file whose blocks run here.
 *
 * Deno only: the blocks are TypeScript, which Node 18/20 cannot run, and the npm build's tests
 * exercise the same API through the other test files.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import util from "node:util";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { type RealtimeServer, startRealtimeServer } from "./_realtime_server.ts";

const ROOT = new URL("../", import.meta.url);
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
/**
 * README.md, then every Markdown file of docs/, as paths relative to the repository. (The npm
 * build's copy of this file, run by Node and Bun, finds no docs/ beside it: its suite is skipped.)
 */
const FILES = [
  "README.md",
  ...(existsSync(new URL("docs/", ROOT)) ? readdirSync(new URL("docs/", ROOT)) : [])
    .filter((name) => name.endsWith(".md")).sort().map((name) => `docs/${name}`),
];
const BLOCKS = FILES.flatMap((file) => {
  const text = readFileSync(new URL(file, ROOT), "utf8");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
    file,
    line: text.slice(0, match.index).split("\n").length,
    code: match[1]!,
  }));
});
const EXAMPLE_URLS = [
  "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
  "https://api.example.com/graphql",
];
const ENTRIES: Record<string, string> = {
  '"@seed/service-client/sigv4"': "src/sigv4.ts",
  '"@seed/service-client/realtime"': "src/realtime.ts",
  '"@seed/service-client"': "mod.ts",
};
/** The event the real-time server sends each subscription a block starts. */
const EVENT = { data: { onPost: { id: "1", title: "Hello" } } };

let endpoint: Endpoint;
let realtime: RealtimeServer;
let dir: string;

/** Resolves as `promise` does, or rejects when it takes longer than 10 s (a block that never ends). */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within 10 s`)), 10_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A line that prints, with the JSON value its comment says it prints: `console.log(x); // true`. */
const PRINTS = /\bconsole\.(log|error)\(.*\);?\s*\/\/ (.+)$/gm;

/** The values a block's comments say it prints, by method, where a comment is a JSON value. */
function printed(code: string): { method: string; value: unknown }[] {
  return [...code.matchAll(PRINTS)].flatMap(([, method, comment]) => {
    try {
      return [{ method: method!, value: JSON.parse(comment!) }];
    } catch {
      return []; // a comment in words: "public fields", "\"timeout\" or \"abort\""
    }
  });
}

/** Runs `run` with `console.log` and `console.error` recorded (and still printed). */
async function recording<T>(run: () => Promise<T>): Promise<{ calls: [string, unknown[]][]; result: T }> {
  const calls: [string, unknown[]][] = [];
  const saved = { log: console.log, error: console.error };
  for (const method of ["log", "error"] as const) {
    console[method] = (...args: unknown[]) => {
      calls.push([method, args]);
      saved[method](...args);
    };
  }
  try {
    return { calls, result: await run() };
  } finally {
    Object.assign(console, saved);
  }
}

/** The block's code, with its URLs pointed at `url` and the package's entries at the source. */
function localized(code: string, url: string): string {
  for (const example of EXAMPLE_URLS) code = code.replaceAll(example, url);
  for (const [specifier, path] of Object.entries(ENTRIES)) {
    code = code.replaceAll(specifier, JSON.stringify(new URL(path, ROOT).href));
  }
  return code;
}

// One suite owns the servers: Node 18 runs file-level hooks only after the suites, and waits for an
// empty event loop before a file-level after().
describe(
  "documentation code blocks",
  { skip: isDeno ? false : "the blocks are TypeScript: run on Deno" },
  () => {
    before(async () => {
      endpoint = await startEndpoint();
      endpoint.apiKeys.add("da2-example");
      realtime = await startRealtimeServer();
      dir = mkdtempSync(join(tmpdir(), "readme-"));
    });
    after(async () => {
      await endpoint.close();
      await realtime.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("deno task check type-checks the blocks of every file whose blocks run here", () => {
      const tasks = JSON.parse(readFileSync(new URL("deno.json", ROOT), "utf8")).tasks as Record<
        string,
        string
      >;
      const docOnly = /deno check --doc-only ([^&]*)/.exec(tasks.check ?? "");
      assert.ok(docOnly, "the check task runs deno check --doc-only");
      const checked = docOnly[1]!.trim().split(/\s+/);
      for (const file of new Set(BLOCKS.map((block) => block.file))) {
        const covered = checked.includes(file) ||
          checked.some((pattern) => pattern === "docs/*.md" && /^docs\/[^/]+\.md$/.test(file));
        assert.ok(
          covered,
          `${file} has TypeScript blocks that deno check --doc-only ${checked.join(" ")} misses`,
        );
      }
    });

    it("README.md has TypeScript blocks to run", () => {
      const count = BLOCKS.filter((block) => block.file === "README.md").length;
      assert.ok(count >= 10, `${count} blocks`);
    });

    BLOCKS.forEach((block, index) => {
      it(`${block.file} block at line ${block.line}`, async () => {
        const subscribes = block.code.includes('"@seed/service-client/realtime"');
        const code = localized(block.code, subscribes ? realtime.url : endpoint.url);
        const file = join(dir, `block_${index}.ts`);
        writeFileSync(file, `${code}\nexport {};\n`);
        const requests = endpoint.requests.length;
        const sockets = realtime.connections.length;
        const { calls } = await recording(async () => {
          const run = import(`file://${file}`);
          if (subscribes) {
            const started = () => realtime.connections.slice(sockets).some((socket) => socket.live.size > 0);
            // A block that fails before it subscribes must fail the test with its own error.
            await Promise.race([run, realtime.until(started, "the block starts a subscription")]);
            assert.ok(started(), "the block started a subscription");
            realtime.publish(EVENT);
            try {
              await within(run, "the block, after its event,");
            } catch (error) {
              // End what the block left open: its socket is dropped, and the reconnect refused as final.
              realtime.behaviour.refuseConnect = () => ({
                errors: [{ errorType: "UnauthorizedException", message: "The test is over" }],
              });
              realtime.dropAll();
              await run.catch(() => {});
              delete realtime.behaviour.refuseConnect;
              throw error;
            }
            await realtime.until(
              () => realtime.connections.slice(sockets).every((socket) => socket.closed),
              "the block's socket closes",
            );
          } else {
            await within(run, "the block");
          }
        });
        // `.request(`, and `.request<{ hello: string }>(` with type arguments.
        if (/\.(request|requestRaw|query|mutate|introspect)\s*[<(]/.test(block.code)) {
          assert.ok(endpoint.requests.length > requests, "the block's requests reached the endpoint");
        }
        const expected = printed(block.code);
        for (const { method, value } of expected) {
          assert.ok(
            calls.some(([called, args]) => called === method && util.isDeepStrictEqual(args[0], value)),
            `expected console.${method} to print ${
              JSON.stringify(value)
            }, as the block's comment says; it printed ${
              util.inspect(calls.map(([called, args]) => `${called}: ${util.inspect(args)}`))
            }`,
          );
        }
        if (!expected.some(({ method }) => method === "error")) {
          const errors = calls.filter(([method]) => method === "error");
          assert.deepEqual(errors, [], "the block printed no error");
        }
      });
    });
  },
);
