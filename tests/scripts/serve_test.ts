/**
 * `deno task serve`: run as a contributor runs it (scripts/serve.ts in a child process), it listens
 * on the port `--port` names, prints its URL, and the key it prints is accepted there (a wrong one
 * is not); it prints its real-time URL, where a `RealtimeClient` gets the event of a mutation; a port
 * that is not one, or is in use, ends it at once with a message.
 *
 * Deno only (it runs the repository's scripts with Deno): not part of the npm build's tests.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { ServiceClient } from "../../mod.ts";
import { RealtimeClient } from "../../src/realtime.ts";

const SERVE = fileURLToPath(new URL("../../scripts/serve.ts", import.meta.url));
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** A port nobody listens on now (the system's pick, released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts serve.ts with `args`; collects what it prints. */
function serve(
  args: readonly string[],
): { child: ChildProcess; output: () => string; exited: Promise<number> } {
  const child = spawn(process.execPath, ["run", "-A", SERVE, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Uint8Array) => output += new TextDecoder().decode(chunk));
  child.stderr!.on("data", (chunk: Uint8Array) => output += new TextDecoder().decode(chunk));
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : 0)))
  );
  return { child, output: () => output, exited };
}

/** Waits until the output holds `pattern`, or the process ends (then fails with its output). */
async function waitFor(
  run: ReturnType<typeof serve>,
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + 60_000;
  let ended = false;
  void run.exited.then(() => ended = true);
  for (;;) {
    const match = run.output().match(pattern);
    if (match) return match;
    assert.ok(!ended, `serve.ts exited before printing ${pattern}:\n${run.output()}`);
    assert.ok(Date.now() < deadline, `serve.ts printed no ${pattern} within a minute:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("deno task serve", { skip: isDeno ? false : "runs the repository's scripts with Deno" }, () => {
  it("listens on --port, prints its URL and an API key that the endpoint accepts", async () => {
    const port = await freePort();
    const run = serve(["--port", String(port)]);
    try {
      const [, url] = await waitFor(run, /Local endpoint: (\S+)/);
      assert.equal(url, `http://127.0.0.1:${port}/graphql`);
      const [, key] = await waitFor(run, /-H 'x-api-key: ([^']+)'/);
      const ask = (apiKey: string) =>
        fetch(url!, {
          method: "POST",
          headers: { "x-api-key": apiKey, "content-type": "application/json; charset=UTF-8" },
          body: JSON.stringify({ query: "{ hello }" }),
        });
      const accepted = await ask(key!);
      assert.equal(accepted.status, 200);
      assert.deepEqual(await accepted.json(), { data: { hello: "world" } });
      const refused = await ask(`${key}-wrong`);
      assert.equal(refused.status, 401);
      await refused.body?.cancel();
    } finally {
      run.child.kill("SIGINT");
      await run.exited;
    }
  });

  it("prints its real-time URL, where a subscription gets each post a mutation adds", async () => {
    const run = serve([]);
    try {
      const [, url] = await waitFor(run, /Local endpoint: (\S+)/);
      const [, realtimeUrl] = await waitFor(run, /Subscriptions: (\S+)/);
      assert.equal(realtimeUrl, url!.replace(/^http/, "ws") + "/realtime");
      const [, key] = await waitFor(run, /-H 'x-api-key: ([^']+)'/);
      const client = new ServiceClient({ url: url!, auth: { type: "apiKey", apiKey: key! } });
      const realtime = new RealtimeClient(client);
      try {
        let event: unknown;
        const next = realtime.subscribe("subscription { onPost { title } }").next().then((e) => event = e);
        // A post added before the subscription has started reaches no one: add one until one arrives.
        for (let tries = 0; event === undefined; tries++) {
          assert.ok(tries < 100, "no event after 100 posts");
          await client.mutate('mutation { addPost(title: "Served") { id } }');
          await Promise.race([next, new Promise((resolve) => setTimeout(resolve, 50))]);
        }
        assert.deepEqual(event, { value: { onPost: { title: "Served" } }, done: false });
      } finally {
        realtime.close();
      }
    } finally {
      run.child.kill("SIGINT");
      await run.exited;
    }
  });

  it("survives a WebSocket frame that TCP cut inside its extended length (serve's process, not the test's)", {
    skip: isDeno ? false : "Deno only",
  }, async () => {
    const run = serve([]);
    try {
      const [, url] = await waitFor(run, /Local endpoint: (\S+)/);
      const [, key] = await waitFor(run, /-H 'x-api-key: ([^']+)'/);
      const { port, host } = new URL(url!);
      const tcp = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      try {
        const header = btoa(JSON.stringify({ host, "x-api-key": key }))
          .replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
        const encoder = new TextEncoder();
        await tcp.write(encoder.encode(
          "GET /graphql/realtime HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
            `Sec-WebSocket-Protocol: graphql-ws, header-${header}\r\n\r\n`,
        ));
        const buffer = new Uint8Array(4096);
        const read = async () => new TextDecoder().decode(buffer.subarray(0, await tcp.read(buffer) ?? 0));
        assert.match(await read(), /^HTTP\/1.1 101/);
        // A masked text frame of 200+ bytes (a 16-bit extended length), written as 3 bytes, then the rest.
        const text = encoder.encode(
          JSON.stringify({ type: "connection_init", payload: { pad: "x".repeat(200) } }),
        );
        const mask = [1, 2, 3, 4];
        const masked = text.map((byte, i) => byte ^ mask[i & 3]!);
        const frame = new Uint8Array([
          0x81,
          0x80 | 126,
          text.length >> 8,
          text.length & 255,
          ...mask,
          ...masked,
        ]);
        await tcp.write(frame.subarray(0, 3));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tcp.write(frame.subarray(3));
        assert.match(await read(), /connection_ack/, run.output());
      } finally {
        tcp.close();
      }
    } finally {
      run.child.kill("SIGINT");
      await run.exited;
    }
  });

  it("takes --port=N too", async () => {
    const port = await freePort();
    const run = serve([`--port=${port}`]);
    try {
      const [, url] = await waitFor(run, /Local endpoint: (\S+)/);
      assert.equal(url, `http://127.0.0.1:${port}/graphql`);
    } finally {
      run.child.kill("SIGINT");
      await run.exited;
    }
  });

  for (
    const args of [["--port"], ["--port", "http"], ["--port", "65536"], ["--port", "-1"], ["--prot", "1"]]
  ) {
    it(`exits with code 2 and the usage for ${args.join(" ")}`, async () => {
      const run = serve(args);
      assert.equal(await run.exited, 2, run.output());
      assert.match(run.output(), /Usage: deno task serve \[--port N\]/);
    });
  }

  it("exits with code 1 and says so when the port is in use", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = serve(["--port", String(port)]);
      assert.equal(await run.exited, 1, run.output());
      assert.match(run.output(), new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
