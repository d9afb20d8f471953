/**
 * The local endpoint's real-time protocol (what `deno task serve` serves at `/graphql/realtime`), with
 * the real `RealtimeClient` over the runtime's global WebSocket, on 127.0.0.1 port 0: a subscription
 * in each auth mode gets the `onPost` event of an `addPost` sent with `client.mutate`, with the
 * fields it selected; refused auth ends it with an `UnauthorizedException`; a `start` that is no
 * subscription of the schema is refused; `break` stops it and the endpoint completes it; closing
 * the endpoint closes its sockets. The client's sockets are recorded to see what the endpoint sent.
 *
 * Deno only (with the repository's scripts): not part of the npm build's tests.
 *
 * @module
 */

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AuthOptions, ServiceClient, ServiceGraphQLError } from "../../mod.ts";
import { type ConnectionState, RealtimeClient, type RealtimeOptions } from "../../src/realtime.ts";
import { type Endpoint, startEndpoint } from "../_server.ts";
import { API_KEY, AUTH_MODES, CREDENTIALS, REGION } from "../_fixtures.ts";

/** A scenario that uses the endpoint's real-time, then closes it, in a process of its own. */
const EXIT_SCENARIO = new URL("./_realtime_exit.ts", import.meta.url);

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** A message the endpoint sent. */
// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

