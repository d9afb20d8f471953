/**
 * A raw HTTP/1.1 server on `node:net` (127.0.0.1, port 0) that misbehaves on purpose, for the fault
 * tests: it can reset the connection, cut a body short, never answer, or trickle forever — things
 * `node:http` will not do. It reads one request per connection, hands it to the route's fault, and
 * counts open connections so a test can wait for the client to let go of every socket.
 *
 * Every answer it writes carries `connection: close` and ends the socket, so a connection that stays
 * open is one the client kept (or one a fault left hanging on purpose, which the client must close).
 * Only connections that carried a request count: Node's undici may open a spare connection after an
 * abort in the middle of a body and leave it idle (unref'd) until its keep-alive timeout; that one
 * never carries a request and is the runtime's pool, not a leak of the client.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type AddressInfo, createServer, type Socket } from "node:net";

/** A request as the fault server parsed it. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What a route does with a request: write anything (or nothing) to the socket. `count` is the
 * number of requests this route has received, this one included. Timers a fault starts must be
 * registered with `server.track` so `close()` can clear them.
 */
export type Fault = (socket: Socket, request: RawRequest, count: number) => void;

/** A running fault server. */
export interface FaultServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The URL of a route: `http://127.0.0.1:PORT/<name>/graphql`. */
  url(name: string): string;
  /** Answers `/<name>/graphql` with `fault`. Unknown routes are answered 404. */
  on(name: string, fault: Fault): void;
  /** How many requests a route has received. */
  count(name: string): number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections that carried a request and are open now. */
  readonly open: number;
  /** Keeps a fault's timer (timeout or interval) so that it is cleared when its socket closes or the server stops. */
  track(socket: Socket, timer: ReturnType<typeof setTimeout>): void;
  /**
   * Resolves once no connection that carried a request is open; rejects after `withinMs` with the
   * number still open (the client kept a socket, which is the leak the fault tests look for).
   */
  settled(withinMs?: number): Promise<void>;
  /** Destroys every connection, clears every timer, stops listening. */
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  200: "OK",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  404: "Not Found",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** The status line and headers of an answer, `connection: close` added. */
export function head(status: number, headers: Record<string, string | number> = {}): string {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? "Status"}`];
  for (const [name, value] of Object.entries({ ...headers, connection: "close" })) {
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/** Writes a whole answer with its content-length, then ends the connection. */
export function answer(
  socket: Socket,
  status: number,
  body: string | Uint8Array,
  headers: Record<string, string | number> = {},
): void {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  socket.write(
    head(status, { "content-type": "application/json", "content-length": bytes.length, ...headers }),
  );
  socket.end(bytes);
}

/** `{"data":{"hello":"world"}}`, the answer `{ hello }` expects. */
export function ok(socket: Socket): void {
  answer(socket, 200, '{"data":{"hello":"world"}}');
}

/** Resets the connection (TCP RST where the runtime can, else a plain destroy). */
export function reset(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/**
 * Starts a fault server on 127.0.0.1, port 0.
 *
 * @returns The running server.
 */
export async function startFaultServer(): Promise<FaultServer> {
  const routes = new Map<string, { fault: Fault; count: number }>();
  const sockets = new Set<Socket>();
  const used = new Set<Socket>();
  const timers = new Map<Socket, Set<ReturnType<typeof setTimeout>>>();
  const waiters = new Set<() => void>();
  let accepted = 0;

  const clearTimers = (socket: Socket) => {
    for (const timer of timers.get(socket) ?? []) clearTimeout(timer);
    timers.delete(socket);
  };

  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      used.delete(socket);
      clearTimers(socket);
      if (used.size === 0) { for (const wake of waiters) wake(); }
    });
    let buffered = Buffer.alloc(0);
    let handled = false;
    socket.on("data", (chunk: Buffer) => {
      if (handled) return;
      used.add(socket);
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [line = "", ...fields] = buffered.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(":");
        headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      const length = Number(headers["content-length"] ?? 0);
      if (buffered.length < end + 4 + length) return;
      handled = true;
      const [method = "", target = "/"] = line.split(" ");
      const path = target.split("?")[0]!;
      const request: RawRequest = {
        method,
        path,
        headers,
        body: buffered.subarray(end + 4, end + 4 + length).toString("utf8"),
      };
      const route = routes.get(path.replace(/^\/|\/?graphql$/g, ""));
      if (!route) return answer(socket, 404, '{"message":"Not found"}');
      route.fault(socket, request, ++route.count);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    url: (name) => `${origin}/${name}/graphql`,
    on: (name, fault) => void routes.set(name, { fault, count: 0 }),
    count: (name) => routes.get(name)?.count ?? 0,
    get accepted() {
      return accepted;
    },
    get open() {
      return used.size;
    },
    track(socket, timer) {
      if (socket.destroyed) return clearTimeout(timer);
      const set = timers.get(socket) ?? new Set();
      timers.set(socket, set.add(timer));
    },
    settled(withinMs = 2_000) {
      if (used.size === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(`${used.size} connection(s) that carried a request still open after ${withinMs} ms`),
          );
        }, withinMs);
        waiters.add(wake);
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) {
          clearTimers(socket);
          socket.destroy();
        }
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
