/**
 * `RealtimeClient` against a local server that follows the service's real-time guide
 * (`_realtime_server.ts`): auth in the subprotocol and in the query, the five auth modes, one socket
 * for several subscriptions, `stop` and the unsubscribe race, refused starts and the 100-subscription
 * limit, connection errors final or not, missed keep-alives and lost sockets (reconnect with fresh
 * auth, subscriptions started again), getters failing while reconnecting, unanswered starts, frames
 * that are malformed, a WebSocket constructor that throws, a peer that never answers the close, the
 * arguments' checks, and secrets kept out of URLs and errors.
 *
 * Time is injected only where a timeout of the client's is the subject (15 s for a `start_ack`, the
 * keep-alive timeout of at least 60 s): {@link clientTimers} runs those timers of the client sooner.
 *
 * Runs under Deno, Bun and Node 22+ with their global `WebSocket`, and under Node 18 and 20 with the
 * `ws` package.
 *
 * @module
 */

import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ServiceAbortError,
  ServiceAuthError,
  ServiceClient,
  ServiceGraphQLError,
  ServiceNetworkError,
} from "../mod.ts";
import { type ConnectionState, RealtimeClient, type WebSocketConstructor } from "../src/realtime.ts";
import type { AuthOptions } from "../src/auth.ts";
import { type RealtimeServer, startRealtimeServer } from "./_realtime_server.ts";
import { SignatureV4 } from "@smithy/signature-v4";
import { Hash } from "@smithy/hash-node";

/** The runtime's WebSocket, or `ws`'s where there is none (Node 18 and 20). */
async function webSocketClass(): Promise<WebSocketConstructor> {
  if (globalThis.WebSocket) return globalThis.WebSocket;
  const name = "ws";
  return (await import(name)).WebSocket;
}

const API_KEY = "da2-secret-api-key-value";
/** The message of an error the service sent without one. */
const MALFORMED = "Malformed message";
/** Whether the sockets of this runtime can be cut without a close handshake (`ws`'s and Bun's can). */
const CAN_TERMINATE = typeof (await webSocketClass()).prototype.terminate == "function";

/** A frame of the client's source or build on a stack: its timers are the ones {@link clientTimers} changes. */
const FROM_CLIENT = /[/\\]src[/\\]realtime(_connection)?\.[cm]?[jt]s\b/;

/** The client's timers during one test, as {@link clientTimers} replaced them. */
interface ClientTimers {
  /** The delays the client asked for, in order. */
  readonly asked: number[];
  /** Puts the runtime's timers back. */
  restore(): void;
}

/**
 * Replaces the global timers until `restore()`: a timer the client sets with a delay found in
 * `sooner` (or, for a function, any delay) runs after the delay it gives instead; every other timer
 * (the tests', the server's, the runtime's) is left alone.
 */
function clientTimers(sooner: Record<number, number> | ((ms: number) => number) = {}): ClientTimers {
  const { setTimeout: set } = globalThis;
  const asked: number[] = [];
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => {
    if (FROM_CLIENT.test(new Error().stack ?? "")) {
      asked.push(ms);
      ms = typeof sooner == "function" ? sooner(ms) : sooner[ms] ?? ms;
    }
    return set(callback, ms, ...args);
  }) as typeof setTimeout;
  return { asked, restore: () => void (globalThis.setTimeout = set) };
}

