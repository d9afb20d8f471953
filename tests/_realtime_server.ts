/**
 * A local real-time server for the tests: the service's WebSocket protocol as its guide describes it
 * ("Building a real-time WebSocket client"), on `node:http` with the WebSocket handshake and framing
 * of `_websocket.ts` (RFC 6455, text frames only), so that it runs unchanged under Deno, Node and Bun
 * on 127.0.0.1, port 0.
 *
 * What it does by default: requires the subprotocol `graphql-ws`; reads the auth header object from a
 * `header-…` subprotocol or the `header` query parameter; answers `connection_init` with
 * `connection_ack`; acknowledges each `start`, refuses the 101st on a socket with
 * `MaxSubscriptionsReachedError`; answers `stop` with `complete`. Tests change its behaviour through
 * {@link RealtimeServer.behaviour} and drive it (publish, drop, close) to see what the client does.
 *
 * @module
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { acceptWebSockets, refuseWithoutGraphqlWs, waiters } from "./_websocket.ts";

/** A message of the protocol, as JSON. */
// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/** One client socket, as the server saw it. */
export interface Connection {
  /** The request's path and query. */
  readonly path: string;
  /** The subprotocols the client offered. */
  readonly protocols: readonly string[];
  /** The auth header object, from the `header-` subprotocol or the `header` query parameter. */
  readonly header: Record<string, string> | undefined;
  /** Every message received, in order. */
  readonly received: Message[];
  /** The ids of the subscriptions started and not stopped. */
  readonly live: Map<string, Message>;
  /** Whether the socket has closed. */
  closed: boolean;
  /** Whether the client ended its side of the TCP connection (or the socket has closed). */
  ended: boolean;
  /** How many `ka` messages it was sent. */
  kaSent: number;
  send(message: Message): void;
  /** Sends a text frame as it is, JSON or not. */
  sendText(text: string): void;
  /** Ends the TCP connection without a close frame: a lost network. */
  destroy(): void;
}

/** What the server does; tests change it. */
export interface Behaviour {
  /** The `connection_ack` payload. */
  ackPayload: Message;
  /** An error payload for a connection (sent as `connection_error`, then the socket closes), or none. */
  refuseConnect?: (connection: Connection) => Message | undefined;
  /** An error payload for a `start` (sent as `error` with its id), or none. */
  refuseStart?: (start: Message, connection: Connection) => Message | undefined;
  /** When true, `start`s are not acknowledged until {@link RealtimeServer.ackHeld}. */
  holdStartAcks: boolean;
  /** Sends `ka` at this interval when set. */
  keepAliveMs?: number;
  /** When true, a close frame is left unanswered and the TCP connection open: a frozen peer. */
  ignoreClose?: boolean;
}

/** The running server. */
export interface RealtimeServer {
  /** The GraphQL URL to give a `ServiceClient`: `http://127.0.0.1:PORT/graphql`. */
  readonly url: string;
  readonly connections: Connection[];
  readonly behaviour: Behaviour;
  /** Sends a `data` event to every live subscription. */
  publish(payload: Message): void;
  /** Acknowledges the `start`s held back by `holdStartAcks`. */
  ackHeld(): void;
  /** Resolves once `check()` holds, checked after every event of the server; rejects after 5 s. */
  until(check: () => boolean, what: string): Promise<void>;
  /** Ends every TCP connection without a close frame. */
  dropAll(): void;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0. */
export async function startRealtimeServer(): Promise<RealtimeServer> {
  const connections: Connection[] = [];
  const held: [Connection, string][] = [];
  const { changed, until } = waiters();
  const behaviour: Behaviour = { ackPayload: { connectionTimeoutMs: 300_000 }, holdStartAcks: false };

  const server = createServer((_request, response) => response.writeHead(404).end());
  const peers = acceptWebSockets(server, (peer) => {
    const connection: Connection = {
      path: peer.path,
      protocols: peer.protocols,
      header: peer.header,
      received: [],
      live: new Map(),
      closed: false,
      ended: false,
      kaSent: 0,
      send: (message) => connection.sendText(JSON.stringify(message)),
      sendText: (text) => !connection.closed && peer.sendText(text),
      destroy: () => peer.destroy(),
    };
    connections.push(connection);
    const refused = refuseWithoutGraphqlWs(peer);
    const onMessage = (message: Message) => {
      connection.received.push(message);
      if (message.type === "connection_init") {
        const refusal = behaviour.refuseConnect?.(connection);
        if (refusal) {
          connection.send({ type: "connection_error", payload: refusal });
          peer.close(1000);
        } else {
          connection.send({ type: "connection_ack", payload: behaviour.ackPayload });
          if (behaviour.keepAliveMs) {
            peer.every(behaviour.keepAliveMs, () => {
              connection.send({ type: "ka" });
              connection.kaSent++;
              changed();
            });
          }
        }
      } else if (message.type === "start") {
        const refusal = connection.live.size >= 100
          ? {
            errors: {
              errorType: "MaxSubscriptionsReachedError",
              message: "Max number of 100 subscriptions reached",
            },
          }
          : behaviour.refuseStart?.(message, connection);
        if (refusal) connection.send({ type: "error", id: message.id, payload: refusal });
        else {
          connection.live.set(message.id, message);
          if (behaviour.holdStartAcks) held.push([connection, message.id]);
          else connection.send({ type: "start_ack", id: message.id });
        }
      } else if (message.type === "stop") {
        connection.live.delete(message.id);
        connection.send({ type: "complete", id: message.id });
      }
      changed();
    };
    changed();
    return {
      // A socket refused for its subprotocol is not listened to.
      text: (text) => refused || onMessage(JSON.parse(text)),
      closeFrame: () => !behaviour.ignoreClose,
      end() {
        connection.ended = true;
        changed();
      },
      closed() {
        connection.closed = connection.ended = true;
        changed();
      },
    };
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/graphql`,
    connections,
    behaviour,
    publish(payload) {
      for (const connection of connections) {
        for (const id of connection.live.keys()) connection.send({ type: "data", id, payload });
      }
    },
    ackHeld() {
      for (const [connection, id] of held.splice(0)) connection.send({ type: "start_ack", id });
    },
    until,
    dropAll: peers.dropAll,
    close() {
      peers.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
