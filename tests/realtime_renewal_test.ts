/**
 * `RealtimeClient` when a token expires while its socket lives: the service refuses a subscription it
 * had acknowledged with "UnauthorizedException: Token has expired.", and the client opens a new socket
 * with fresh auth and starts every subscription again, against the local real-time server
 * (`_realtime_harness.ts`). Also what ends a subscription instead: a getter that fails for the new
 * socket, a second refusal within a minute (a service that acknowledges and then refuses makes no loop),
 * a start refused before its `start_ack`, a refusal that does not say a token expired, and an event's
 * error (the resolver's, delivered).
 *
 * The minute is passed by moving `Date.now` forward; the client's timers are the runtime's.
 *
 * @module
 */

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAuthError, ServiceGraphQLError } from "../mod.ts";
import type { ConnectionState } from "../src/realtime.ts";
import { pause, realtimeOf, server, startsOn, useRealtimeServer, within } from "./_realtime_harness.ts";

const EXPIRED = { errorType: "UnauthorizedException", message: "Token has expired." };

const realNow = Date.now;
/** Moves the clock `ms` forward, as `Date.now` tells it. */
const later = (ms: number) => {
  const now = Date.now;
  Date.now = () => now() + ms;
};

/** A lambda getter that counts its calls, and throws from call number `failing` on. */
function tokens(failing = Infinity) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    auth: {
      type: "lambda" as const,
      authorizationToken: () => {
        if (++calls >= failing) throw new Error("refresh token expired");
        return `token-${calls}`;
      },
    },
  };
}

/** A subscription that received its first event on the first socket, with its `start` message. */
async function live(auth: ReturnType<typeof tokens>["auth"], states: ConnectionState[] = []) {
  const realtime = realtimeOf(auth, { onStateChange: (state: ConnectionState) => states.push(state) });
  const events = realtime.subscribe("subscription { onPost { id } }");
  const first = events.next();
  await server.until(() => server.connections[0]?.live.size === 1, "the start");
  server.publish({ data: { n: 1 } });
  assert.deepEqual(await within(first, "the first event"), { value: { n: 1 }, done: false });
  return { realtime, events, start: startsOn(0)[0]! };
}

/** Sends the error `payload` for subscription `id` on socket number `index`. */
const refuse = (index: number, id: string, error: object) =>
  server.connections[index]!.send({ type: "error", id, payload: { errors: [error] } });

const endsWith = (expected: object) => (error: unknown) => {
  assert.ok(error instanceof ServiceGraphQLError, String(error));
  assert.deepEqual(error.errors, [expected]);
  return true;
};

