/**
 * `RealtimeClient` at the edges of its rules, against the local real-time server
 * (`_realtime_harness.ts`): the watchdog of an ack whose timeout is not a number, the subprotocol's
 * base64url, the close of a connection with no socket, connection errors final by their code alone,
 * a restart's failing getter for a start never acknowledged, a host that only looks like the
 * service's, a `webSocket` option that is not a function, and an event's errors as one object.
 *
 * Runs under Deno, Bun and Node 22+ with their global `WebSocket`, and under Node 18 and 20 with the
 * `ws` package.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAuthError, ServiceClient, ServiceGraphQLError } from "../mod.ts";
import {
  type ConnectionState,
  RealtimeClient,
  type WebSocketConstructor,
  type WebSocketLike,
} from "../src/realtime.ts";
import type { AuthOptions } from "../src/auth.ts";
import {
  API_KEY,
  assertWatchedFor,
  clientTimers,
  realtimeOf,
  RuntimeWebSocket,
  server,
  startsOn,
  useRealtimeServer,
  within,
} from "./_realtime_harness.ts";

/** The states an `onStateChange` reported, and a promise for the first time one of them comes. */
function observed() {
  const states: ConnectionState[] = [];
  const waiting = new Map<ConnectionState, () => void>();
  return {
    states,
    onStateChange: (state: ConnectionState) => {
      states.push(state);
      waiting.get(state)?.();
    },
    reached: (state: ConnectionState) =>
      states.includes(state)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.set(state, resolve)),
  };
}

/** Each backoff wait made short; the idle second and the watchdogs left alone. */
const quickBackoff = () => clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);

