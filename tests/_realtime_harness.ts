/**
 * What the real-time tests share (`realtime_test.ts`, the protocol and the arguments;
 * `realtime_recovery_test.ts`, timeouts, reconnects and failing getters): a local server that follows
 * the service's real-time guide (`_realtime_server.ts`), fresh for each test, and the clients made
 * against it, closed after each test.
 *
 * Time is injected only where a timeout of the client's is the subject (15 s for a `start_ack`, the
 * keep-alive timeout of at least 60 s, the backoff's waits): {@link clientTimers} runs those timers of
 * the client sooner.
 *
 * @module
 */

import { afterEach, beforeEach } from "node:test";
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
  /** Puts the runtime's timers back. */
  restore(): void;
}

/**
 * Replaces the global timers until `restore()`: a timer the client sets with a delay found in
 * `sooner` (or, for a function, any delay) runs after the delay it gives instead; every other timer
 * (the tests', the server's, the runtime's) is left alone.
 */
export function clientTimers(sooner: Record<number, number> | ((ms: number) => number) = {}): ClientTimers {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const asked: number[] = [];
  const pending = new Set<unknown>();
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => {
    if (!FROM_CLIENT.test(new Error().stack ?? "")) return set(callback, ms, ...args);
    asked.push(ms);
    const handle = set(
      (...given: unknown[]) => {
        pending.delete(handle);
        callback(...given);
      },
      typeof sooner == "function" ? sooner(ms) : sooner[ms] ?? ms,
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
    restore: () => void Object.assign(globalThis, { setTimeout: set, clearTimeout: clear }),
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
