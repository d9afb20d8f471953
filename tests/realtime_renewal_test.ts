/**
 * `RealtimeClient` when a token expires while its socket lives: the service refuses a live subscription
 * with "UnauthorizedException: Token has expired." (or sends it an event whose error says so), and the
 * client opens a new socket with fresh auth and starts every subscription again, against the local
 * real-time server (`_realtime_harness.ts`). Also what ends a subscription instead: a getter that fails
 * for the new socket, a refusal that does not say a token expired, and a subscription acknowledged a
 * minute ago or less (a service that acknowledges and then refuses makes no loop).
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
    later(61_000);
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

  it("does the same for an event whose error says the token expired", async () => {
    const getter = tokens();
    const { events, start } = await live(getter.auth);
    later(61_000);
    server.connections[0]!.send({ type: "data", id: start.id, payload: { data: null, errors: [EXPIRED] } });
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    assert.equal(server.connections[1]!.header!.authorization, "token-3");
    server.publish({ data: { n: 2 } });
    assert.deepEqual(await within(events.next(), "the event after"), { value: { n: 2 }, done: false });
  });

  it("starts every subscription of the socket again, on one new socket", async () => {
    const getter = tokens();
    const { realtime, events, start } = await live(getter.auth);
    const other = realtime.subscribe("subscription { onComment { id } }");
    const otherNext = other.next();
    await server.until(() => server.connections[0]?.live.size === 2, "the second start");
    later(61_000);
    refuse(0, start.id, EXPIRED);
    await server.until(() => server.connections[1]?.live.size === 2, "both started on a new socket");
    await pause(50);
    assert.equal(server.connections.length, 2);
    server.publish({ data: { n: 2 } });
    assert.deepEqual((await within(events.next(), "the first's event")).value, { n: 2 });
    assert.deepEqual((await within(otherNext, "the second's event")).value, { n: 2 });
  });

  it("ends the subscriptions with the getter's error when it fails then: no socket retried", async () => {
    const getter = tokens(3);
    const states: ConnectionState[] = [];
    const { realtime, events, start } = await live(getter.auth, states);
    later(61_000);
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
    later(61_000);
    refuse(0, start.id, EXPIRED);
    await server.until(() => server.connections[1]?.live.size === 1, "the start on a new socket");
    refuse(1, startsOn(1)[0]!.id, EXPIRED);
    await assert.rejects(within(events.next(), "the refusal"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 2);
  });

  it("ends it with the refusal when its start_ack came less than a minute ago", async () => {
    const getter = tokens();
    const { events, start } = await live(getter.auth);
    later(59_000);
    refuse(0, start.id, EXPIRED);
    await assert.rejects(within(events.next(), "the refusal"), endsWith(EXPIRED));
    await pause(300);
    assert.equal(server.connections.length, 1);
    assert.equal(getter.calls, 2);
  });

  for (
    const refusal of [
      { errorType: "UnauthorizedException", message: "Not authorized to access onPost on type Subscription" },
      { errorType: "ValidationError", message: "Field 'expiredAt' in type 'Post' is undefined" },
    ]
  ) {
    it(`ends it with a refusal that does not say a token expired: ${refusal.errorType}`, async () => {
      const getter = tokens();
      const { events, start } = await live(getter.auth);
      later(61_000);
      refuse(0, start.id, refusal);
      await assert.rejects(within(events.next(), "the refusal"), endsWith(refusal));
      await pause(300);
      assert.equal(server.connections.length, 1);
    });
  }

  it("leaves the others alone when a subscription that ended is refused as expired", async () => {
    const getter = tokens();
    const { realtime, events, start } = await live(getter.auth);
    const other = realtime.subscribe("subscription { onComment { id } }");
    other.next();
    await server.until(() => server.connections[0]?.live.size === 2, "the second start");
    later(61_000);
    await events.return();
    refuse(0, start.id, EXPIRED);
    await pause(300);
    assert.equal(server.connections.length, 1);
    assert.equal(realtime.state, "connected");
  });
});
