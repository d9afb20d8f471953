/**
 * The real-time checks the worker and edge runs make inside their runtime, through its global
 * `WebSocket`, against the local real-time server (`realtime_host.ts` starts it and answers each
 * `start` with one event whose `id` is the subscription's `tag` variable): a subscription receives
 * its own event and `break` ends it, then the idle socket closes; a second one opens a new socket,
 * receives its event, and `close()` ends it. For a Durable Object, a subscription opened in one
 * request is kept, and a later request subscribes over the same socket, then closes both.
 *
 * Runtime-neutral, as `checks.ts`: the package comes in through {@link RealtimeContext}. What the
 * server saw (a `stop` for every `start`, the sockets closed) is checked by the runner.
 *
 * @module
 */

import type * as Client from "../../../mod.ts";
import type * as Realtime from "../../../src/realtime.ts";
import { API_KEY } from "../../../tests/_fixtures.ts";
import { type CheckResult, expect, timedCheck } from "./checks.ts";

/** What the real-time checks run against. */
export interface RealtimeContext {
  /** The package's main entry, as the runtime loaded it. */
  readonly lib: typeof Client;
  /** The package's `./realtime` entry, from the same bundle. */
  readonly realtime: typeof Realtime;
  /** The real-time server's GraphQL URL, `http://127.0.0.1:PORT/graphql`. */
  readonly url: string;
}

/** The subscription every check sends; the server's event echoes `$tag` as `onPost.id`. */
export const DOCUMENT = "subscription OnPost($tag: String!) { onPost(tag: $tag) { id } }";

interface Post {
  onPost: { id: string };
}

/** A client and the states it went through, in order. */
interface Watched {
  readonly realtime: Realtime.RealtimeClient;
  readonly states: Realtime.ConnectionState[];
  /** Resolves once the states seen so far, joined by commas, are `expected`. */
  until(expected: string): Promise<void>;
}

function watched(context: RealtimeContext): Watched {
  const states: Realtime.ConnectionState[] = [];
  const waiting = new Set<() => void>();
  const client = new context.lib.ServiceClient({
    url: context.url,
    auth: { type: "apiKey", apiKey: API_KEY },
  });
  const realtime = new context.realtime.RealtimeClient(client, {
    onStateChange: (state) => {
      states.push(state);
      waiting.forEach((verify) => verify());
    },
  });
  const until = (expected: string) =>
    new Promise<void>((resolve) => {
      const verify = () => {
        if (states.join() !== expected) return;
        waiting.delete(verify);
        resolve();
      };
      waiting.add(verify);
      verify();
    });
  return { realtime, states, until };
}

/** Expects `data` to be the event of the subscription tagged `tag`. */
function expectEvent(data: Post, tag: string): void {
  expect(data?.onPost?.id === tag, `expected the event of ${tag}, got ${JSON.stringify(data)}`);
}

/** Runs `run` as one check (`timedCheck`); a failure names the states seen. */
function timed(name: string, watch: Watched, run: () => Promise<void>): Promise<CheckResult> {
  return timedCheck(name, run, () => ` (states: ${watch.states.join()})`);
}

/**
 * Subscribes, checks the first event, ends with `break` and waits for the idle socket to close;
 * subscribes again on the same client, checks that event, and ends with `close()`.
 *
 * @param context The package and the server.
 * @returns One result per check, in order.
 */
export async function runRealtimeChecks(context: RealtimeContext): Promise<CheckResult[]> {
  const watch = watched(context);
  const { realtime } = watch;
  try {
    const results = [
      await timed(
        "realtime: a subscription receives its event through the global WebSocket, break ends it, and the idle socket closes",
        watch,
        async () => {
          let events = 0;
          for await (const data of realtime.subscribe<Post, { tag: string }>(DOCUMENT, { tag: "break" })) {
            expectEvent(data, "break");
            events++;
            break;
          }
          expect(events === 1, "the subscription ended without an event");
          await watch.until("connecting,connected,closed");
        },
      ),
    ];
    results.push(
      await timed(
        "realtime: a second subscription opens a new socket, receives its event, and close() ends it",
        watch,
        async () => {
          let events = 0;
          for await (const data of realtime.subscribe<Post, { tag: string }>(DOCUMENT, { tag: "close" })) {
            expectEvent(data, "close");
            events++;
            // The loop's next read must then be done: close() ends every subscription.
            realtime.close();
          }
          expect(events === 1, `the subscription ended after ${events} events, not 1`);
          await watch.until("connecting,connected,closed,connecting,connected,closed");
        },
      ),
    );
    return results;
  } finally {
    realtime.close();
  }
}

/** What a Durable Object keeps between two requests: its client and a live subscription. */
export interface Held {
  readonly watch: Watched;
  readonly subscription: Realtime.Subscription<Post>;
}

/**
 * The first request of a Durable Object: subscribes, reads the first event, and keeps the
 * subscription live.
 *
 * @param context The package and the server.
 * @returns The check's result, and what to keep for {@link reuseHeld}.
 */
export async function openHeld(context: RealtimeContext): Promise<[CheckResult, Held]> {
  const watch = watched(context);
  const subscription = watch.realtime.subscribe<Post, { tag: string }>(DOCUMENT, { tag: "held" });
  const result = await timed(
    "realtime, Durable Object: a subscription receives its event in one request and stays live",
    watch,
    async () => {
      const first = await subscription.next();
      expect(!first.done, "the subscription ended without an event");
      expectEvent(first.value, "held");
      expect(watch.realtime.state === "connected", `state ${watch.realtime.state}`);
    },
  );
  if (!result.ok) watch.realtime.close();
  return [result, { watch, subscription }];
}

/**
 * A later request of the same Durable Object: subscribes on the kept client (its socket, opened by
 * the first request), reads that event and ends that subscription with `break`, then `close()` ends
 * the kept one.
 *
 * @param held What {@link openHeld} kept (a failure when nothing was).
 * @returns The check's result.
 */
export async function reuseHeld(held: Held | undefined): Promise<CheckResult> {
  const name =
    "realtime, Durable Object: a later request subscribes over the same socket and breaks, then close() ends the kept subscription";
  if (!held) return { name, ok: false, ms: 0, error: "the first request kept no client" };
  const { watch, subscription } = held;
  const { realtime } = watch;
  try {
    return await timed(
      name,
      watch,
      async () => {
        const pending = subscription.next();
        let events = 0;
        for await (const data of realtime.subscribe<Post, { tag: string }>(DOCUMENT, { tag: "reused" })) {
          expectEvent(data, "reused");
          events++;
          break;
        }
        expect(events === 1, "the second subscription ended without an event");
        expect(realtime.state === "connected", `state ${realtime.state} with the kept subscription live`);
        realtime.close();
        const last = await pending;
        expect(last.done, `the kept subscription read ${JSON.stringify(last.value)} after close()`);
        await watch.until("connecting,connected,closed");
      },
    );
  } finally {
    realtime.close();
  }
}