/** `promise`, or a failure naming `what` after 3 s (where the client would wait for ever). */
function soon<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after 3 s for ${what}`)), 3_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves once `check()` holds, polled every 10 ms; fails after 3 s. */
function eventually(check: () => boolean, what: string): Promise<void> {
  return soon(
    (async () => {
      while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    what,
  );
}

const ON_POST = "subscription { onPost { id title } }";
const ADD_POST = 'mutation Add($title: String!) { addPost(title: $title, content: "text") { id } }';

describe("the local endpoint's real-time", { skip: isDeno ? false : "Deno only" }, () => {
  let endpoint: Endpoint;
  let endpointOpen: boolean;
  const opened: RealtimeClient[] = [];
  /** What the client's sockets received, in order. */
  const received: Message[] = [];
  /** The URLs the client's sockets were opened with. */
  const urls: string[] = [];
  /** The global WebSocket, recording its URL and what it receives. */
  class RecordingWebSocket extends WebSocket {
    constructor(url: string, protocols: string[]) {
      super(url, protocols);
      urls.push(url);
      this.addEventListener("message", (event) => received.push(JSON.parse(event.data)));
    }
  }

  beforeEach(async () => {
    endpoint = await startEndpoint({ keepAliveMs: 20 });
    endpointOpen = true;
    received.length = urls.length = 0;
  });
  afterEach(async () => {
    for (const realtime of opened.splice(0)) realtime.close();
    if (endpointOpen) await soon(endpoint.close(), "the endpoint to close");
  });

  /** A client of the endpoint with `auth`, and its realtime client. */
  function clientsOf(
    auth: AuthOptions = { type: "apiKey", apiKey: API_KEY },
    options: RealtimeOptions = {},
    url = endpoint.url,
  ): { client: ServiceClient; realtime: RealtimeClient } {
    const client = new ServiceClient({ url, auth });
    const realtime = new RealtimeClient(client, { webSocket: RecordingWebSocket, ...options });
    opened.push(realtime);
    return { client, realtime };
  }

  /** Adds a post over HTTP once `live` subscriptions are live; returns its id. */
  async function addPost(client: ServiceClient, title: string, live = 1): Promise<string> {
    await endpoint.until(() => endpoint.liveSubscriptions === live, `${live} live subscription(s)`);
    const { addPost } = await client.mutate<{ addPost: { id: string } }, { title: string }>(ADD_POST, {
      title,
    });
    return addPost.id;
  }

  for (const [mode, auth] of AUTH_MODES) {
    it(`${mode}: a subscription gets the onPost event of an addPost, with the fields it selected`, async () => {
      const { client, realtime } = clientsOf(auth);
      const events = realtime.subscribe<{ onPost: { id: string; title: string } }>(ON_POST);
      const event = events.next();
      const id = await addPost(client, `Hello from ${mode}`);
      assert.deepEqual(await soon(event, "the event"), {
        value: { onPost: { id, title: `Hello from ${mode}` } },
        done: false,
      });
      assert.deepEqual(received.slice(0, 2).map((message) => message.type), ["connection_ack", "start_ack"]);
      assert.deepEqual(received[0]!.payload, { connectionTimeoutMs: 300_000 });
      assert.deepEqual(urls, [endpoint.realtimeUrl]);
    });
  }

  it("iam with the credentials in the URL's query, and a query of its own (signed for /graphql/connect?…)", async () => {
    const { client, realtime } = clientsOf(
      { type: "iam", region: REGION, credentials: CREDENTIALS },
      { authIn: "query" },
      `${endpoint.url}?stage=a%20b+c`,
    );
    const events = realtime.subscribe<{ onPost: { title: string } }>("subscription { onPost { title } }");
    const event = events.next();
    await addPost(client, "Signed");
    assert.deepEqual((await soon(event, "the event")).value, { onPost: { title: "Signed" } });
  });

  it("sends one event to each subscription of a socket, each with its own selection", async () => {
    const { client, realtime } = clientsOf();
    const titles = realtime.subscribe(ON_POST);
    const contents = realtime.subscribe("subscription Contents { onPost { content author { name } } }");
    const [title, content] = [titles.next(), contents.next()];
    const id = await addPost(client, "Two", 2);
    assert.deepEqual((await soon(title, "the first event")).value, { onPost: { id, title: "Two" } });
    assert.deepEqual((await soon(content, "the second event")).value, {
      onPost: { content: "text", author: null },
    });
    assert.equal(received.filter((message) => message.type === "start_ack").length, 2);
    assert.equal(new Set(received.filter((message) => message.type === "data").map((m) => m.id)).size, 2);
  });

  it("break sends stop, the endpoint answers complete, and the next post reaches no one", async () => {
    const { client, realtime } = clientsOf();
    const events = realtime.subscribe<{ onPost: { title: string } }>(ON_POST);
    const event = events.next();
    await addPost(client, "First");
    await soon(event, "the event");
    await events.return();
    await endpoint.until(() => endpoint.liveSubscriptions === 0, "the stop");
    await eventually(() => received.some((message) => message.type === "complete"), "the complete");
    const [start] = received.filter((message) => message.type === "start_ack");
    assert.equal(received.find((message) => message.type === "complete")!.id, start!.id);
    await addPost(client, "Second", 0);
    assert.equal(received.filter((message) => message.type === "data").length, 1);
  });

  for (
    const [what, auth] of [
      ["a wrong API key", { type: "apiKey", apiKey: "da2-wrong" }],
      ["a wrong iam secret", {
        type: "iam",
        region: REGION,
        credentials: { ...CREDENTIALS, secretAccessKey: "wrong" },
      }],
      ["a Bearer token", { type: "userpool", jwtToken: "Bearer token" }],
    ] as const
  ) {
    it(`refuses the socket for ${what}: the subscription ends with an UnauthorizedException`, async () => {
      const states: ConnectionState[] = [];
      const { realtime } = clientsOf(auth, { onStateChange: (state) => states.push(state) });
      const error = await soon(
        realtime.subscribe(ON_POST).next().then(() => assert.fail("an event"), (error) => error),
        "the refusal",
      );
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.errors[0]!.errorType, "UnauthorizedException");
      assert.deepEqual(received.map((message) => message.type), ["connection_error"]);
      await eventually(() => states.includes("closed"), "the closed state");
      assert.deepEqual(states, ["connecting", "closed"]);
    });
  }

  it("refuses a socket whose header object has no host, or is none, and keeps serving", async () => {
    const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, "");
    const credential = `${CREDENTIALS.accessKeyId}/${now.slice(0, 8)}/${REGION}/appsync/aws4_request`;
    // An iam header object of the right shape, without the host it signs.
    const noHost = {
      authorization: `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=host;x-amz-date, Signature=${
        "0".repeat(64)
      }`,
      "x-amz-date": now,
    };
    for (
      const protocol of [
        "header-" + btoa(JSON.stringify(noHost)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"),
        "header-bm90IGpzb24",
      ]
    ) {
      const socket = new WebSocket(endpoint.realtimeUrl, ["graphql-ws", protocol]);
      const messages: Message[] = [];
      socket.onopen = () => socket.send(JSON.stringify({ type: "connection_init" }));
      socket.onmessage = (event) => messages.push(JSON.parse(event.data));
      await soon(new Promise((resolve) => socket.onclose = resolve), "the close");
      assert.equal(messages.length, 1, protocol);
      assert.equal(messages[0]!.type, "connection_error");
      assert.equal(messages[0]!.payload.errors[0].errorType, "UnauthorizedException");
    }
    const { client, realtime } = clientsOf();
    const event = realtime.subscribe(ON_POST).next();
    const id = await addPost(client, "Still serving");
    assert.deepEqual((await soon(event, "the event")).value, { onPost: { id, title: "Still serving" } });
  });

  it("checks each start's own auth: a key removed after the ack refuses the next start only", async () => {
    const { client, realtime } = clientsOf();
    const first = realtime.subscribe(ON_POST);
    const event = first.next();
    await endpoint.until(() => endpoint.liveSubscriptions === 1, "the first start");
    endpoint.apiKeys.delete(API_KEY);
    const error = await soon(realtime.subscribe(ON_POST).next().catch((error) => error), "the refusal");
    assert.equal((error as ServiceGraphQLError).errors[0]!.errorType, "UnauthorizedException");
    endpoint.apiKeys.add(API_KEY);
    await addPost(client, "Still live");
    assert.deepEqual((await soon(event, "the event")).value, { onPost: { id: "3", title: "Still live" } });
  });

  for (
    const [document, variables, message] of [
      ["{ hello }", undefined, /Only a subscription can be started/],
      ["subscription { onComment { id } }", undefined, /Cannot query field "onComment"/],
      ["subscription { onPost { id ", undefined, /Syntax Error/],
      [
        "subscription On($full: Boolean!) { onPost { id content @include(if: $full) } }",
        undefined,
        /Variable "\$full" of required type "Boolean!" was not provided/,
      ],
      [
        "subscription On($full: Boolean!) { onPost { id content @include(if: $full) } }",
        { full: "yes" },
        /Boolean cannot represent a non boolean value/,
      ],
      // graphql-js's validation throws for a directive with a variable on the subscription's field.
      [
        "subscription On($on: Boolean!) { onPost @include(if: $on) { id } }",
        { on: "yes" },
        /Argument "if" of required type "Boolean!" was provided the variable "\$on"/,
      ],
    ] as const
  ) {
    it(`refuses the start of ${document}${variables ? " with " + JSON.stringify(variables) : ""}`, async () => {
      const { realtime } = clientsOf();
      const error = await soon(realtime.subscribe(document, variables).next().catch((error) => error), "it");
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.match(error.message, message);
      assert.equal(endpoint.liveSubscriptions, 0);
    });
  }

  it("runs a subscription's variables at each event", async () => {
    const { client, realtime } = clientsOf();
    const events = realtime.subscribe<{ onPost: { id: string; content?: string } }, { full: boolean }>(
      "subscription On($full: Boolean!) { onPost { id content @include(if: $full) } }",
      { full: false },
    );
    const event = events.next();
    const id = await addPost(client, "Brief");
    assert.deepEqual((await soon(event, "the event")).value, { onPost: { id } });
  });

  it("close() closes the sockets, and the client goes on to reconnect (what it leaves running: below)", async () => {
    const states: ConnectionState[] = [];
    const { client, realtime } = clientsOf(undefined, { onStateChange: (state) => states.push(state) });
    const event = realtime.subscribe(ON_POST).next();
    await addPost(client, "Before");
    await soon(event, "the event");
    endpointOpen = false;
    await soon(endpoint.close(), "the endpoint to close");
    await eventually(() => states.includes("reconnecting"), "the client to reconnect");
  });

  it("sends ka at its keep-alive interval once the socket is acknowledged", async () => {
    const { realtime } = clientsOf();
    const events = realtime.subscribe(ON_POST);
    void events.next();
    await eventually(() => received.filter((message) => message.type === "ka").length >= 3, "three ka");
    assert.equal(received[0]!.type, "connection_ack");
    await events.return();
  });

  it("leaves no timer or socket once closed: a process that used it ends by itself", async () => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", EXIT_SCENARIO.pathname],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, `the process did not end by itself within 30 s:\n${output}`);
    assert.equal(output.trim(), JSON.stringify({ onPost: { title: "Exit" } }));
  });

  it("answers an upgrade elsewhere than /graphql/realtime with 404", async () => {
    const socket = new WebSocket(endpoint.url.replace(/^http/, "ws") + "/elsewhere", ["graphql-ws"]);
    const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
    socket.onerror = () => {};
    assert.equal((await soon(closed, "the close")).wasClean, false);
  });
});