describe("RealtimeClient, a token that expires while its socket lives", () => {
  useRealtimeServer();
  afterEach(() => {
    Date.now = realNow;
  });

  it("opens a new socket with fresh auth, starts the subscription again, and goes on", async () => {
    const getter = tokens();
    const states: ConnectionState[] = [];
    const { events, start } = await live(getter.auth, states);
    assert.equal(getter.calls, 2, "the socket's token and the start's");
    refuse(0, start.id, EXPIRED);
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    assert.ok(server.connections[0]!.ended, "the refusing socket is closed");
    // Both read after the refusal: the new socket's token and its start's.
    assert.equal(server.connections[1]!.header!.authorization, "token-3");
    assert.equal(startsOn(1)[0]!.payload.extensions.authorization.authorization, "token-4");
    assert.equal(startsOn(1)[0]!.payload.data, start.payload.data);
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(events.next(), "the event after"), { value: { n: 2 }, done: false });
    assert.deepEqual(states, ["connecting", "connected", "reconnecting", "connected"]);
  });

  for (const order of ["first", "second"]) {
    it(`opens one new socket for every subscription refused at once (the ${order} refused first)`, async () => {
      const getter = tokens();
      const { realtime, events, start } = await live(getter.auth);
      const other = realtime.subscribe("subscription { onComment { id } }");
      const otherNext = other.next();
      await server.until(() => server.connections[0]?.live.size === 2, "the second start");
      const ids = [start.id, startsOn(0)[1]!.id];
      for (const id of order == "first" ? ids : ids.reverse()) refuse(0, id, EXPIRED);
      await server.until(() => server.connections[1]?.live.size === 2, "both started on a new socket");
      await pause(50);
      assert.equal(server.connections.length, 2);
      server.publish({ data: { n: 2 } });
      assert.deepEqual((await within(events.next(), "the first's event")).value, { n: 2 });
      assert.deepEqual((await within(otherNext, "the second's event")).value, { n: 2 });
    });
  }

  it("renews whatever the order of the error's fields (its message first)", async () => {
    const { events, start } = await live(tokens().auth);
    refuse(0, start.id, { message: EXPIRED.message, errorType: EXPIRED.errorType });
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(events.next(), "the event after"), { value: { n: 2 }, done: false });
  });

  it("ends the subscriptions with the getter's error when it fails then: no socket retried", async () => {
    const getter = tokens(3);
    const states: ConnectionState[] = [];
    const { realtime, events, start } = await live(getter.auth, states);
    refuse(0, start.id, EXPIRED);
    await assert.rejects(within(events.next(), "the end"), (error: unknown) => {
      assert.ok(error instanceof ServiceAuthError, String(error));
      assert.equal(error.code, "AUTH_ERROR");
      return true;
    });
    await pause(300);
    assert.equal(getter.calls, 3, "the getter was asked once more, not retried");
    assert.equal(server.connections.length, 1);
    assert.equal(realtime.state, "closed");
    assert.deepEqual(states, ["connecting", "connected", "reconnecting", "closed"]);
  });

  it("ends it with the refusal when the new socket's start is refused as expired too: no loop", async () => {
    const getter = tokens();
    const { events, start } = await live(getter.auth);
    refuse(0, start.id, EXPIRED);
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    later(59_000);
    refuse(1, startsOn(1)[0]!.id, EXPIRED);
    await assert.rejects(within(events.next(), "the refusal"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 2);
  });

  it("renews again when the token expires again more than a minute later", async () => {
    const getter = tokens();
    const { events, start } = await live(getter.auth);
    refuse(0, start.id, EXPIRED);
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a second socket");
    later(61_000);
    refuse(1, startsOn(1)[0]!.id, EXPIRED);
    await server.until(() => server.connections[2]?.live.size === 1, "the start on a third socket");
    assert.equal(server.connections[2]!.header!.authorization, "token-5");
    server.publish({ data: { n: 3 } });
    assert.deepEqual(await within(events.next(), "the event after"), { value: { n: 3 }, done: false });
  });

  it("renews a subscription started again after a lost socket, however recent its start_ack", async () => {
    const getter = tokens();
    const { events } = await live(getter.auth);
    server.dropAll();
    await server.until(() => server.connections[1]?.live.size === 1, "the restart on a second socket");
    refuse(1, startsOn(1)[0]!.id, EXPIRED);
    await server.until(() => server.connections[2]?.live.size === 1, "the start on a third socket");
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(events.next(), "the event after"), { value: { n: 2 }, done: false });
  });

  it("ends a first start refused as expired before its start_ack: no new socket", async () => {
    server.behaviour.holdStartAcks = true;
    const realtime = realtimeOf(tokens().auth);
    const next = realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => startsOn(0).length === 1, "the start");
    refuse(0, startsOn(0)[0]!.id, EXPIRED);
    await assert.rejects(within(next, "the refusal"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 1);
  });

  it("ends a restart refused as expired before its start_ack: no new socket", async () => {
    const getter = tokens();
    const { events } = await live(getter.auth);
    server.behaviour.holdStartAcks = true;
    server.dropAll();
    await server.until(() => startsOn(1).length === 1, "the restart");
    refuse(1, startsOn(1)[0]!.id, EXPIRED);
    await assert.rejects(within(events.next(), "the refusal"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 2);
  });

  for (
    const refusal of [
      { errorType: "UnauthorizedException", message: "Not authorized to access onPost on type Subscription" },
      { errorType: "ValidationError", message: "Field 'expiredAt' in type 'Post' is undefined" },
      { errorType: "Unauthorized", message: "Not Authorized to access expiredAt on type Post" },
    ]
  ) {
    it(`ends it with a refusal that does not say a token expired: ${refusal.message}`, async () => {
      const { events, start } = await live(tokens().auth);
      refuse(0, start.id, refusal);
      await assert.rejects(within(events.next(), "the refusal"), endsWith(refusal));
      await pause(300);
      assert.equal(server.connections.length, 1);
    });
  }

  it("ends it with an event whose error says a token expired: the resolver's words, delivered", async () => {
    const { events, start } = await live(tokens().auth);
    server.connections[0]!.send({ type: "data", id: start.id, payload: { data: null, errors: [EXPIRED] } });
    await assert.rejects(within(events.next(), "the event's error"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 1);
  });

  it("leaves the others alone when a subscription that ended is refused as expired", async () => {
    const { realtime, events, start } = await live(tokens().auth);
    const other = realtime.subscribe("subscription { onComment { id } }");
    other.next();
    await server.until(() => server.connections[0]?.live.size === 2, "the second start");
    await events.return();
    refuse(0, start.id, EXPIRED);
    await pause(300);
    assert.equal(server.connections.length, 1);
    assert.equal(realtime.state, "connected");
  });
});