/** Settles as `promise` does, or rejects after `ms`: a failure, where the client would wait forever. */
async function within<T>(promise: Promise<T>, what: string, ms = 3_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Nothing after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms` (a test's own timer, never the client's). */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("RealtimeClient", () => {
  let server: RealtimeServer;
  let WebSocket: WebSocketConstructor;
  const opened: RealtimeClient[] = [];
  let timers: ClientTimers | undefined;

  beforeEach(async () => {
    server = await startRealtimeServer();
    WebSocket = await webSocketClass();
  });
  afterEach(async () => {
    timers?.restore();
    timers = undefined;
    for (const realtime of opened.splice(0)) realtime.close();
    await server.close();
  });

  /** A client of the server (or of `url`) with `auth`, and its realtime client. */
  function realtimeOf(
    auth: AuthOptions = { type: "apiKey", apiKey: API_KEY },
    options: Record<string, unknown> = {},
    url = server.url,
  ): RealtimeClient {
    const client = new ServiceClient({ url, auth });
    const realtime = new RealtimeClient(client, { webSocket: WebSocket, ...options });
    opened.push(realtime);
    return realtime;
  }

  const startsOn = (index: number) =>
    server.connections[index]?.received.filter((message) => message.type === "start") ?? [];

  it("subscribes with the API key in the subprotocol, receives data, and break sends stop", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe<{ onPost: { id: string } }>("subscription { onPost { id } }");
    const first = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.equal(connection.path, "/graphql/realtime");
    assert.deepEqual(connection.protocols[0], "graphql-ws");
    assert.match(connection.protocols[1]!, /^header-[A-Za-z0-9_-]+$/);
    assert.deepEqual(connection.header, {
      ...connection.header,
      host: new URL(server.url).host,
      "x-api-key": API_KEY,
    });
    assert.equal(connection.received[0]!.type, "connection_init");
    const start = startsOn(0)[0]!;
    assert.deepEqual(JSON.parse(start.payload.data), { query: "subscription { onPost { id } }" });
    assert.equal(start.payload.extensions.authorization["x-api-key"], API_KEY);
    assert.equal(start.payload.extensions.authorization.host, new URL(server.url).host);

    server.publish({ data: { onPost: { id: "1" } } });
    assert.deepEqual(await first, { value: { onPost: { id: "1" } }, done: false });
    server.publish({ data: { onPost: { id: "2" } } });
    for await (const data of events) {
      assert.deepEqual(data, { onPost: { id: "2" } });
      break;
    }
    await server.until(() => connection.received.some((m) => m.type === "stop"), "the stop");
    const stop = connection.received.find((m) => m.type === "stop")!;
    assert.equal(stop.id, start.id);
    assert.equal(connection.live.size, 0);
    assert.deepEqual(await events.next(), { value: undefined, done: true });
  });

  it("closes the idle socket about a second after the last subscription ends", async () => {
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const events = realtime.subscribe("subscription { onPost { id } }");
    const pending = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    assert.equal(realtime.state, "connected");
    await events.return!();
    assert.deepEqual(await pending, { value: undefined, done: true });
    const ended = Date.now();
    await server.until(() => server.connections[0]!.closed, "the close");
    assert.ok(Date.now() - ended >= 900, "closed before the idle delay");
    assert.deepEqual(states, ["connecting", "connected", "closed"]);
  });

  it("puts the credentials in the query with authIn: query, and only there", async () => {
    const realtime = realtimeOf(undefined, { authIn: "query" });
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.deepEqual(connection.protocols, ["graphql-ws"]);
    assert.match(connection.path, /^\/graphql\/realtime\?header=[^&]+&payload=e30=$/);
    assert.equal(connection.header!["x-api-key"], API_KEY);
  });

  it("authIn: query adds its parameters to a URL that has a query already", async () => {
    const realtime = realtimeOf(undefined, { authIn: "query" }, server.url + "?stage=prod");
    realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.match(connection.path, /^\/graphql\/realtime\?stage=prod&header=[^&]+&payload=e30=$/);
    assert.equal(connection.header!["x-api-key"], API_KEY);
  });

  it("derives the real-time URL: a standard endpoint's realtime host, else /realtime before the query", async () => {
    const cases = [
      [
        "https://abc123.appsync-api.us-east-1.amazonaws.com/graphql",
        "wss://abc123.appsync-realtime-api.us-east-1.amazonaws.com/graphql",
      ],
      [
        "https://abc123.appsync-api.cn-north-1.amazonaws.com.cn/graphql",
        "wss://abc123.appsync-realtime-api.cn-north-1.amazonaws.com.cn/graphql",
      ],
      ["https://api.example.com/graphql", "wss://api.example.com/graphql/realtime"],
      ["https://api.example.com/graphql?stage=prod", "wss://api.example.com/graphql/realtime?stage=prod"],
      ["http://127.0.0.1:8080/v1/graphql", "ws://127.0.0.1:8080/v1/graphql/realtime"],
    ];
    for (const [graphql, expected] of cases) {
      // These hosts cannot be reached from a test: a constructor that records the URL, then refuses it.
      const urls: string[] = [];
      const webSocket = function (url: string) {
        urls.push(url);
        throw new SyntaxError("refused by the test");
      } as unknown as WebSocketConstructor;
      const client = new ServiceClient({ url: graphql!, auth: { type: "apiKey", apiKey: API_KEY } });
      const realtime = new RealtimeClient(client, { webSocket });
      await assert.rejects(realtime.subscribe("subscription { a }").next(), { code: "INVALID_ARGUMENT" });
      assert.deepEqual(urls, [expected], graphql);
    }
  });

  it("never puts credentials in the URL by default, in any mode", async () => {
    const modes: AuthOptions[] = [
      { type: "apiKey", apiKey: API_KEY },
      { type: "userpool", jwtToken: "jwt-user-pool-token" },
      { type: "oidc", jwtToken: () => "jwt-oidc-token" },
      { type: "lambda", authorizationToken: () => Promise.resolve("lambda-token") },
      {
        type: "iam",
        region: "us-east-1",
        credentials: {
          accessKeyId: "AKIDEXAMPLE",
          secretAccessKey: "secret-access-key",
          sessionToken: "session",
        },
      },
    ];
    for (const [index, auth] of modes.entries()) {
      const events = realtimeOf(auth).subscribe("subscription { onPost { id } }");
      events.next();
      await server.until(() => server.connections[index]?.live.size === 1, `the start of ${auth.type}`);
      const connection = server.connections[index]!;
      assert.equal(connection.path, "/graphql/realtime", auth.type);
      const start = startsOn(index)[0]!;
      const { authorization } = start.payload.extensions;
      if (auth.type === "userpool" || auth.type === "oidc" || auth.type === "lambda") {
        const token = auth.type === "lambda"
          ? "lambda-token"
          : `jwt-${auth.type === "oidc" ? "oidc" : "user-pool"}-token`;
        assert.equal(connection.header!.authorization, token);
        assert.equal(authorization.authorization, token);
      }
      if (auth.type === "iam") {
        for (const header of [connection.header!, authorization]) {
          assert.match(
            header.authorization,
            /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/appsync\/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
          );
          assert.equal(header["x-amz-security-token"], "session");
          assert.equal(header.host, new URL(server.url).host);
        }
        // The connection is signed for POST /graphql/connect with body {}, each start for its own data.
        assert.notEqual(connection.header!.authorization, authorization.authorization);
      }
      await events.return!();
    }
  });

  for (const query of ["", "?stage=prod"]) {
    it(`iam: signs the connection as POST /graphql/connect${query} with body {}, and each start for its data`, async () => {
      const credentials = {
        accessKeyId: "AKIDEXAMPLE",
        secretAccessKey: "secret-access-key",
        sessionToken: "session",
      };
      const realtime = realtimeOf({ type: "iam", region: "eu-west-1", credentials }, {}, server.url + query);
      const events = realtime.subscribe("subscription On($id: ID) { onPost(id: $id) { id } }", { id: "7" });
      events.next();
      await server.until(() => server.connections[0]?.live.size === 1, "the start");
      assert.equal(server.connections[0]!.path, "/graphql/realtime" + query);
      const graphql = new URL(server.url);
      /** The Authorization header smithy computes for a POST of `body` to `path`, at the header's date. */
      const smithy = async (path: string, body: string, sent: Record<string, string>) => {
        const signer = new SignatureV4({
          service: "appsync",
          region: "eu-west-1",
          credentials,
          sha256: Hash.bind(null, "sha256"),
          applyChecksum: false,
        });
        const date = sent["x-amz-date"]!.replace(
          /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
          "$1-$2-$3T$4:$5:$6Z",
        );
        const signed = await signer.sign({
          method: "POST",
          protocol: graphql.protocol,
          hostname: graphql.hostname,
          port: Number(graphql.port),
          path,
          query: query ? { stage: "prod" } : {},
          headers: {
            accept: sent.accept!,
            "content-encoding": sent["content-encoding"]!,
            "content-type": sent["content-type"]!,
            host: graphql.host,
          },
          body,
        }, { signingDate: new Date(date) });
        return signed.headers.authorization;
      };
      const connect = server.connections[0]!.header!;
      assert.equal(connect.authorization, await smithy("/graphql/connect", "{}", connect));
      const start = startsOn(0)[0]!;
      const authorization = start.payload.extensions.authorization;
      assert.equal(authorization.authorization, await smithy("/graphql", start.payload.data, authorization));
    });
  }

  it("multiplexes two subscriptions on one socket, each with its own start and id", async () => {
    const realtime = realtimeOf();
    const a = realtime.subscribe<{ n: number }, { x: number }>("subscription A($x: Int) { a(x: $x) }", {
      x: 1,
    });
    const b = realtime.subscribe("subscription B { b }");
    const [nextA, nextB] = [a.next(), b.next()];
    await server.until(() => server.connections[0]?.live.size === 2, "two starts");
    assert.equal(server.connections.length, 1);
    const [startA, startB] = startsOn(0);
    assert.notEqual(startA!.id, startB!.id);
    assert.deepEqual(JSON.parse(startA!.payload.data).variables, { x: 1 });
    server.publish({ data: { n: 7 } });
    assert.deepEqual((await nextA).value, { n: 7 });
    assert.deepEqual((await nextB).value, { n: 7 });
    await a.return!();
    await server.until(() => server.connections[0]!.live.size === 1, "a's stop");
    assert.ok(server.connections[0]!.live.has(startB!.id));
  });

  it("sends stop when the start_ack of an ended subscription arrives, never losing it", async () => {
    server.behaviour.holdStartAcks = true;
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const pending = events.next();
    await server.until(() => startsOn(0).length === 1, "the start");
    await events.return!();
    assert.deepEqual(await pending, { value: undefined, done: true });
    // Another start, sent after return(): once it arrives, any stop sent at return() would have too.
    realtime.subscribe("subscription { other }").next();
    await server.until(() => startsOn(0).length === 2, "the other start");
    assert.equal(server.connections[0]!.received.some((m) => m.type === "stop"), false);
    server.ackHeld();
    await server.until(() => server.connections[0]!.received.some((m) => m.type === "stop"), "the late stop");
    const [first, other] = startsOn(0);
    assert.equal(server.connections[0]!.received.find((m) => m.type === "stop")!.id, first!.id);
    assert.deepEqual([...server.connections[0]!.live.keys()], [other!.id]);
  });

  it("never authorizes or starts a subscription ended before its document was ready", async () => {
    let calls = 0;
    const realtime = realtimeOf({ type: "userpool", jwtToken: () => `jwt-${++calls}` });
    realtime.subscribe("subscription { first }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the first start");
    assert.equal(calls, 2); // the socket's, the first start's
    // Ended in the same tick, before its document is prepared (a microtask later), on a connected socket.
    const early = realtime.subscribe("subscription { early }");
    await early.return!();
    const later = realtime.subscribe("subscription { later }");
    later.next();
    await server.until(() => server.connections[0]!.live.size === 2, "the later start");
    assert.equal(calls, 3, "a getter was called for the ended subscription");
    assert.deepEqual(startsOn(0).map((start) => JSON.parse(start.payload.data).query), [
      "subscription { first }",
      "subscription { later }",
    ]);
  });

  it("never sends the start of a subscription ended before its socket was ready", async () => {
    const realtime = realtimeOf();
    const early = realtime.subscribe("subscription { early }");
    await early.return!();
    const later = realtime.subscribe("subscription { later }");
    later.next();
    await server.until(() => server.connections.at(-1)?.live.size === 1, "the later start");
    const starts = server.connections.flatMap((connection) =>
      connection.received.filter((m) => m.type === "start")
    );
    assert.deepEqual(starts.map((start) => JSON.parse(start.payload.data).query), ["subscription { later }"]);
  });

  it("throws a GraphQL error for a refused start, and the other subscriptions go on", async () => {
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException", message: "Not authorized" }] }
        : undefined;
    const realtime = realtimeOf();
    const refused = realtime.subscribe("subscription { secret }");
    const fine = realtime.subscribe("subscription { onPost { id } }");
    const next = fine.next();
    await assert.rejects(refused.next(), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError);
      assert.equal(error.errors[0]!.errorType, "UnauthorizedException");
      return true;
    });
    await server.until(() => server.connections[0]?.live.size === 1, "the other start");
    server.publish({ data: { ok: true } });
    assert.deepEqual((await next).value, { ok: true });
    assert.equal(server.connections.length, 1);
  });

  it("gives the 101st subscription on a socket a typed error, and only that one", async () => {
    const realtime = realtimeOf();
    const all = Array.from({ length: 101 }, () => realtime.subscribe("subscription { onPost { id } }"));
    const results = all.map((events) => events.next().then((value) => ({ value }), (error) => ({ error })));
    await server.until(() => startsOn(0).length === 101, "101 starts");
    server.publish({ data: { n: 1 } });
    const settled = await Promise.all(results);
    const failed = settled.filter((result) => "error" in result);
    assert.equal(failed.length, 1);
    const { error } = failed[0] as { error: ServiceGraphQLError };
    assert.ok(error instanceof ServiceGraphQLError);
    assert.equal(error.errors[0]!.errorType, "MaxSubscriptionsReachedError");
    assert.equal(settled.filter((result) => "value" in result).length, 100);
  });

  it("throws an event's GraphQL errors with its data, and stops the subscription", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id secret } }");
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({
      data: { onPost: { id: "1", secret: null } },
      errors: [{ message: "Denied", path: ["secret"] }],
    });
    await assert.rejects(next, (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError);
      assert.deepEqual(error.data, { onPost: { id: "1", secret: null } });
      return true;
    });
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
    assert.deepEqual(await events.next(), { value: undefined, done: true });
  });

  it("ends a subscription with its signal (a ServiceAbortError), sending stop", async () => {
    const controller = new AbortController();
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }", undefined, {
      signal: controller.signal,
    });
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    controller.abort(new Error("left the page"));
    await assert.rejects(next, { code: "ABORTED", reason: "abort" });
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("ends every subscription with a final connection_error, without reconnecting or leaking the key", async () => {
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "UnauthorizedException", errorCode: 401, message: "You are not authorized" }],
    });
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, {
      authIn: "query",
      onStateChange: (state: ConnectionState) => states.push(state),
    });
    const [a, b] = [realtime.subscribe("subscription { a }"), realtime.subscribe("subscription { b }")];
    for (const events of [a, b]) {
      await assert.rejects(events.next(), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError);
        assert.equal(error.errors[0]!.errorType, "UnauthorizedException");
        const shown = [error.message, error.stack, JSON.stringify(error), String(error.cause)].join(" ");
        assert.equal(shown.includes(API_KEY), false);
        assert.equal(shown.includes(btoa(API_KEY).slice(0, 12)), false);
        return true;
      });
    }
    assert.equal(realtime.state, "closed");
    assert.deepEqual(states, ["connecting", "closed"]);
    assert.equal(server.connections.length, 1);
  });

  it("reconnects after a connection_error that is not final, and starts the subscription", async () => {
    let refusals = 1;
    server.behaviour.refuseConnect = () =>
      refusals-- > 0
        ? { errors: [{ errorType: "LimitExceededError", errorCode: 429, message: "Slow down" }] }
        : undefined;
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a second socket");
    server.publish({ data: { n: 1 } });
    assert.deepEqual((await next).value, { n: 1 });
  });

  it("reconnects with fresh auth when keep-alives stop, and starts every subscription again", async () => {
    server.behaviour.ackPayload = { connectionTimeout: 60_000 }; // the simulator's spelling
    timers = clientTimers({ 60_000: 200 });
    let token = 0;
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(
      { type: "lambda", authorizationToken: () => `token-${++token}` },
      { onStateChange: (state: ConnectionState) => states.push(state) },
    );
    const [a, b] = [realtime.subscribe("subscription { a }"), realtime.subscribe("subscription { b }")];
    const [nextA, nextB] = [a.next(), b.next()];
    await server.until(() => server.connections[1]?.live.size === 2, "two starts on a second socket");
    assert.ok(server.connections[0]!.closed, "the silent socket was not closed");
    assert.equal(server.connections[0]!.header!.authorization, "token-1");
    const second = server.connections[1]!;
    const secondTokens = [
      second.header!.authorization,
      ...startsOn(1).map((s) => s.payload.extensions.authorization.authorization),
    ];
    assert.equal(new Set([...secondTokens, server.connections[0]!.header!.authorization]).size, 4);
    server.publish({ data: { n: 2 } });
    assert.deepEqual([(await nextA).value, (await nextB).value], [{ n: 2 }, { n: 2 }]);
    assert.deepEqual(states.slice(0, 4), ["connecting", "connected", "reconnecting", "connected"]);
  });

  it("keeps a socket whose keep-alives arrive in time", async () => {
    server.behaviour.ackPayload = { connectionTimeoutMs: 60_000 };
    server.behaviour.keepAliveMs = 40;
    timers = clientTimers({ 60_000: 400 });
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    // Fifteen keep-alives, each a tenth of the timeout: one and a half times the timeout.
    await server.until(() => connection.kaSent >= 15, "fifteen keep-alives");
    assert.equal(server.connections.length, 1);
    assert.equal(connection.closed, false);
  });

  it("keeps a socket whose ack asks for a timeout longer than a timer can hold", async () => {
    server.behaviour.ackPayload = { connectionTimeoutMs: 1e12 };
    server.behaviour.keepAliveMs = 20;
    const realtime = realtimeOf();
    realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    await server.until(() => server.connections[0]!.kaSent >= 5, "five keep-alives");
    assert.equal(server.connections.length, 1);
    assert.equal(realtime.state, "connected");
  });

  it("resumes after the socket is lost, and close() ends every iterator and the socket", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.dropAll();
    await server.until(() => server.connections[1]?.live.size === 1, "the start again");
    const pending = events.next();
    realtime.close();
    assert.deepEqual(await pending, { value: undefined, done: true });
    assert.equal(realtime.state, "closed");
    await server.until(() => server.connections[1]!.closed, "the close");
  });

  it("listen(): calls back with each event and the error that ends it, and its return value sends stop", async () => {
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException", message: "Not authorized" }] }
        : undefined;
    const realtime = realtimeOf();
    const received: unknown[] = [];
    const errors: unknown[] = [];
    let twoEvents: () => void;
    const both = new Promise<void>((resolve) => twoEvents = resolve);
    const stop = realtime.listen<{ n: number }>("subscription { n }", undefined, (data) => {
      if (received.push(data) === 2) twoEvents();
    }, (error) => errors.push(error));
    const refused = new Promise((resolve) =>
      realtime.listen("subscription { secret }", undefined, () => {}, resolve)
    );
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    server.publish({ data: { n: 2 } });
    await both;
    assert.deepEqual(received, [{ n: 1 }, { n: 2 }]);
    assert.ok(await refused instanceof ServiceGraphQLError);
    stop();
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
    assert.deepEqual(errors, []);
  });

  it("listen(): an error thrown by onData goes to onError and ends the subscription", async () => {
    const realtime = realtimeOf();
    const thrown = new Error("a bug in the callback");
    const caught = new Promise((resolve) =>
      realtime.listen("subscription { n }", undefined, () => {
        throw thrown;
      }, resolve)
    );
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    assert.equal(await caught, thrown);
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("refuses unknown options and bad arguments with INVALID_ARGUMENT", async () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    assert.throws(
      () => new RealtimeClient(client, { webSocket: WebSocket, authin: "query" } as never),
      { code: "INVALID_ARGUMENT", message: /`authin`/ },
    );
    assert.throws(() => new RealtimeClient(client, { webSocket: WebSocket, authIn: "url" as never }), {
      code: "INVALID_ARGUMENT",
    });
    assert.throws(() => new RealtimeClient(client, { webSocket: WebSocket, url: "https://x/graphql" }), {
      code: "INVALID_ARGUMENT",
    });
    assert.throws(() => new RealtimeClient({} as never), { code: "INVALID_ARGUMENT" });
    const realtime = realtimeOf();
    await assert.rejects(realtime.subscribe("subscription { a }", undefined, { sginal: 1 } as never).next(), {
      code: "INVALID_ARGUMENT",
      message: /`sginal`/,
    });
    await assert.rejects(realtime.subscribe("subscription { a }", [1] as never).next(), {
      code: "INVALID_ARGUMENT",
    });
    await assert.rejects(realtime.subscribe("  ").next(), { code: "INVALID_ARGUMENT" });
    assert.equal(server.connections.length, 0);
  });

  it("ignores frames that are not objects, and ends a subscription with an event that is not one", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const first = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    for (const text of ["null", "42", '"ka"', "[]", "not JSON", '{"type":"data","id":null}']) {
      connection.sendText(text);
    }
    server.publish({ data: { n: 1 } });
    assert.deepEqual((await first).value, { n: 1 });
    connection.send({ type: "data", id: startsOn(0)[0]!.id, payload: null });
    await assert.rejects(events.next(), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError);
      assert.deepEqual(error.errors, [{ message: MALFORMED }]);
      return true;
    });
    assert.equal(realtime.state, "connected");
  });

  it("gives errors without a message a typed error: a connection_error's, a start's, an event's", async () => {
    /** Checks a GraphQL error built from an error with `errorType` but no message. */
    const typed = (errorType: string) => (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.errors[0]!.errorType, errorType);
      assert.equal(typeof error.errors[0]!.message, "string");
      assert.equal(error.message, `${errorType}: ${MALFORMED}`);
      return true;
    };
    // A final connection_error as the service words it (errorType and errorCode): no reconnect.
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "UnauthorizedException", errorCode: 401 }],
    });
    const refused = realtimeOf();
    const [a, b] = [refused.subscribe("subscription { a }"), refused.subscribe("subscription { b }")];
    await assert.rejects(a.next(), typed("UnauthorizedException"));
    await assert.rejects(b.next(), typed("UnauthorizedException"));
    assert.equal(server.connections.length, 1);
    assert.equal(refused.state, "closed");

    delete server.behaviour.refuseConnect;
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException" }] }
        : undefined;
    const realtime = realtimeOf();
    const secret = realtime.subscribe("subscription { secret }");
    const fine = realtime.subscribe("subscription { onPost { id } }");
    const next = fine.next();
    await assert.rejects(secret.next(), typed("UnauthorizedException"));
    await server.until(() => server.connections[1]?.live.size === 1, "the other start");
    server.publish({ data: null, errors: [{ errorType: "ResolverError", errorInfo: null }] });
    await assert.rejects(next, typed("ResolverError"));
  });

  it("ends the subscriptions with INVALID_ARGUMENT when the WebSocket constructor throws, once", async () => {
    let calls = 0;
    class Refusing {
      constructor(url: string) {
        calls++;
        // As a runtime words it, the URL quoted: credentials and all with authIn "query".
        throw new SyntaxError(`The URL '${url}' is refused`);
      }
    }
    const realtime = realtimeOf(undefined, { webSocket: Refusing, authIn: "query" });
    const [a, b] = [realtime.subscribe("subscription { a }"), realtime.subscribe("subscription { b }")];
    for (const events of [a, b]) {
      await assert.rejects(within(events.next(), "an error from the iterator"), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.equal((error as { code?: string }).code, "INVALID_ARGUMENT");
        assert.match(error.message, /WebSocket constructor threw a SyntaxError/);
        const shown = [error.message, error.stack, String(error.cause)].join(" ");
        assert.equal(shown.includes(btoa(API_KEY).slice(0, 12)), false);
        return true;
      });
    }
    assert.equal(calls, 1);
    assert.equal(realtime.state, "closed");
  });

  it("checks the real-time URL, given or derived, when constructed", () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    const refused = (error: unknown) => {
      assert.equal((error as { code?: string }).code, "INVALID_ARGUMENT");
      assert.match((error as Error).message, /^Invalid url: expected a ws: or wss: URL without a fragment/);
      assert.equal((error as Error).message.includes("da2-in-url"), false);
      return true;
    };
    for (
      const url of [
        "ws://127.0.0.1/graphql/realtime#main",
        "wss://example.com/graphql/realtime?key=da2-in-url#",
        "ws://127.0.0.1:99999/graphql/realtime",
        "wss://",
        "https://example.com/graphql/realtime",
        "/graphql/realtime",
      ]
    ) {
      assert.throws(() => new RealtimeClient(client, { webSocket: WebSocket, url }), refused, url);
    }
    // The client's URL with a fragment (fetch drops it): the derived one would have it in its path.
    const withFragment = new ServiceClient({
      url: server.url + "#main",
      auth: { type: "apiKey", apiKey: API_KEY },
    });
    assert.throws(() => new RealtimeClient(withFragment, { webSocket: WebSocket }), refused);
    assert.equal(server.connections.length, 0);
  });

  describe("a token getter that fails while reconnecting is retried, not final", () => {
    /** A user-pool token getter that throws on the calls numbered in `failing` (1: the first socket's). */
    function counted(failing: number[]) {
      const counter = { calls: 0 };
      const auth: AuthOptions = {
        type: "userpool",
        jwtToken: () => {
          if (failing.includes(++counter.calls)) throw new Error("identity provider unreachable");
          return `jwt-${counter.calls}`;
        },
      };
      return { auth, counter };
    }

    for (
      const [which, failing] of [
        ["the socket's", [3]], // 1: first socket, 2: its start, 3: the socket after the loss
        ["a restart's", [4]], // 4: the start again on that socket
      ] as const
    ) {
      it(`${which} getter, after the socket was lost: the subscription resumes`, async () => {
        const { auth, counter } = counted([...failing]);
        const states: ConnectionState[] = [];
        const realtime = realtimeOf(auth, { onStateChange: (state: ConnectionState) => states.push(state) });
        const events = realtime.subscribe("subscription { onPost { id } }");
        const next = events.next();
        await server.until(() => server.connections[0]?.live.size === 1, "the start");
        server.dropAll();
        await server.until(
          () => server.connections.some((connection, index) => index > 0 && connection.live.size === 1),
          "the start on a later socket",
        );
        assert.ok(counter.calls > failing[0], "the failing getter was called");
        server.publish({ data: { n: 1 } });
        assert.deepEqual((await next).value, { n: 1 });
        assert.equal(states.includes("closed"), false);
      });
    }

    it("the first socket's getter: the caller's to mend, it ends the subscription", async () => {
      const { auth, counter } = counted([1]);
      const realtime = realtimeOf(auth);
      await assert.rejects(realtime.subscribe("subscription { a }").next(), (error: unknown) => {
        assert.ok(error instanceof ServiceAuthError);
        assert.equal(error.code, "AUTH_ERROR");
        return true;
      });
      assert.equal(counter.calls, 1);
      assert.equal(server.connections.length, 0);
      assert.equal(realtime.state, "closed");
    });
  });

  it("ends a subscription whose start_ack does not come in time (ServiceAbortError, timeout)", async () => {
    server.behaviour.holdStartAcks = true;
    server.behaviour.keepAliveMs = 50; // the socket itself stays alive
    timers = clientTimers({ 15_000: 300 });
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    await assert.rejects(within(events.next(), "the start_ack timeout"), (error: unknown) => {
      assert.ok(error instanceof ServiceAbortError, String(error));
      assert.equal(error.reason, "timeout");
      return true;
    });
    assert.ok(timers.asked.includes(15_000));
    // The service acknowledges it at last: the client stops it.
    const connection = server.connections[0]!;
    server.ackHeld();
    await server.until(() => connection.received.some((message) => message.type === "stop"), "the stop");
    assert.equal(connection.live.size, 0);
    assert.equal(server.connections.length, 1);
  });

  it("keeps a subscription whose start_ack came: its 15 s timer ends with the ack", async () => {
    timers = clientTimers({ 15_000: 200 });
    const events = realtimeOf().subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    await pause(400);
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
  });

  it("clears the 15 s timer of a start left unanswered on a socket that is then lost", async () => {
    server.behaviour.holdStartAcks = true;
    timers = clientTimers({ 15_000: 300 });
    const events = realtimeOf().subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => startsOn(0).length === 1, "the first start");
    server.behaviour.holdStartAcks = false;
    server.dropAll();
    await server.until(() => server.connections[1]?.live.size === 1, "the start on the next socket");
    await pause(500); // past the first start's timer, had it been left running
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
  });

  describe("token getters that fail or hang", () => {
    /** A user-pool getter whose answer to call `n` is `answers[n]` (a token by default). */
    function getter(answers: Record<number, () => string | Promise<string>>) {
      const counter = { calls: 0 };
      const auth: AuthOptions = {
        type: "userpool",
        jwtToken: () => (answers[++counter.calls] ?? (() => `jwt-${counter.calls}`))(),
      };
      return { auth, counter };
    }
    const never = () => new Promise<string>(() => {});

    it("the first socket's getter hangs: given up with the ack's timeout, and tried again", async () => {
      timers = clientTimers({ 15_000: 200 });
      const { auth, counter } = getter({ 1: never });
      const states: ConnectionState[] = [];
      const realtime = realtimeOf(auth, { onStateChange: (state: ConnectionState) => states.push(state) });
      const next = realtime.subscribe("subscription { onPost { id } }").next();
      await server.until(() => server.connections[0]?.live.size === 1, "the start");
      server.publish({ data: { n: 1 } });
      assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
      assert.equal(server.connections.length, 1); // the hung attempt opened no socket
      assert.equal(counter.calls, 3); // the hung one, the socket's, the start's
      assert.deepEqual(states, ["connecting", "connected"]);
    });

    it("a start's getter hangs: the subscription ends with ServiceAbortError (timeout), nothing started", async () => {
      timers = clientTimers({ 15_000: 200 });
      const { auth } = getter({ 2: never });
      const next = realtimeOf(auth).subscribe("subscription { onPost { id } }").next();
      await assert.rejects(within(next, "the timeout"), (error: unknown) => {
        assert.ok(error instanceof ServiceAbortError, String(error));
        assert.equal(error.reason, "timeout");
        return true;
      });
      assert.equal(startsOn(0).length, 0);
    });

    it("a first start's getter throws: ServiceAuthError for that subscription, no start", async () => {
      const { auth } = getter({
        2: () => {
          throw new Error("identity provider unreachable");
        },
      });
      const next = realtimeOf(auth).subscribe("subscription { onPost { id } }").next();
      await assert.rejects(within(next, "the auth error"), (error: unknown) => {
        assert.ok(error instanceof ServiceAuthError, String(error));
        return true;
      });
      assert.equal(startsOn(0).length, 0);
    });

    it("a start's getter still pending when its subscription ends: the start is never sent", async () => {
      let release: (token: string) => void = () => {};
      const { auth } = getter({ 2: () => new Promise<string>((resolve) => release = resolve) });
      const realtime = realtimeOf(auth);
      const events = realtime.subscribe("subscription { ended }");
      events.next();
      await server.until(() => server.connections[0]?.received.length === 1, "the connection_init");
      await pause(50); // the ack, then the start's getter
      await events.return!();
      release("jwt-late");
      realtime.subscribe("subscription { later }").next();
      await server.until(() => server.connections[0]!.live.size === 1, "the later start");
      assert.deepEqual(startsOn(0).map((start) => JSON.parse(start.payload.data).query), [
        "subscription { later }",
      ]);
    });
  });

  it("gives up after five sockets refused before an ack, with the server's words, never 'reconnecting'", async () => {
    // Not final (a final error ends at once): each socket is refused, and another tried.
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "LimitExceededError", message: "Slow down" }],
    });
    timers = clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms); // the backoff's waits
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const next = realtime.subscribe("subscription { onPost { id } }").next();
    await assert.rejects(within(next, "the give-up"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.message, "LimitExceededError: Slow down");
      return true;
    });
    assert.equal(server.connections.length, 5);
    assert.deepEqual(states, ["connecting", "closed"]);
    assert.equal(realtime.state, "closed");
  });

  it("gives up after five sockets that cannot connect: ServiceNetworkError, without the URL's credentials", async () => {
    // A port nothing listens on: each socket closes at once (a wrong URL, a server down, no network).
    const { createServer } = await import("node:net");
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    timers = clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
    const realtime = realtimeOf(undefined, {
      authIn: "query",
      url: `ws://127.0.0.1:${port}/graphql/realtime`,
    });
    const error = await within(realtime.subscribe("subscription { a }").next(), "the give-up").then(
      () => assert.fail("resolved"),
      (error: unknown) => error,
    );
    assert.ok(error instanceof ServiceNetworkError, String(error));
    assert.equal(error.code, "NETWORK_ERROR");
    // The socket's URL held the key (authIn: "query"): the error holds no socket and no close event.
    assert.equal(error.cause, undefined);
    assert.doesNotMatch(JSON.stringify(error) + String(error) + error.stack, /header=|da2-/);
    assert.equal(realtime.state, "closed");
  });

  it("keeps reconnecting past five losses once connected, and starts over after close()", async () => {
    timers = clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const first = realtime.subscribe("subscription { onPost { id } }");
    const next = first.next();
    for (let index = 0; index < 6; index++) {
      await server.until(() => server.connections[index]?.live.size === 1, `the start on socket ${index}`);
      server.dropAll();
    }
    await server.until(() => server.connections[6]?.live.size === 1, "the start on the seventh socket");
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
    assert.equal(states.includes("closed"), false);
    // A new run after close() starts with a fresh count: one refused socket does not end it.
    realtime.close();
    server.behaviour.refuseConnect = (connection) =>
      connection === server.connections[7]
        ? { errors: [{ errorType: "LimitExceededError", message: "Slow down" }] }
        : undefined;
    const again = realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[8]?.live.size === 1, "the start after one refusal");
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(again, "the event after close()"), { value: { n: 2 }, done: false });
  });

  it("a getter failing for a later socket before any ack is retried, not final", async () => {
    server.behaviour.refuseConnect = (connection) =>
      connection === server.connections[0]
        ? { errors: [{ errorType: "LimitExceededError", message: "Slow down" }] }
        : undefined;
    let calls = 0;
    const auth: AuthOptions = {
      type: "userpool",
      jwtToken: () => {
        if (++calls == 2) throw new Error("identity provider unreachable"); // the second socket's
        return `jwt-${calls}`;
      },
    };
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(auth, { onStateChange: (state: ConnectionState) => states.push(state) });
    const next = realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[1]?.live.size === 1, "the start on the second socket");
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
    assert.deepEqual(states, ["connecting", "connected"]);
  });

  it("a restart's getter failing after its subscription ended leaves the others' socket alone", async () => {
    let fail: (error: Error) => void = () => {};
    let calls = 0;
    const auth: AuthOptions = {
      type: "userpool",
      // 1: the first socket, 2 and 3: the starts, 4: the second socket, 5: A's restart.
      jwtToken: () => ++calls == 5 ? new Promise<string>((_, reject) => fail = reject) : `jwt-${calls}`,
    };
    const realtime = realtimeOf(auth);
    const a = realtime.subscribe("subscription { a }");
    a.next();
    const b = realtime.subscribe("subscription { b }");
    const nextB = b.next();
    await server.until(() => server.connections[0]?.live.size === 2, "both starts");
    server.dropAll();
    await server.until(() => server.connections[1]?.live.size === 1, "B's restart");
    await a.return!();
    fail(new Error("identity provider unreachable"));
    await pause(100);
    assert.equal(server.connections[1]!.closed, false, "the socket was dropped");
    assert.equal(realtime.state, "connected");
    server.publish({ data: { b: 1 } });
    assert.deepEqual(await within(nextB, "B's event"), { value: { b: 1 }, done: false });
  });

  it("backs off longer while sockets drop after their ack, and at once again after a keep-alive", async () => {
    timers = clientTimers();
    realtimeOf().subscribe("subscription { onPost { id } }").next();
    for (let index = 0; index < 3; index++) {
      await server.until(() => server.connections[index]?.live.size === 1, `the start on socket ${index}`);
      if (index == 2) server.behaviour.keepAliveMs = 20; // from the fourth socket on
      server.dropAll();
    }
    await server.until(() => (server.connections[3]?.kaSent ?? 0) > 1, "keep-alives on the fourth socket");
    server.dropAll();
    await server.until(() => server.connections[4]?.live.size === 1, "the start on the fifth socket");
    // The waits before each new socket: a random half to whole of 250 ms, doubled after each loss.
    const waits = timers.asked.filter((ms) => ms > 0 && ms < 1_000);
    assert.equal(waits.length, 4, String(waits));
    for (const [index, [low, high]] of [[125, 250], [250, 500], [500, 1_000], [125, 250]].entries()) {
      assert.ok(waits[index]! >= low! && waits[index]! <= high!, `wait ${index}: ${waits[index]} ms`);
    }
  });

  it(
    "an onStateChange that throws stays out of the connection's way (the error is reported as uncaught)",
    { skip: !("Deno" in globalThis) && "only Deno lets a test catch an uncaught error without failing" },
    async () => {
      const uncaught: unknown[] = [];
      const onError = (event: ErrorEvent) => {
        event.preventDefault();
        uncaught.push(event.error);
      };
      globalThis.addEventListener("error", onError);
      try {
        const realtime = realtimeOf(undefined, {
          onStateChange: () => {
            throw new Error("a bug in the page");
          },
        });
        const next = realtime.subscribe("subscription { onPost { id } }").next();
        await server.until(() => server.connections[0]?.live.size === 1, "the start");
        server.publish({ data: { n: 1 } });
        assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
        await pause(0);
        assert.deepEqual(uncaught.map((error) => (error as Error).message), [
          "a bug in the page",
          "a bug in the page",
        ]);
      } finally {
        globalThis.removeEventListener("error", onError);
      }
    },
  );

  it("clamps the service's keep-alive timeout to at least 60 s", async () => {
    timers = clientTimers();
    for (const [index, connectionTimeoutMs] of [1, -5, 0].entries()) {
      server.behaviour.ackPayload = { connectionTimeoutMs };
      const realtime = realtimeOf();
      realtime.subscribe("subscription { onPost { id } }").next();
      await server.until(
        () => server.connections[index]?.live.size === 1,
        `the start with ${connectionTimeoutMs}`,
      );
      assert.equal(server.connections.length, index + 1);
      realtime.close();
    }
    // 15 s before each ack, the clamped 60 s after it, a second before an idle socket closes: no less.
    assert.deepEqual(timers.asked.filter((ms) => ms < 1_000), []);
    assert.ok(timers.asked.filter((ms) => ms === 60_000).length >= 3);
  });

  it(
    "close() cuts a socket whose peer leaves the close unanswered (ws, Bun; not standard sockets)",
    { skip: !CAN_TERMINATE && "this runtime's WebSocket has no terminate()" },
    async () => {
      server.behaviour.ignoreClose = true;
      const realtime = realtimeOf();
      realtime.subscribe("subscription { onPost { id } }").next();
      await server.until(() => server.connections[0]?.live.size === 1, "the start");
      realtime.close();
      // Within the 5 s of until(): `ws` on its own would wait 30 s (Bun as long).
      await server.until(() => server.connections[0]!.ended, "the client letting the connection go");
      assert.equal(realtime.state, "closed");
    },
  );

  it("listen() checks onData and onError, and opens nothing without them", () => {
    const realtime = realtimeOf();
    assert.throws(() => realtime.listen("subscription { a }", undefined, () => {}, undefined as never), {
      code: "INVALID_ARGUMENT",
      message: /^Invalid onError: expected a function/,
    });
    assert.throws(() => realtime.listen("subscription { a }", undefined, "log" as never, () => {}), {
      code: "INVALID_ARGUMENT",
      message: /^Invalid onData: expected a function/,
    });
    assert.equal(server.connections.length, 0);
  });

  it("refuses a bad signal from the iterator, never from subscribe() itself", async () => {
    const realtime = realtimeOf();
    for (const signal of [{}, { addEventListener() {} }, 42]) {
      const events = realtime.subscribe("subscription { a }", undefined, { signal } as never);
      await assert.rejects(events.next(), {
        code: "INVALID_ARGUMENT",
        message: /signal: expected an AbortSignal/,
      });
    }
    assert.equal(server.connections.length, 0);
  });

  it("refuses the variables request() refuses, with the same message", async () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    const realtime = realtimeOf();
    for (const variables of [new Map([["id", "1"]]), new Date(0), { id: "1", toJSON: () => ({}) }, [1], 7]) {
      const refused = await client.request("query Q($id: ID) { post(id: $id) }", variables as never).then(
        () => assert.fail("request() took the variables"),
        (error: Error) => error,
      );
      const events = realtime.subscribe(
        "subscription S($id: ID) { onPost(id: $id) { id } }",
        variables as never,
      );
      await assert.rejects(within(events.next(), "the variables' refusal"), {
        code: "INVALID_ARGUMENT",
        message: refused.message,
      });
    }
    assert.equal(server.connections.length, 0);
  });

  it("holds one abort listener on a signal that twelve subscriptions share", async () => {
    const controller = new AbortController();
    const { signal } = controller;
    let listeners = 0;
    const [add, remove] = [signal.addEventListener.bind(signal), signal.removeEventListener.bind(signal)];
    signal.addEventListener =
      ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
    signal.removeEventListener =
      ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove;
    const realtime = realtimeOf();
    const all = Array.from(
      { length: 12 },
      (_, i) => realtime.subscribe(`subscription { on${i} }`, undefined, { signal }),
    );
    const results = all.map((events) => events.next().then(() => "data", (error) => error));
    await server.until(() => server.connections[0]?.live.size === 12, "twelve starts");
    assert.equal(listeners, 1);
    controller.abort();
    for (const error of await Promise.all(results)) {
      assert.ok(error instanceof ServiceAbortError, String(error));
    }
    assert.equal(listeners, 0);
    await server.until(() => server.connections[0]!.live.size === 0, "twelve stops");
  });
});
