/**
 * `RealtimeClient` when things go wrong, against the local real-time server (`_realtime_harness.ts`):
 * connection errors final or not, missed keep-alives and lost sockets (reconnect with fresh auth,
 * subscriptions started again), unanswered starts, token getters that fail or hang, the give-up before
 * a first connection, the backoff, a state callback that throws, the keep-alive timeout's floor and a
 * peer that never answers the close.
 *
 * Runs under Deno, Bun and Node 22+ with their global `WebSocket`, and under Node 18 and 20 with the
 * `ws` package.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAbortError, ServiceAuthError, ServiceGraphQLError, ServiceNetworkError } from "../mod.ts";
import type { ConnectionState } from "../src/realtime.ts";
import type { AuthOptions } from "../src/auth.ts";
import {
  API_KEY,
  assertWatchedFor,
  CAN_TERMINATE,
  clientTimers,
  pause,
  realtimeOf,
  RuntimeWebSocket,
  server,
  startedAndHeard,
  startsOn,
  useRealtimeServer,
  within,
} from "./_realtime_harness.ts";

describe("RealtimeClient, recovery", () => {
  useRealtimeServer();

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
      await assert.rejects(within(events.next(), "the final error"), (error: unknown) => {
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
    assert.deepEqual((await within(next, "the event")).value, { n: 1 });
  });

  it("reconnects with fresh auth when keep-alives stop, and starts every subscription again", async () => {
    server.behaviour.ackPayload = { connectionTimeoutMs: 60_000 };
    clientTimers({ 5_000: 10 }, { clock: true });
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
    assert.deepEqual(
      [(await within(nextA, "a's event")).value, (await within(nextB, "b's event")).value],
      [{ n: 2 }, { n: 2 }],
    );
    assert.deepEqual(states.slice(0, 4), ["connecting", "connected", "reconnecting", "connected"]);
  });

  it("keeps a socket whose keep-alives arrive in time", async () => {
    server.behaviour.ackPayload = { connectionTimeoutMs: 60_000 };
    server.behaviour.keepAliveMs = 40;
    clientTimers({ 5_000: 20 }, { clock: true });
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    // Fifteen keep-alives, about 10 s apart on the client's clock: two and a half times the timeout.
    await server.until(() => connection.kaSent >= 15, "fifteen keep-alives");
    assert.equal(server.connections.length, 1);
    assert.equal(connection.closed, false);
  });

  it("replaces a socket left silent by a sleep (the clock moved on, no timer ran) at its next check", async () => {
    const timers = clientTimers({ 5_000: 50 });
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const events = realtime.subscribe("subscription { onPost { id } }");
    await startedAndHeard(0, events.next());
    timers.jump(10 * 60_000); // ten minutes asleep: the service has long dropped the socket
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    assert.ok(server.connections[0]!.closed, "the silent socket was not closed");
    const next = events.next();
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(next, "the event after waking"), { value: { n: 2 }, done: false });
    assert.deepEqual(states, ["connecting", "connected", "reconnecting", "connected"]);
  });

  it("replaces a socket at its next check when the clock is set back past its last message", async () => {
    // The silence can no longer be measured: waiting for the clock to catch up would keep a dead
    // socket for as long as the clock moved back.
    const timers = clientTimers({ 5_000: 50 });
    await startedAndHeard(0, realtimeOf().subscribe("subscription { onPost { id } }").next());
    timers.jump(-60 * 60_000);
    await within(server.until(() => server.connections[0]!.closed, "the close"), "the close", 500);
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
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
    assert.deepEqual(await within(pending, "the end at close()"), { value: undefined, done: true });
    assert.equal(realtime.state, "closed");
    await server.until(() => server.connections[1]!.closed, "the close");
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
        assert.deepEqual((await within(next, "the event")).value, { n: 1 });
        assert.equal(states.includes("closed"), false);
      });
    }

    it("the first socket's getter: the caller's to mend, it ends the subscription", async () => {
      const { auth, counter } = counted([1]);
      const realtime = realtimeOf(auth);
      await assert.rejects(
        within(realtime.subscribe("subscription { a }").next(), "the end"),
        (error: unknown) => {
          assert.ok(error instanceof ServiceAuthError);
          assert.equal(error.code, "AUTH_ERROR");
          return true;
        },
      );
      assert.equal(counter.calls, 1);
      assert.equal(server.connections.length, 0);
      assert.equal(realtime.state, "closed");
    });
  });

  it("ends a subscription whose first start_ack does not come in time (ServiceAbortError, timeout)", async () => {
    server.behaviour.holdStartAcks = true;
    server.behaviour.keepAliveMs = 50; // the socket itself stays alive
    const timers = clientTimers({ 15_000: 300 });
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

  describe("a restart left unanswered: a socket that died just after a reconnect", () => {
    /** A subscription started on a first socket, which is then dropped with the start_acks held. */
    async function restarted() {
      clientTimers({ 15_000: 300 });
      const states: ConnectionState[] = [];
      const realtime = realtimeOf(undefined, {
        onStateChange: (state: ConnectionState) => states.push(state),
      });
      const events = realtime.subscribe("subscription { onPost { id } }");
      await server.until(() => server.connections[0]?.live.size === 1, "the first start");
      server.behaviour.holdStartAcks = true;
      server.dropAll();
      await server.until(() => startsOn(1).length === 1, "the restart");
      return { events, states };
    }

    it("is taken for a lost socket: another opens, and the subscription comes back", async () => {
      const { events, states } = await restarted();
      const next = events.next();
      await server.until(() => server.connections[1]!.closed, "the silent socket's close");
      server.behaviour.holdStartAcks = false;
      await server.until(() => server.connections[2]?.live.size === 1, "the start on the third socket");
      server.publish({ data: { n: 1 } });
      assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
      assert.deepEqual(states, [
        "connecting",
        "connected",
        "reconnecting",
        "connected",
        "reconnecting",
        "connected",
      ]);
    });

    it("two subscriptions whose restarts go out in turn first: each ends after its second silence", async () => {
      clientTimers((ms) => ms == 15_000 ? 300 : ms < 5_000 && ms != 1_000 ? 5 : ms);
      let calls = 0;
      // Per socket: its auth, then one call per start. From the third socket on, one start's token comes
      // later, by turns, so that the other start goes out (and its timer runs out) first.
      const auth: AuthOptions = {
        type: "userpool",
        jwtToken: async () => {
          const call = calls++, socket = Math.floor(call / 3), position = call % 3;
          if (socket >= 2 && position == 1 + socket % 2) await pause(100);
          return `jwt-${call}`;
        },
      };
      const realtime = realtimeOf(auth);
      const ends = ["subscription { a }", "subscription { b }"].map((document) =>
        realtime.subscribe(document).next().then(() => "done", (error) => error)
      );
      await server.until(() => server.connections[0]?.live.size === 2, "the first starts");
      server.behaviour.holdStartAcks = true; // from now on, no start is answered
      server.dropAll();
      for (const ended of await within(Promise.all(ends), "both ends")) {
        assert.ok(ended instanceof ServiceAbortError, String(ended));
        assert.equal(ended.reason, "timeout");
      }
      assert.ok(server.connections.length <= 4, `${server.connections.length} sockets for 2 subscriptions`);
      const opened = server.connections.length;
      await pause(1_500);
      assert.equal(server.connections.length, opened, "no socket opened since");
    });

    /** A lambda token getter whose call number `held` answers only when told (`settle`). */
    function holding(held: number) {
      let calls = 0;
      let asked = () => {};
      const waiting = new Promise<void>((resolve) => asked = resolve);
      const settle = { resolve: (_token: string) => {}, reject: (_error: Error) => {} };
      const auth: AuthOptions = {
        type: "lambda",
        authorizationToken: () => {
          if (++calls != held) return `token-${calls}-sentinel`;
          asked();
          return new Promise<string>((resolve, reject) => Object.assign(settle, { resolve, reject }));
        },
      };
      return { auth, waiting, settle };
    }

    it("a start's token that comes after its socket was lost is neither sent nor cut in place of the next", async () => {
      // 1: the first socket, 2: its start (its token comes late), 3: the next socket, 4: the restart.
      const { auth, waiting, settle } = holding(2);
      const next = realtimeOf(auth).subscribe("subscription { a }").next();
      await within(waiting, "the first start's token asked");
      server.dropAll();
      await server.until(() => startsOn(1).length === 1, "the restart");
      const [restart] = startsOn(1);
      const token = restart!.payload.extensions.authorization.authorization;
      settle.resolve("token-2-sentinel");
      await pause(20);
      assert.equal(startsOn(0).length, 0, "the late token went nowhere");
      server.connections[1]!.send({
        type: "error",
        id: restart!.id,
        payload: { errors: [{ errorType: "UnauthorizedException", message: `Token ${token} is revoked` }] },
      });
      await assert.rejects(within(next, "the refusal"), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.equal(error.message, "UnauthorizedException: Token … is revoked");
        return true;
      });
    });

    it("a restart's token getter that fails after its socket was lost leaves the subscription to the next", async () => {
      // 1, 2: the first socket and its start; 3, 4: the second socket and the restart, whose getter fails
      // only once that socket is gone.
      const { auth, waiting, settle } = holding(4);
      const next = realtimeOf(auth).subscribe("subscription { onPost { id } }").next();
      await server.until(() => server.connections[0]?.live.size === 1, "the first start");
      server.dropAll();
      await within(waiting, "the restart's token asked");
      server.dropAll();
      await server.until(() => server.connections[2]?.live.size === 1, "the start on the third socket");
      settle.reject(new Error("identity provider unreachable"));
      await pause(20);
      server.publish({ data: { n: 1 } });
      assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
    });

    it("left unanswered on the next socket too, ends its subscription with a timeout: no endless reconnects", async () => {
      const { events } = await restarted();
      await assert.rejects(within(events.next(), "the timeout"), (error: unknown) => {
        assert.ok(error instanceof ServiceAbortError, String(error));
        assert.equal(error.reason, "timeout");
        return true;
      });
      assert.equal(server.connections.length, 3);
      await pause(1_500); // the idle close
      assert.equal(server.connections.length, 3, "no socket opened since");
    });
  });

  it("keeps a subscription whose start_ack came: its 15 s timer ends with the ack", async () => {
    clientTimers({ 15_000: 200 });
    const events = realtimeOf().subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    await pause(400);
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
  });

  it("clears the 15 s timer of a start left unanswered on a socket that is then lost", async () => {
    server.behaviour.holdStartAcks = true;
    // The reconnect waits longer than the shortened timer: a timer left running would end the
    // subscription before its start goes out again (which would clear it).
    const timers = clientTimers((ms) => ms == 15_000 ? 300 : ms < 5_000 && ms != 1_000 ? 800 : ms);
    const events = realtimeOf().subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => startsOn(0).length === 1, "the first start");
    server.behaviour.holdStartAcks = false;
    server.dropAll();
    await server.until(() => server.connections[1]?.live.size === 1, "the start on the next socket");
    assert.ok(timers.asked.some((ms) => ms < 5_000 && ms != 1_000), "the reconnect waited (800 ms here)");
    await pause(500); // past the restart's timer too, had the ack not cleared it
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
      clientTimers({ 5_000: 20 }, { clock: true });
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

    it("a first socket's getter that answers after it was given up leaves the next socket's key to be cut", async () => {
      clientTimers({ 5_000: 20 }, { clock: true });
      let release: (key: string) => void = () => {};
      let calls = 0;
      const auth: AuthOptions = {
        type: "apiKey",
        apiKey: () => ++calls == 1 ? new Promise<string>((resolve) => release = resolve) : `da2-key-${calls}`,
      };
      const next = realtimeOf(auth).subscribe("subscription { onPost { id } }").next();
      await server.until(
        () => server.connections[0]?.live.size === 1,
        "the start on the next attempt's socket",
      );
      const key = server.connections[0]!.header!["x-api-key"]!;
      release("da2-key-1"); // the given-up getter answers now
      await pause(20);
      server.connections[0]!.send({
        type: "connection_error",
        payload: { errors: [{ errorCode: 401, message: `Key ${key} is not valid` }] },
      });
      await assert.rejects(within(next, "the refusal"), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.equal(error.message, "Key … is not valid");
        return true;
      });
    });

    it("a start's getter hangs: the subscription ends with ServiceAbortError (timeout), nothing started", async () => {
      clientTimers({ 15_000: 200 });
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
      await events.return();
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
    clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms); // the backoff's waits
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
    clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
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
    clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
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
    // A new run after close() goes on the same way: a refused socket does not end it.
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

  it("once a socket was acknowledged, the next socket after an idle close waits for the network too", async () => {
    clientTimers((ms) => ms < 5_000 ? 5 : ms); // the backoff's waits and the idle close
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const first = realtime.subscribe("subscription { onPost { id } }");
    await startedAndHeard(0, first.next());
    await first.return();
    await server.until(() => server.connections[0]!.closed, "the idle close");
    // The network is gone when the app subscribes again: six sockets are refused, then it is back.
    server.behaviour.refuseConnect = (connection) =>
      server.connections.indexOf(connection) <= 6
        ? { errors: [{ errorType: "LimitExceededError", message: "Network down" }] }
        : undefined;
    const next = realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[7]?.live.size === 1, "the start once the network is back");
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 2 }, done: false });
    assert.deepEqual(states, ["connecting", "connected", "closed", "connecting", "connected"]);
    realtime.close();
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

  it("a getter that keeps failing for the later sockets before any ack: the give-up is its ServiceAuthError", async () => {
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "LimitExceededError", message: "Slow down" }],
    });
    clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
    let calls = 0;
    const auth: AuthOptions = {
      type: "userpool",
      jwtToken: () => {
        if (++calls > 1) throw new Error("identity provider unreachable");
        return "jwt-1";
      },
    };
    const next = realtimeOf(auth).subscribe("subscription { onPost { id } }").next();
    await assert.rejects(within(next, "the give-up"), (error: unknown) => {
      assert.ok(error instanceof ServiceAuthError, String(error));
      return true;
    });
    assert.equal(server.connections.length, 1); // the refused first socket; the others never opened
    assert.equal(calls, 5);
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
    await a.return();
    fail(new Error("identity provider unreachable"));
    await pause(100);
    assert.equal(server.connections[1]!.closed, false, "the socket was dropped");
    assert.equal(realtime.state, "connected");
    server.publish({ data: { b: 1 } });
    assert.deepEqual(await within(nextB, "B's event"), { value: { b: 1 }, done: false });
  });

  it("backs off longer while sockets drop after their ack, and at once again after a keep-alive", async () => {
    const timers = clientTimers();
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
    const timers = clientTimers({ 5_000: 10 });
    for (const connectionTimeoutMs of [1, -5, 0, 90_000]) {
      await assertWatchedFor(timers, { connectionTimeoutMs }, Math.max(60_000, connectionTimeoutMs));
    }
  });

  it("close() just after the last subscription ended leaves no timer of the client behind", async () => {
    const timers = clientTimers(); // from the start: the watchdog's check too
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    await events.return(); // the socket would close a second later
    realtime.close();
    await server.until(() => server.connections[0]!.ended, "the close answered");
    await pause(20);
    assert.ok(timers.asked.includes(1_000), "the idle close was timed");
    assert.equal(timers.pending.size, 0, `${timers.pending.size} timer(s) of the client left`);
  });

  /**
   * Subscribes through a socket that can be cut (as ws's and Bun's can), whose `terminate()` only
   * counts (the server's end lets the connection go), waits for the start, and calls `close()`.
   *
   * @returns How many times the socket has been cut so far.
   */
  async function closedWithCuttableSocket(): Promise<() => number> {
    let cuts = 0;
    const Counted = class extends RuntimeWebSocket {
      override terminate() {
        cuts++;
      }
    };
    const realtime = realtimeOf(undefined, { webSocket: Counted });
    realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    realtime.close();
    return () => cuts;
  }

  it("close() answered by the peer leaves no timer to cut the socket later", async () => {
    clientTimers({ 1_000: 200 });
    const cuts = await closedWithCuttableSocket();
    await server.until(() => server.connections[0]!.ended, "the close answered");
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(cuts(), 0, "the socket was cut after its close was answered");
  });

  it("close() unanswered by the peer: a socket that can be cut is cut once, a second later", async () => {
    clientTimers({ 1_000: 200 });
    server.behaviour.ignoreClose = true;
    const cuts = await closedWithCuttableSocket();
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(cuts(), 1, "the socket left closing was not cut");
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
});
