/**
 * The WebSocket side of the local servers (`_realtime_server.ts`, and the endpoint's real-time in
 * `_server.ts`): the handshake and the framing of RFC 6455 written out (text frames only), attached
 * to a `node:http` server, so that they run unchanged under Deno, Node and Bun; and the waits on a
 * server's state that the tests use. What the service's protocol says over these frames is the
 * caller's.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { Buffer } from "node:buffer";

/** One client socket, once upgraded: what it asked for, and how to answer it. */
export interface Peer {
  /** The request's path and query. */
  readonly path: string;
  /** The subprotocols the client offered. */
  readonly protocols: readonly string[];
  /**
   * The auth header object, from the `header-` subprotocol (base64url) or the `header` query parameter
   * (base64); undefined when there is none, or it is not base64 of a JSON object.
   */
  readonly header: Record<string, string> | undefined;
  /** Sends a text frame (nothing once the socket has closed). */
  sendText(text: string): void;
  /** Sends a close frame with `code`, then ends the TCP connection. */
  close(code: number): void;
  /** Ends the TCP connection without a close frame: a lost network. */
  destroy(): void;
  /** Runs `task` every `ms` until the socket closes (or the sockets are closed). */
  every(ms: number, task: () => void): void;
}

/** What the caller does with a peer's frames and ends. */
export interface PeerHandlers {
  /** A text frame arrived. */
  text(text: string): void;
  /** A close frame arrived: answered with one (then the end) unless this returns false. */
  closeFrame?(): boolean;
  /** The client ended its side of the TCP connection. */
  end?(): void;
  /** The socket has closed. */
  closed?(): void;
}

/** The sockets attached to a server. */
export interface Peers {
  /** Ends every TCP connection without a close frame. */
  dropAll(): void;
  /** Stops every timer of {@link Peer.every} and ends every TCP connection. */
  close(): void;
}

/** Waits on a server's state: `until` checks again at each `changed()`. */
export interface Waiters {
  /** Checks the pending waits again. */
  changed(): void;
  /** Resolves once `check()` holds, checked now and at each `changed()`; rejects after 5 s. */
  until(check: () => boolean, what: string): Promise<void>;
}

/** Pending waits on a server's state; see {@link Waiters}. */
export function waiters(): Waiters {
  const pending = new Set<() => void>();
  return {
    changed: () => pending.forEach((verify) => verify()),
    until: (check, what) =>
      new Promise((resolve, reject) => {
        const verify = () => {
          if (!check()) return;
          pending.delete(verify);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          pending.delete(verify);
          reject(new Error(`Timed out waiting for ${what}`));
        }, 5_000);
        pending.add(verify);
        verify();
      }),
  };
}

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * Answers the WebSocket upgrades of `server`: for each request `accepts` takes (all by default), the
 * 101 (naming `graphql-ws` when the client offered it), then `open`, whose handlers get the frames.
 * Other upgrades are answered 404 and closed.
 */
export function acceptWebSockets(
  server: Server,
  open: (peer: Peer) => PeerHandlers,
  accepts: (request: IncomingMessage) => boolean = () => true,
): Peers {
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  server.on("upgrade", (request: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (!accepts(request)) {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    const protocols = String(request.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim())
      .filter(Boolean);
    const key = String(request.headers["sec-websocket-key"]);
    const accept = createHash("sha1").update(key + GUID).digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n` +
        (protocols.includes("graphql-ws") ? "Sec-WebSocket-Protocol: graphql-ws\r\n" : "") + "\r\n",
    );
    let closed = false;
    const own = new Set<ReturnType<typeof setInterval>>();
    const peer: Peer = {
      path: request.url ?? "/",
      protocols,
      header: headerOf(request.url ?? "/", protocols),
      sendText: (text) => void (!closed && socket.write(frame(1, Buffer.from(text)))),
      close: (code) => void socket.end(frame(8, Buffer.from([code >> 8, code & 255]))),
      destroy: () => socket.destroy(),
      every(ms, task) {
        const timer = setInterval(task, ms);
        own.add(timer);
        timers.add(timer);
      },
    };
    const handlers = open(peer);
    socket.on("end", () => handlers.end?.());
    socket.on("close", () => {
      closed = true;
      for (const timer of own) {
        clearInterval(timer);
        timers.delete(timer);
      }
      handlers.closed?.();
    });
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let parsed; (parsed = unframe(buffered));) {
        buffered = buffered.subarray(parsed.length);
        if (parsed.opcode === 1) handlers.text(parsed.payload.toString());
        else if (parsed.opcode === 8) {
          if (handlers.closeFrame?.() !== false) socket.end(frame(8, parsed.payload.subarray(0, 2)));
        } else if (parsed.opcode === 9) socket.write(frame(10, parsed.payload));
      }
    });
  });
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    dropAll,
    close() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      dropAll();
    },
  };
}

/**
 * Refuses a peer that did not offer the subprotocol `graphql-ws`, as the service does: a
 * `connection_error` of type `SubProtocolNotSupportedError`, then a close frame (1002).
 *
 * @returns Whether the peer was refused.
 */
export function refuseWithoutGraphqlWs(peer: Peer): boolean {
  if (peer.protocols.includes("graphql-ws")) return false;
  peer.sendText(JSON.stringify({
    type: "connection_error",
    payload: { errors: [{ errorType: "SubProtocolNotSupportedError" }] },
  }));
  peer.close(1002);
  return true;
}

/** The auth header object of an upgrade: its `header-` subprotocol, else its `header` query parameter. */
function headerOf(path: string, protocols: readonly string[]): Record<string, string> | undefined {
  const encoded = protocols.find((p) => p.startsWith("header-"))?.slice(7) ??
    new URL(path, "http://x").searchParams.get("header");
  if (!encoded) return undefined;
  try {
    const header = JSON.parse(
      Buffer.from(encoded.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString(),
    );
    return header !== null && typeof header === "object" && !Array.isArray(header) ? header : undefined;
  } catch {
    return undefined;
  }
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
  // TCP may cut a frame anywhere, its extended length included: until that has come, wait.
  if (length >= 126 && data.length < (length === 126 ? 4 : 10)) return undefined;
  if (length === 126) [length, offset] = [data.readUInt16BE(2), 4];
  else if (length === 127) [length, offset] = [Number(data.readBigUInt64BE(2)), 10];
  const masked = (data[1]! & 128) !== 0;
  const start = offset + (masked ? 4 : 0);
  if (data.length < start + length) return undefined;
  const payload = Buffer.from(data.subarray(start, start + length));
  if (masked) { for (let i = 0; i < length; i++) payload[i]! ^= data[offset + (i & 3)]!; }
  return { opcode: data[0]! & 15, payload, length: start + length };
}
