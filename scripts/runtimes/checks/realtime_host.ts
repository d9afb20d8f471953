/**
 * The runner's side of the real-time checks of the worker and edge runs (`realtime_checks.ts`): the
 * local real-time server of the tests (`tests/_realtime_server.ts`), set to accept the fixtures' API
 * key only and to answer each `start` with one event carrying the subscription's `tag` variable, and
 * the check of what it saw once the runtime is done.
 *
 * @module
 */

import { API_KEY } from "../../../tests/_fixtures.ts";
import { type RealtimeServer, startRealtimeServer } from "../../../tests/_realtime_server.ts";
import type { CheckLine } from "../common.ts";

/**
 * Starts the server on 127.0.0.1, port 0: a socket without the fixtures' API key in its auth header
 * is refused (`connection_error` 401), and each `start` gets one `data` event after its `start_ack`,
 * `{ onPost: { id: <its tag variable> } }`.
 *
 * @returns The running server; close it when done.
 */
export async function startAnsweringServer(): Promise<RealtimeServer> {
  const server = await startRealtimeServer();
  server.behaviour.refuseConnect = (connection) =>
    connection.header?.["x-api-key"] === API_KEY ? undefined : {
      errors: [{ errorType: "UnauthorizedException", errorCode: 401, message: "You are not authorized" }],
    };
  // The only hook the server calls on a `start`: it refuses nothing here, and queues the event,
  // which is sent after the `start_ack` the server sends next.
  server.behaviour.refuseStart = (start, connection) => {
    const tag = tagOf(start.payload?.data);
    queueMicrotask(() =>
      connection.send({ type: "data", id: start.id, payload: { data: { onPost: { id: tag } } } })
    );
    return undefined;
  };
  return server;
}

/** The `tag` variable of a `start` payload's `data` (the operation as JSON text). */
function tagOf(data: unknown): string {
  try {
    return String(JSON.parse(String(data)).variables?.tag);
  } catch {
    return "no variables";
  }
}

/** What the server must have seen: the line's name, then the counts and tags {@link serverLine} checks. */
export interface Expected {
  readonly name: string;
  /** How many subscriptions the runtime was to start. */
  readonly starts: number;
  /** On how many sockets. */
  readonly sockets: number;
  /** The tags of the subscriptions it ended with `break`, each of which must have had its `stop`. */
  readonly stopped: readonly string[];
}

/** What `runRealtimeChecks` leaves the server to see. */
export const AFTER_REALTIME_CHECKS: Expected = {
  name:
    "realtime: the server saw the key in a header- subprotocol, two sockets, a stop after break, and both sockets closed",
  starts: 2,
  sockets: 2,
  stopped: ["break"],
};

/** What `openHeld` and `reuseHeld`, in two requests of a Durable Object, leave the server to see. */
export const AFTER_HELD_CHECKS: Expected = {
  name:
    "realtime, Durable Object: the server saw both subscriptions on one socket, a stop after break, and its close",
  starts: 2,
  sockets: 1,
  stopped: ["reused"],
};

/**
 * Waits (5 s at most) until each socket has closed and each subscription tagged as in `stopped` has
 * had its `stop`, then checks that the server saw `starts` subscriptions on `sockets` sockets, each
 * socket with `graphql-ws` and the API key in a `header-` subprotocol, none in its URL. (`close()`
 * closes the socket without a `stop` for the subscriptions still live: the service ends them with it.)
 *
 * @param server The server the runtime used.
 * @param expected What it must have seen, and the line's name.
 * @returns The check's line.
 */
export async function serverLine(server: RealtimeServer, expected: Expected): Promise<CheckLine> {
  const started = performance.now();
  const messages = (type: string) =>
    server.connections.flatMap((connection) =>
      connection.received.filter((message) => message.type === type)
    );
  const stoppedTags = () => {
    const stops = new Set(messages("stop").map((message) => message.id));
    return messages("start").filter((start) => stops.has(start.id)).map((start) =>
      tagOf(start.payload?.data)
    );
  };
  const done = () =>
    messages("start").length >= expected.starts &&
    server.connections.every((connection) => connection.closed) &&
    expected.stopped.every((tag) => stoppedTags().includes(tag));
  let error: string | undefined;
  try {
    await server.until(
      done,
      `${expected.starts} starts, a stop for ${expected.stopped.join()}, every socket closed`,
    );
    const sockets = server.connections.map((connection) => ({
      protocols: connection.protocols.map((protocol) => protocol.replace(/^header-.*/, "header-…")),
      path: connection.path,
      key: connection.header?.["x-api-key"] === API_KEY,
    }));
    const wellFormed = sockets.every((socket) =>
      socket.protocols[0] === "graphql-ws" && socket.protocols[1] === "header-…" &&
      socket.path === "/graphql/realtime" && socket.key
    );
    if (sockets.length !== expected.sockets || messages("start").length !== expected.starts || !wellFormed) {
      error = `expected ${expected.starts} starts on ${expected.sockets} sockets; saw ${
        JSON.stringify({ starts: messages("start").length, sockets })
      }`;
    }
  } catch (err) {
    error = `${(err as Error).message}; saw ${JSON.stringify(seen(server))}`;
  }
  const ms = Math.round(performance.now() - started);
  return { name: expected.name, ok: error === undefined, ms, ...(error === undefined ? {} : { error }) };
}

/** What each socket received, by message type, and whether it closed. */
function seen(server: RealtimeServer): unknown {
  return server.connections.map((connection) => ({
    received: connection.received.map((message) => message.type),
    closed: connection.closed,
  }));
}
