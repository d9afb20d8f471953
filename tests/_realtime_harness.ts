/**
 * What the real-time tests share (`realtime_test.ts`, the protocol and the arguments;
 * `realtime_recovery_test.ts`, timeouts, reconnects and failing getters): a local server that follows
 * the service's real-time guide (`_realtime_server.ts`), fresh for each test, and the clients made
 * against it, closed after each test.
 *
 * Time is injected only where a timeout of the client's is the subject (15 s for a `start_ack`, the
 * keep-alive timeout of at least 60 s, the backoff's waits): {@link clientTimers} runs those timers of
 * the client sooner, and moves the client's clock on as a sleeping machine's would.
 *
 * @module
 */

import { afterEach, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { ServiceClient } from "../mod.ts";
import { RealtimeClient, type WebSocketConstructor } from "../src/realtime.ts";
import type { AuthOptions } from "../src/auth.ts";
import { type Message, type RealtimeServer, startRealtimeServer } from "./_realtime_server.ts";

/** The runtime's WebSocket, or `ws`'s where there is none (Node 18 and 20). */
export async function webSocketClass(): Promise<WebSocketConstructor> {
  if (globalThis.WebSocket) return globalThis.WebSocket;
  const name = "ws";
  return (await import(name)).WebSocket;
}

export const API_KEY = "da2-secret-api-key-value";
/** The message of an error the service sent without one. */
export const MALFORMED = "Malformed message";
/** The WebSocket the tests give the client: {@link webSocketClass}'s. */
export const RuntimeWebSocket: WebSocketConstructor = await webSocketClass();
/** Whether the sockets of this runtime can be cut without a close handshake (`ws`'s and Bun's can). */
export const CAN_TERMINATE: boolean = typeof RuntimeWebSocket.prototype.terminate == "function";

/** A frame of the client's source or build on a stack: its timers are the ones {@link clientTimers} changes. */
const FROM_CLIENT = /[/\\]src[/\\]realtime(_connection)?\.[cm]?[jt]s\b/;

/** The client's timers during one test, as {@link clientTimers} replaced them. */
export interface ClientTimers {
  /** The delays the client asked for, in order. */
  readonly asked: number[];
  /** The client's timers that have neither run nor been cleared. */
  readonly pending: Set<unknown>;
  /** Moves the client's clock (`Date.now()` as its sources read it) on by `ms` and runs no timer: a sleep. */
  jump(ms: number): void;
  /** Puts the runtime's timers and clock back. */
  restore(): void;
}

/**
 * Replaces the global timers until `restore()`: a timer the client sets with a delay found in
 * `sooner` (or, for a function, any delay) runs after the delay it gives instead; every other timer
 * (the tests', the server's, the runtime's) is left alone. With `clock`, each such timer also moves
 * the client's clock on by the time it cut short when it runs, so that the client's `Date.now()` agrees
 * with its timers.
 */
export function clientTimers(
  sooner: Record<number, number> | ((ms: number) => number) = {},
  { clock = false } = {},
): ClientTimers {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const now = Date.now;
  const fromClient = () => FROM_CLIENT.test(new Error().stack ?? "");
  const asked: number[] = [];
  const pending = new Set<unknown>();
  let ahead = 0;
  Date.now = () => now() + (fromClient() ? ahead : 0);
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => {
    if (!fromClient()) return set(callback, ms, ...args);
    asked.push(ms);
    const delay = typeof sooner == "function" ? sooner(ms) : sooner[ms] ?? ms;
    const handle = set(
      (...given: unknown[]) => {
        pending.delete(handle);
        if (clock) ahead += ms - delay;
        callback(...given);
      },
      delay,
      ...args,
    );
    pending.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle);
    clear(handle);
  }) as typeof clearTimeout;
  const timers = {
    asked,
    pending,
    jump: (ms: number) => void (ahead += ms),
    restore() {
      Object.assign(globalThis, { setTimeout: set, clearTimeout: clear });
      Date.now = now;
    },
  };
  installed.push(timers);
  return timers;
}

/** The timers {@link clientTimers} installed during the current test, put back after it. */
const installed: ClientTimers[] = [];

/** Settles as `promise` does, or rejects after `ms`: a failure, where the client would wait forever. */
export async function within<T>(promise: Promise<T>, what: string, ms = 3_000): Promise<T> {
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
export const pause = (ms: number): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, ms));

/** The current test's server (a live binding: a new server for each test). */
export let server: RealtimeServer;
const opened: RealtimeClient[] = [];

/** Gives each test of the calling `describe` a fresh server, and cleans up after it. */
export function useRealtimeServer(): void {
  beforeEach(async () => {
    server = await startRealtimeServer();
  });
  afterEach(async () => {
    for (const timers of installed.splice(0).reverse()) timers.restore();
    for (const realtime of opened.splice(0)) realtime.close();
    await server.close();
  });
}

/** A client of the server (or of `url`) with `auth` (and `clientOptions`), and its realtime client. */
export function realtimeOf(
  auth: AuthOptions = { type: "apiKey", apiKey: API_KEY },
  options: Record<string, unknown> = {},
  url: string = server.url,
  clientOptions: { signal?: AbortSignal } = {},
): RealtimeClient {
  const client = new ServiceClient({ url, auth, ...clientOptions });
  const realtime = new RealtimeClient(client, { webSocket: RuntimeWebSocket, ...options });
  opened.push(realtime);
  return realtime;
}

/** The `start` messages the server's socket number `index` received. */
export const startsOn = (index: number): Message[] =>
  server.connections[index]?.received.filter((message) => message.type === "start") ?? [];

/**
 * Waits for the start on the server's socket number `index`, then publishes an event and waits for
 * `next` (a subscription's read) to get it: the last message of that socket, until the test sends more.
 */
export async function startedAndHeard(index: number, next: Promise<unknown>): Promise<void> {
  await server.until(() => server.connections[index]?.live.size === 1, `the start on socket ${index}`);
  server.publish({ data: { n: 1 } });
  await within(next, `the event on socket ${index}`);
}

/**
 * Subscribes through a socket whose ack carries `ackPayload` and that then stays silent, and moves the
 * client's clock on (`timers` must run the client's 5 s checks sooner): asserts that the socket is kept
 * until a second before `ms` and closed within a second after it.
 */
export async function assertWatchedFor(timers: ClientTimers, ackPayload: object, ms: number): Promise<void> {
  server.behaviour.ackPayload = ackPayload;
  const first = server.connections.length;
  const realtime = realtimeOf();
  await startedAndHeard(first, realtime.subscribe("subscription { onPost { id } }").next());
  const socket = server.connections[first]!;
  timers.jump(ms - 1_000);
  await pause(100);
  assert.equal(socket.closed, false, `given up before ${ms} ms`);
  timers.jump(2_000);
  // At its next check: a wait of seconds would let the real time make up a timeout a little too long.
  await within(server.until(() => socket.closed, "the close"), `the close after ${ms} ms`, 300);
  realtime.close();
}
