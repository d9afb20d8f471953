/**
 * A local real-time server for the tests: the service's WebSocket protocol as its guide describes it
 * ("Building a real-time WebSocket client"), on `node:http` with the WebSocket handshake and framing
 * written out (RFC 6455, text frames only), so that it runs unchanged under Deno, Node and Bun on
 * 127.0.0.1, port 0.
 *
 * What it does by default: requires the subprotocol `graphql-ws`; reads the auth header object from a
 * `header-…` subprotocol or the `header` query parameter; answers `connection_init` with
 * `connection_ack`; acknowledges each `start`, refuses the 101st on a socket with
 * `MaxSubscriptionsReachedError`; answers `stop` with `complete`. Tests change its behaviour through
 * {@link RealtimeServer.behaviour} and drive it (publish, drop, close) to see what the client does.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Buffer } from "node:buffer";

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

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** Starts a server on 127.0.0.1, port 0. */
export async function startRealtimeServer(): Promise<RealtimeServer> {
  const connections: Connection[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const held: [Connection, string][] = [];
  const waiters = new Set<() => void>();
  const changed = () => waiters.forEach((check) => check());
  const behaviour: Behaviour = { ackPayload: { connectionTimeoutMs: 300_000 }, holdStartAcks: false };

  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on("upgrade", (request: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const protocols = String(request.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim())
      .filter(Boolean);
    const query = new URL(request.url ?? "/", "http://x").searchParams.get("header");
    const fromProtocol = protocols.find((p) => p.startsWith("header-"))?.slice(7);
    const encoded = fromProtocol ?? query;
    const header = encoded
      ? JSON.parse(Buffer.from(encoded.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString())
      : undefined;
    const key = String(request.headers["sec-websocket-key"]);
    const accept = createHash("sha1").update(key + GUID).digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n` +
        (protocols.includes("graphql-ws") ? "Sec-WebSocket-Protocol: graphql-ws\r\n" : "") + "\r\n",
    );
    const connection: Connection = {
      path: request.url ?? "/",
      protocols,
      header,
      received: [],
      live: new Map(),
      closed: false,
      ended: false,
      kaSent: 0,
      send: (message) => connection.sendText(JSON.stringify(message)),
      sendText: (text) => !connection.closed && socket.write(frame(1, Buffer.from(text))),
      destroy: () => socket.destroy(),
    };
    connections.push(connection);
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    socket.on("end", () => {
      connection.ended = true;
      changed();
    });
    socket.on("close", () => {
      connection.closed = connection.ended = true;
      clearInterval(keepAlive);
      timers.delete(keepAlive!);
      changed();
    });
    if (!protocols.includes("graphql-ws")) {
      connection.send({
        type: "connection_error",
        payload: { errors: [{ errorType: "SubProtocolNotSupportedError" }] },
      });
      socket.end(frame(8, Buffer.from([0x03, 0xea])));
      changed();
      return;
    }
    const onMessage = (message: Message) => {
      connection.received.push(message);
      if (message.type === "connection_init") {
        const refusal = behaviour.refuseConnect?.(connection);
        if (refusal) {
          connection.send({ type: "connection_error", payload: refusal });
          socket.end(frame(8, Buffer.from([0x03, 0xe8])));
        } else {
          connection.send({ type: "connection_ack", payload: behaviour.ackPayload });
          if (behaviour.keepAliveMs) {
            keepAlive = setInterval(() => {
              connection.send({ type: "ka" });
              connection.kaSent++;
              changed();
            }, behaviour.keepAliveMs);
            timers.add(keepAlive);
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
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let parsed; (parsed = unframe(buffered));) {
        buffered = buffered.subarray(parsed.length);
        if (parsed.opcode === 1) onMessage(JSON.parse(parsed.payload.toString()));
        else if (parsed.opcode === 8) {
          if (!behaviour.ignoreClose) socket.end(frame(8, parsed.payload.subarray(0, 2)));
        } else if (parsed.opcode === 9) socket.write(frame(10, parsed.payload));
      }
    });
    changed();
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
    until(check, what) {
      return new Promise((resolve, reject) => {
        const verify = () => {
          if (!check()) return;
          waiters.delete(verify);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(verify);
          reject(new Error(`Timed out waiting for ${what}`));
        }, 5_000);
        waiters.add(verify);
        verify();
      });
    },
    dropAll() {
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server frame (never masked). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = Buffer.alloc(length < 126 ? 2 : length < 65_536 ? 4 : 10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) [head[1], head[2], head[3]] = [126, length >> 8, length & 255];
  else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

/** The first whole client frame of `data` (masked, as clients send them), or undefined. */
function unframe(data: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (data.length < 2) return undefined;
  let length = data[1]! & 127;
  let offset = 2;
  if (length === 126) [length, offset] = [data.readUInt16BE(2), 4];
  else if (length === 127) [length, offset] = [Number(data.readBigUInt64BE(2)), 10];
  const masked = (data[1]! & 128) !== 0;
  const start = offset + (masked ? 4 : 0);
  if (data.length < start + length) return undefined;
  const payload = Buffer.from(data.subarray(start, start + length));
  if (masked) { for (let i = 0; i < length; i++) payload[i]! ^= data[offset + (i & 3)]!; }
  return { opcode: data[0]! & 15, payload, length: start + length };
}