describe("RealtimeClient, edges", () => {
  useRealtimeServer();

  it("watches a socket for 5 minutes when the ack's timeout is missing or not a number", async () => {
    const timers = clientTimers({ 5_000: 10 });
    // The simulator's spelling (`connectionTimeout`, always 5 minutes there) counts as none.
    for (const ackPayload of [{}, { connectionTimeoutMs: "five minutes" }, { connectionTimeout: 60_000 }]) {
      await assertWatchedFor(timers, ackPayload, 300_000);
    }
  });

  it("sends the auth header in the subprotocol as base64url, + and / included, and the server reads the key", async () => {
    // Its standard base64 holds "+" and "/" whatever its offset in the header's JSON.
    const apiKey = "da2-???>>>~~~";
    const events = realtimeOf({ type: "apiKey", apiKey }).subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.equal(connection.header!["x-api-key"], apiKey);
    const standard = btoa(JSON.stringify(connection.header));
    assert.ok(standard.includes("+") && standard.includes("/"), standard);
    const sent = connection.protocols[1]!;
    assert.equal(sent, "header-" + standard.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_"));
    assert.match(sent, /^header-[A-Za-z0-9_-]+$/);
    assert.equal(startsOn(0)[0]!.payload.extensions.authorization["x-api-key"], apiKey);
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
  });

  it("closes at once, not a second later, when the last subscription ends while no socket is open", async () => {
    // The backoff's wait and the idle second stretched past the test: only a close at once is seen.
    clientTimers((ms) => ms > 0 && ms <= 1_000 ? 60_000 : ms);
    const { states, onStateChange, reached } = observed();
    const realtime = realtimeOf(undefined, { onStateChange });
    const events = realtime.subscribe("subscription { onPost { id } }");
    const pending = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.dropAll();
    await within(reached("reconnecting"), "the loss");
    await events.return();
    assert.deepEqual(await within(pending, "the end of the waiting read"), { value: undefined, done: true });
    await within(reached("closed"), "the close with no socket");
    assert.equal(realtime.state, "closed");
    assert.deepEqual(states, ["connecting", "connected", "reconnecting", "closed"]);
    assert.equal(server.connections.length, 1);
  });

  it("ends the subscriptions, without reconnecting, on a connection_error with only errorCode 400, 401 or 403", async () => {
    quickBackoff();
    for (const [index, errorCode] of [400, 401, 403].entries()) {
      server.behaviour.refuseConnect = () => ({ errors: [{ errorCode, message: "Refused" }] });
      const { states, onStateChange, reached } = observed();
      const realtime = realtimeOf(undefined, { onStateChange });
      const next = realtime.subscribe("subscription { onPost { id } }").next();
      await assert.rejects(within(next, `the refusal ${errorCode}`), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.deepEqual(error.errors, [{ errorCode, message: "Refused" }]);
        return true;
      });
      assert.equal(server.connections.length, index + 1, `sockets opened for ${errorCode}`);
      assert.equal(realtime.state, "closed");
      await within(reached("closed"), "the closed state");
      assert.deepEqual(states, ["connecting", "closed"]);
    }
  });

  it("ends the subscriptions, without reconnecting, on a refusal with only errorType UnauthorizedException or BadRequestException", async () => {
    quickBackoff();
    for (const [index, errorType] of ["UnauthorizedException", "BadRequestException"].entries()) {
      server.behaviour.refuseConnect = () => ({ errors: [{ errorType, message: "Refused" }] });
      const { states, onStateChange } = observed();
      const realtime = realtimeOf(undefined, { onStateChange });
      await assert.rejects(
        within(realtime.subscribe("subscription { a }").next(), `the refusal ${errorType}`),
        {
          name: "ServiceGraphQLError",
          message: `${errorType}: Refused`,
        },
      );
      assert.equal(server.connections.length, index + 1, `sockets opened for ${errorType}`);
      assert.equal(states.includes("reconnecting"), false, errorType);
    }
    // The same words in an `error` without an id, once the socket is acknowledged: final too.
    delete server.behaviour.refuseConnect;
    const { states, onStateChange } = observed();
    const realtime = realtimeOf(undefined, { onStateChange });
    const next = realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[2]?.live.size === 1, "the start");
    server.connections[2]!.send({
      type: "error",
      payload: { errors: [{ errorType: "UnauthorizedException", message: "Revoked" }] },
    });
    await assert.rejects(within(next, "the refusal after the ack"), {
      name: "ServiceGraphQLError",
      message: "UnauthorizedException: Revoked",
    });
    assert.equal(server.connections.length, 3, "no socket opened after the refusal");
    assert.equal(states.includes("reconnecting"), false);
  });

  it("takes errorCode 403 as final whatever its errorType", async () => {
    quickBackoff();
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "AccessDeniedError", errorCode: 403, message: "Forbidden" }],
    });
    const realtime = realtimeOf();
    await assert.rejects(within(realtime.subscribe("subscription { a }").next(), "the refusal"), {
      name: "ServiceGraphQLError",
      message: "AccessDeniedError: Forbidden",
    });
    assert.equal(server.connections.length, 1);
    assert.equal(realtime.state, "closed");
  });

  it("a restart's getter throwing for a start never acknowledged before the loss: reconnects, not final", async () => {
    let calls = 0;
    const auth: AuthOptions = {
      type: "userpool",
      // 1: the first socket, 2: its start (left unacknowledged), 3: the second socket, 4: the restart.
      jwtToken: () => {
        if (++calls == 4) throw new Error("identity provider unreachable");
        return `jwt-${calls}`;
      },
    };
    server.behaviour.holdStartAcks = true;
    const { states, onStateChange } = observed();
    const realtime = realtimeOf(auth, { onStateChange });
    const next = realtime.subscribe("subscription { onPost { id } }").next().catch((error) => error);
    await server.until(() => startsOn(0).length === 1, "the first start");
    server.behaviour.holdStartAcks = false;
    server.dropAll();
    await server.until(
      () => server.connections.some((connection, index) => index > 0 && connection.live.size === 1),
      "the start on a later socket",
    );
    assert.ok(calls > 4, "the restart's getter was not called");
    server.publish({ data: { n: 1 } });
    const result = await within(next, "the event");
    assert.equal(result instanceof ServiceAuthError, false, String(result));
    assert.deepEqual(result, { value: { n: 1 }, done: false });
    assert.equal(states.includes("closed"), false);
  });

  it("derives /realtime on a host that only starts like the service's (appsync-apiproxy)", async () => {
    const urls: string[] = [];
    const webSocket = function (url: string) {
      urls.push(url);
      throw new SyntaxError("refused by the test");
    } as unknown as WebSocketConstructor;
    for (
      const [graphql, expected] of [
        [
          "https://abc.appsync-apiproxy.example.com/graphql",
          "wss://abc.appsync-apiproxy.example.com/graphql/realtime",
        ],
        [
          "https://abc.appsync-api-eu.example.com/graphql",
          "wss://abc.appsync-api-eu.example.com/graphql/realtime",
        ],
      ]
    ) {
      urls.length = 0;
      const client = new ServiceClient({ url: graphql!, auth: { type: "apiKey", apiKey: API_KEY } });
      const realtime = new RealtimeClient(client, { webSocket });
      await assert.rejects(within(realtime.subscribe("subscription { a }").next(), "the refusal"), {
        code: "INVALID_ARGUMENT",
      });
      assert.deepEqual(urls, [expected], graphql);
    }
  });

  it("refuses a webSocket option that is an object, not a constructor, when constructed", () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    for (const webSocket of [{}, { prototype: {} }, "WebSocket"]) {
      assert.throws(() => new RealtimeClient(client, { webSocket: webSocket as never }), {
        code: "INVALID_ARGUMENT",
        message: /^Invalid webSocket: expected a function/,
      });
    }
    assert.equal(server.connections.length, 0);
  });

  it("without a webSocket option on a runtime with no global WebSocket (Node 18, 20), says so when constructed", () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    // Node 18 and 20 have none to take away: the test runs as it is there.
    const original = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
    // deno-lint-ignore no-explicit-any
    delete (globalThis as any).WebSocket;
    try {
      assert.throws(() => new RealtimeClient(client), {
        code: "INVALID_ARGUMENT",
        message:
          "Invalid webSocket: expected a function (this runtime has no global WebSocket), current value is undefined",
      });
      assert.ok(new RealtimeClient(client, { webSocket: RuntimeWebSocket }), "the option stands in for it");
    } finally {
      if (original) Object.defineProperty(globalThis, "WebSocket", original);
    }
    assert.equal(server.connections.length, 0);
  });

  it("ends a subscription whose start is refused by an error frame with no errors, as a malformed error", async () => {
    server.behaviour.refuseStart = () => ({});
    const realtime = realtimeOf();
    await assert.rejects(
      within(realtime.subscribe("subscription { a }").next(), "the refusal"),
      (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.deepEqual(error.errors, [{ message: "Malformed message" }]);
        return true;
      },
    );
  });

  it("sends nothing to a closing socket, whose send throws on Deno 1 and older ws: a stop then is skipped", async () => {
    // The runtime's socket, made strict as Deno 1's is: send() throws unless the socket is open.
    const sockets: WebSocketLike[] = [];
    const Strict = class
      extends (RuntimeWebSocket as unknown as new (url: string, protocols: string[]) => WebSocketLike) {
      constructor(url: string, protocols: string[]) {
        super(url, protocols);
        sockets.push(this);
      }
      override send(data: string) {
        if (this.readyState != 1) throw new DOMException("readyState not OPEN", "InvalidStateError");
        super.send(data);
      }
    };
    const realtime = realtimeOf(undefined, { webSocket: Strict });
    const events = realtime.subscribe("subscription { onPost { id } }");
    const first = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    // The event comes after the start_ack: the subscription is acknowledged, and its end sends stop.
    assert.deepEqual(await within(first, "the event"), { value: { n: 1 }, done: false });
    const pending = events.next();
    sockets[0]!.close(); // closing now: its close event comes later
    assert.equal(sockets[0]!.readyState, 2);
    await events.return(); // would send stop
    assert.deepEqual(await within(pending, "the waiting read"), { value: undefined, done: true });
  });
});
