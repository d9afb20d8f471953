/**
 * End to end against the Amplify AppSync simulator (`simulator/`, installed by
 * `npm ci --prefix tests/realtime/simulator`), run by `node simulator/serve.cjs PORT` in a child
 * process on 127.0.0.1: for API key, user pool, OIDC and iam, a subscription receives the event of a
 * mutation sent through `client.mutate`; two subscriptions share one socket; `break` sends `stop` and
 * the simulator answers `complete`; the simulator stopped and started again on the same port, the
 * subscription resumes.
 *
 * The simulator reads auth only from the URL's `header` parameter, so these tests use
 * `authIn: "query"`; the subprotocol form is proven by `tests/realtime_test.ts`. It sends no
 * `start_ack` a test could wait for, so a mutation is sent every 100 ms until the event arrives.
 *
 * Not part of `deno task test`: run `deno task test:realtime-simulator`.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { ServiceClient } from "../../mod.ts";
import type { AuthOptions } from "../../src/auth.ts";
import { RealtimeClient } from "../../src/realtime.ts";

const SIMULATOR = new URL("./simulator/", import.meta.url).pathname;
const SUBSCRIPTION = "subscription OnAdd { onAddPost { id title } }";
const ADD = "mutation Add($id: ID!, $title: String) { addPost(id: $id, title: $title) { id title } }";
type Post = { onAddPost: { id: string; title: string } };

/** An unsigned JWT with these claims: the simulator decodes tokens without verifying them. */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "none", typ: "JWT" })}.${part({ exp: 4_102_444_800, ...claims })}.signature`;
}

const MODES: AuthOptions[] = [
  { type: "apiKey", apiKey: "da2-simulator-key" },
  {
    type: "userpool",
    jwtToken: () => jwt({ iss: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_pool", sub: "u" }),
  },
  { type: "oidc", jwtToken: jwt({ iss: "https://issuer.example.com", sub: "o" }) },
  {
    type: "iam",
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDSIMULATOR", secretAccessKey: "simulator-secret" },
  },
];

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts the simulator on `port` and resolves once it listens. */
function startSimulator(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", ["serve.cjs", String(port)], {
      cwd: SIMULATOR,
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout!.on("data", (chunk: Uint8Array) => {
      if (new TextDecoder().decode(chunk).includes(`ready ${port}`)) resolve(child);
    });
    child.on("exit", (code) =>
      reject(
        new Error(
          `The simulator exited with ${code} before it was ready (installed? npm ci --prefix tests/realtime/simulator)`,
        ),
      ));
  });
}

function stopSimulator(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** A WebSocket that records what it sends and receives, and counts its instances. */
class RecordingWebSocket extends WebSocket {
  static created: RecordingWebSocket[] = [];
  readonly sent: Record<string, unknown>[] = [];
  readonly received: Record<string, unknown>[] = [];
  constructor(url: string, protocols: string[]) {
    super(url, protocols);
    RecordingWebSocket.created.push(this);
    this.addEventListener("message", (event) => this.received.push(JSON.parse(event.data)));
  }
  override send(data: string): void {
    this.sent.push(JSON.parse(data));
    super.send(data);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `addPost` every 100 ms until every promise of `pending` has settled; then resolves their results. */
async function mutateUntil<T>(client: ServiceClient, pending: Promise<T>[], title: string): Promise<T[]> {
  let settled = false;
  const all = Promise.all(pending).finally(() => settled = true);
  for (let i = 0; !settled && i < 150; i++) {
    await client.mutate<unknown, { id: string; title: string }>(ADD, { id: `${title}-${i}`, title });
    await Promise.race([all.catch(() => {}), sleep(100)]);
  }
  return await all;
}

describe("RealtimeClient against the AppSync simulator", () => {
  let port: number;
  let url: string;
  let simulator: ChildProcess;

  before(async () => {
    port = await freePort();
    url = `http://127.0.0.1:${port}/graphql`;
    simulator = await startSimulator(port);
  });
  after(async () => {
    if (simulator) await stopSimulator(simulator);
  });

  for (const auth of MODES) {
    it(`${auth.type}: a subscription receives the event of a mutation sent through client.mutate`, async () => {
      const client = new ServiceClient({ url, auth });
      const realtime = new RealtimeClient(client, { authIn: "query" });
      try {
        const events = realtime.subscribe<Post>(SUBSCRIPTION);
        const [first] = await mutateUntil(client, [events.next()], auth.type);
        assert.equal(first!.done, false);
        assert.equal(first!.value.onAddPost.title, auth.type);
        await events.return();
      } finally {
        realtime.close();
      }
    });
  }

  it("two subscriptions share one socket, and break sends stop, answered by complete", async () => {
    RecordingWebSocket.created.length = 0;
    const client = new ServiceClient({ url, auth: MODES[0]! });
    const realtime = new RealtimeClient(client, { authIn: "query", webSocket: RecordingWebSocket });
    try {
      const a = realtime.subscribe<Post>(SUBSCRIPTION);
      const b = realtime.subscribe<Post>(SUBSCRIPTION);
      const [fromA, fromB] = await mutateUntil(client, [a.next(), b.next()], "both");
      assert.equal(fromA!.value!.onAddPost.title, "both");
      assert.equal(fromB!.value!.onAddPost.title, "both");
      assert.equal(RecordingWebSocket.created.length, 1);
      const socket = RecordingWebSocket.created[0]!;
      const starts = socket.sent.filter((message) => message.type === "start");
      assert.equal(starts.length, 2);
      assert.notEqual(starts[0]!.id, starts[1]!.id);
      await client.mutate(ADD, { id: "again", title: "again" });
      for await (const data of a) {
        assert.equal(data.onAddPost.title, "again");
        break;
      }
      const stopped = starts[0]!.id;
      for (
        let i = 0;
        i < 50 && !socket.received.some((m) => m.type === "complete" && m.id === stopped);
        i++
      ) {
        await sleep(100);
      }
      assert.ok(socket.sent.some((message) => message.type === "stop" && message.id === stopped));
      assert.ok(socket.received.some((message) => message.type === "complete" && message.id === stopped));
      await b.return();
    } finally {
      realtime.close();
    }
  });

  it("the simulator stopped and started again on the same port: the subscription resumes", async () => {
    const client = new ServiceClient({ url, auth: MODES[0]! });
    const states: string[] = [];
    const realtime = new RealtimeClient(client, {
      authIn: "query",
      onStateChange: (state) => states.push(state),
    });
    try {
      const events = realtime.subscribe<Post>(SUBSCRIPTION);
      const [before] = await mutateUntil(client, [events.next()], "before");
      assert.equal(before!.value!.onAddPost.title, "before");
      await stopSimulator(simulator);
      simulator = await startSimulator(port);
      const [resumed] = await mutateUntil(client, [events.next()], "after");
      assert.equal(resumed!.value!.onAddPost.title, "after");
      assert.deepEqual(states.slice(0, 4), ["connecting", "connected", "reconnecting", "connected"]);
      await events.return();
    } finally {
      realtime.close();
    }
  });
});
