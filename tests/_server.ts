/**
 * A local endpoint that behaves like the managed service, for the tests, the demo and the runtime
 * matrix: `node:http` on 127.0.0.1 (port 0), real `graphql` execution over
 * `tests/fixtures/schema.graphql`, and each auth mode checked as the service checks it:
 *
 * - `x-api-key` must be an accepted key; `authorization` must be an accepted user pool JWT, OIDC
 *   JWT or lambda token, sent raw (a `Bearer ` prefix is refused, as the service does);
 * - `iam`: the SigV4 `authorization` is recomputed with `@smithy/signature-v4` over what arrived
 *   (service `appsync`), and `x-amz-date` must be within 5 minutes of the endpoint's clock.
 *
 * Errors are shaped as WIRE.md shows: GraphQL errors with `errorType` at the top level, 401
 * `UnauthorizedException`, 403 `InvalidSignatureException`. Tests can add routes (a path under the
 * same server) to misbehave on purpose, and read the log of what was received.
 *
 * Subscriptions: the service's real-time protocol on the same port, at `/graphql/realtime` (the
 * WebSocket of `_websocket.ts`, the protocol of `_server_realtime.ts`). The socket's auth header
 * object (`header-` subprotocol or `header` query parameter) is checked as a request's headers are
 * (iam: the signature of `POST /graphql/connect` with body `{}`), and each `start`'s `extensions.authorization` too (iam: `POST /graphql` with its
 * `data` as the body); a refusal is an `UnauthorizedException`. A `start` must hold a valid
 * subscription of the schema. Each `addPost` sent over HTTP is an `onPost` event to every live
 * subscription (its document executed with the post as the root value). `ka` every 60 s (an option).
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { buildSchema, type ExecutionResult, graphql, type GraphQLError } from "graphql";
import { API_KEY, CREDENTIALS, LAMBDA_TOKEN, OIDC_JWT, REGION, USERPOOL_JWT } from "./_fixtures.ts";
import { realtime, type RealtimeSocket } from "./_server_realtime.ts";
import { acceptWebSockets, waiters } from "./_websocket.ts";

/** A request as the endpoint received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  /** The query string, without its `?` (empty when there is none). */
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A route handler: answers a request itself, or calls `pass()` to answer as `/graphql` would
 * (`pass(offset)`: with the endpoint's clock shifted by `offset` ms for this request).
 * `count` is the number of requests this route has received, this one included.
 */
export type RouteHandler = (
  request: ReceivedRequest,
  response: ServerResponse,
  count: number,
  pass: (clockOffsetMs?: number) => Promise<void>,
) => void | Promise<void>;

/** Options of the local endpoint. */
export interface EndpointOptions {
  /** Shifts the endpoint's clock, to test clock-skew handling in iam mode. */
  clockOffsetMs?: number;
  /** The port to listen on; by default, one the system picks. */
  port?: number;
  /** How often a real-time socket is sent `ka`, once acknowledged; 60 s by default. */
  keepAliveMs?: number;
}

/** A running local endpoint. */
export interface Endpoint {
  /** The GraphQL URL, `http://127.0.0.1:PORT/graphql`. */
  readonly url: string;
  /** The URL of a route: `http://127.0.0.1:PORT/<name>/graphql`. */
  urlFor(name: string): string;
  /** Answers requests to `/<name>/graphql` with `handler` (count starts at 1). */
  route(name: string, handler: RouteHandler): void;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  /** The API keys accepted; tests add and remove keys to rotate. */
  readonly apiKeys: Set<string>;
  /** The endpoint's clock offset; settable. */
  clockOffsetMs: number;
  /** The real-time URL, `ws://127.0.0.1:PORT/graphql/realtime`. */
  readonly realtimeUrl: string;
  /** How many real-time subscriptions are live (acknowledged, not stopped), over every socket. */
  readonly liveSubscriptions: number;
  /** Resolves once `check()` holds, checked after each real-time message; rejects after 5 s. */
  until(check: () => boolean, what: string): Promise<void>;
  /** Stops the endpoint, drops keep-alive connections and closes the real-time sockets. */
  close(): Promise<void>;
}

const schemaUrl = new URL("./fixtures/schema.graphql", import.meta.url);
export const schema = buildSchema(readFileSync(schemaUrl, "utf8"));

/** A resolver error carrying the service's top-level `errorType`. */
class TypedError extends Error {
  constructor(message: string, readonly errorType: string) {
    super(message);
  }
}

export interface Post {
  id: string;
  title: string;
  content: string | null;
  author: { name: string } | null;
}

const posts: Post[] = [
  { id: "1", title: "Hello", content: "First post", author: { name: "Ada" } },
  { id: "2", title: "Héllo wörld ✓", content: null, author: null },
];

/**
 * The root value of an HTTP request accepted in `mode`; `added` numbers and publishes what `addPost`
 * adds (the posts of `posts` stay as they are).
 */
function rootValue(mode: string, added: (post: Omit<Post, "id">) => Post) {
  return {
    hello: () => "world",
    echo: ({ message }: { message: string }) => message,
    post: ({ id }: { id: string }) => posts.find((post) => post.id === id) ?? null,
    posts: ({ limit }: { limit?: number }) => posts.slice(0, limit ?? posts.length),
    secret: () => {
      throw new TypedError("Not Authorized to access secret on type Query", "Unauthorized");
    },
    whoami: () => mode,
    slow: async ({ ms }: { ms: number }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return `waited ${ms}`;
    },
    addPost: ({ title, content }: { title: string; content?: string }) =>
      added({ title, content: content ?? null, author: null }),
  };
}

/** An execution's result as the service sends it: `data`, and `errors` when there are some. */
export function formatResult(result: ExecutionResult): Record<string, unknown> {
  const body: Record<string, unknown> = { data: result.data ?? null };
  if (result.errors?.length) body.errors = result.errors.map(formatError);
  return body;
}

/** A GraphQL error as the service shapes it: `errorType` at the top level, `path` and `locations`. */
export function formatError(error: GraphQLError): Record<string, unknown> {
  const original = error.originalError;
  return {
    path: error.path ?? null,
    data: null,
    errorType: original instanceof TypedError
      ? original.errorType
      : error.path
      ? "ExecutionError"
      : "ValidationError",
    errorInfo: null,
    locations: error.locations ?? [],
    message: error.message,
  };
}

/**
 * Starts the local endpoint on 127.0.0.1, port 0.
 *
 * @param options Clock offset for iam tests, port, real-time keep-alive interval.
 * @returns The running endpoint.
 */
export async function startEndpoint(options: EndpointOptions = {}): Promise<Endpoint> {
  const routes = new Map<string, { handler: RouteHandler; count: number }>();
  const requests: ReceivedRequest[] = [];
  const apiKeys = new Set([API_KEY]);
  let clockOffsetMs = options.clockOffsetMs ?? 0;
  const { changed, until } = waiters();
  const sockets = new Set<RealtimeSocket>();
  let postCount = posts.length;
  const added = (fields: Omit<Post, "id">) => {
    const post = { id: String(++postCount), ...fields };
    sockets.forEach((socket) => socket.publish(post));
    return post;
  };
  const context = {
    apiKeys,
    get clockOffsetMs() {
      return clockOffsetMs;
    },
    added,
  };

  const server = createServer(async (req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
        "access-control-max-age": "600",
      });
      return res.end();
    }
    let request: ReceivedRequest;
    try {
      request = await receive(req);
    } catch {
      // The client went away before its request was whole (fetch may also resend a request that met a
      // connection closing under it): nothing to answer, and not an unhandled rejection.
      return res.destroy();
    }
    requests.push(request);
    const name = request.path.replace(/^\/|\/?graphql$/g, "");
    const route = routes.get(name);
    const pass = (offset = clockOffsetMs) => answer(request, res, { ...context, clockOffsetMs: offset });
    try {
      if (route) return await route.handler(request, res, ++route.count, pass);
      if (request.path !== "/graphql") return send(res, 404, { message: "Not found" });
      await pass();
    } catch (err) {
      if (!res.headersSent) send(res, 500, { message: `Endpoint error: ${(err as Error).message}` });
      else res.destroy();
    }
  });
  const peers = acceptWebSockets(
    server,
    (peer) => {
      const socket = realtime(peer, context, options.keepAliveMs ?? 60_000, changed);
      sockets.add(socket);
      return {
        text: socket.text,
        closed() {
          sockets.delete(socket);
          changed();
        },
      };
    },
    (request) => (request.url ?? "").split("?")[0] === "/graphql/realtime",
  );
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  return {
    url: `${base}/graphql`,
    urlFor: (name) => `${base}/${name}/graphql`,
    route: (name, handler) => void routes.set(name, { handler, count: 0 }),
    requests,
    apiKeys,
    get clockOffsetMs() {
      return clockOffsetMs;
    },
    set clockOffsetMs(value: number) {
      clockOffsetMs = value;
    },
    realtimeUrl: `${base.replace(/^http/, "ws")}/graphql/realtime`,
    get liveSubscriptions() {
      return [...sockets].reduce((count, socket) => count + socket.live.size, 0);
    },
    until,
    close: () =>
      new Promise<void>((resolve, reject) => {
        peers.close();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections?.();
      }),
  };
}

async function receive(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return {
    method: req.method ?? "",
    path: (req.url ?? "/").split("?")[0]!,
    query: (req.url ?? "").split("?")[1] ?? "",
    headers,
    body: new TextDecoder().decode(concat(chunks)),
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The answers sent, which number their request ids. */
let answered = 0;

/**
 * Sends a JSON answer, with a request id as the service's have (the README's tracing example logs
 * it): a UUID's shape, counted, since a test may take `crypto` away.
 */
export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "x-amzn-requestid": `00000000-0000-4000-8000-${(++answered).toString(16).padStart(12, "0")}`,
    ...headers,
  });
  res.end(text);
}

export interface AnswerContext {
  apiKeys: Set<string>;
  clockOffsetMs: number;
  /** Numbers and publishes a post `addPost` adds. */
  added: (post: Omit<Post, "id">) => Post;
}

/** Authenticates, then executes the GraphQL request. */
async function answer(request: ReceivedRequest, res: ServerResponse, context: AnswerContext): Promise<void> {
  if (request.method !== "POST") return send(res, 405, { message: "Use POST" });
  if (request.headers["content-type"] !== "application/json; charset=UTF-8") {
    return send(res, 415, {
      errors: [{ errorType: "BadRequestException", message: "Unsupported content type" }],
    });
  }
  const mode = await authenticate(request, context);
  if (typeof mode !== "string") return send(res, mode.status, mode.body, mode.headers);

  let payload: { query?: unknown; variables?: unknown; operationName?: unknown };
  try {
    payload = JSON.parse(request.body);
  } catch {
    return send(res, 400, {
      errors: [{ errorType: "MalformedHttpRequestException", message: "Invalid JSON" }],
    });
  }
  if (typeof payload.query !== "string") {
    return send(res, 400, {
      errors: [{ errorType: "MalformedHttpRequestException", message: "Missing query" }],
    });
  }
  const result = await graphql({
    schema,
    source: payload.query,
    rootValue: rootValue(mode, context.added),
    variableValues: payload.variables as Record<string, unknown> | undefined,
    operationName: payload.operationName as string | undefined,
  });
  send(res, 200, formatResult(result));
}

export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function unauthorized(message: string): Refusal {
  return { status: 401, body: { errors: [{ errorType: "UnauthorizedException", message }] } };
}

/** Returns the accepted mode's name, or the refusal to send. */
export async function authenticate(
  request: ReceivedRequest,
  context: AnswerContext,
): Promise<string | Refusal> {
  const apiKey = request.headers["x-api-key"];
  const authorization = request.headers["authorization"];
  if (apiKey !== undefined) {
    return context.apiKeys.has(apiKey) ? "apiKey" : unauthorized("You are not authorized to make this call.");
  }
  if (authorization === undefined) return unauthorized("Missing authorization header");
  if (authorization.startsWith("AWS4-HMAC-SHA256 ")) {
    return await verifySignature(request, context.clockOffsetMs);
  }
  if (authorization.startsWith("Bearer ")) return unauthorized("Unable to parse JWT token.");
  if (authorization === USERPOOL_JWT) return "userpool";
  if (authorization === OIDC_JWT) return "oidc";
  if (authorization === LAMBDA_TOKEN) return "lambda";
  return unauthorized("You are not authorized to make this call.");
}

const AUTHORIZATION_SHAPE =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/appsync\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

function signatureRefusal(errorType: string, message: string, serverTime: Date): Refusal {
  return {
    status: 403,
    body: { errors: [{ errorType, message }] },
    headers: { date: serverTime.toUTCString() },
  };
}

/**
 * A query string as smithy signs it: each name and value decoded, a `+` kept a plus sign (as AWS
 * reads it), repeated names as arrays.
 */
function queryParameters(query: string): Record<string, string | string[]> {
  const parameters: Record<string, string | string[]> = {};
  for (const pair of query ? query.split("&") : []) {
    const [name, value = ""] = pair.split(/=(.*)/s).map(decodeURIComponent) as [string, string?];
    const before = parameters[name];
    parameters[name] = before === undefined ? value : [before, value].flat();
  }
  return parameters;
}

/** Recomputes the signature with `@smithy/signature-v4` over what was received. */
async function verifySignature(request: ReceivedRequest, clockOffsetMs: number): Promise<string | Refusal> {
  const serverTime = new Date(Date.now() + clockOffsetMs);
  const match = AUTHORIZATION_SHAPE.exec(request.headers["authorization"]!);
  const amzDate = request.headers["x-amz-date"];
  if (!match || !amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return signatureRefusal(
      "IncompleteSignatureException",
      "Authorization header requires a valid shape",
      serverTime,
    );
  }
  const [, accessKeyId, day, region, signedHeaders] = match;
  if (accessKeyId !== CREDENTIALS.accessKeyId || region !== REGION || !amzDate.startsWith(day!)) {
    return signatureRefusal(
      "InvalidSignatureException",
      "The security token included in the request is invalid",
      serverTime,
    );
  }
  const signedAt = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  const skew = signedAt - serverTime.getTime();
  // As AWS words them: the bound the signature missed, then the server's time in parentheses.
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, "");
  const now = serverTime.getTime();
  if (skew < -300_000) {
    return signatureRefusal(
      "InvalidSignatureException",
      `Signature expired: ${amzDate} is now earlier than ${stamp(now - 300_000)} (${stamp(now)} - 5 min.)`,
      serverTime,
    );
  }
  if (skew > 300_000) {
    return signatureRefusal(
      "InvalidSignatureException",
      `Signature not yet current: ${amzDate} is still later than ${stamp(now + 300_000)} (${
        stamp(now)
      } + 5 min.)`,
      serverTime,
    );
  }
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) {
    return signatureRefusal("IncompleteSignatureException", "host and x-amz-date must be signed", serverTime);
  }
  const { SignatureV4 } = await import("@smithy/signature-v4");
  const { Hash } = await import("@smithy/hash-node");
  const signer = new SignatureV4({
    service: "appsync",
    region: REGION,
    credentials: {
      accessKeyId: CREDENTIALS.accessKeyId,
      secretAccessKey: CREDENTIALS.secretAccessKey,
      ...(request.headers["x-amz-security-token"]
        ? { sessionToken: request.headers["x-amz-security-token"] }
        : {}),
    },
    sha256: Hash.bind(null, "sha256"),
    applyChecksum: false,
  });
  const headers: Record<string, string> = {};
  for (const name of names) headers[name] = request.headers[name] ?? "";
  const signed = await signer.sign({
    method: request.method,
    protocol: "http:",
    hostname: request.headers["host"]!.replace(/:\d+$/, ""),
    ...(request.headers["host"]!.includes(":")
      ? { port: Number(request.headers["host"]!.split(":")[1]) }
      : {}),
    path: request.path,
    query: queryParameters(request.query),
    headers,
    body: request.body,
  }, { signingDate: new Date(signedAt) });
  if (signed.headers["authorization"] !== request.headers["authorization"]) {
    return signatureRefusal(
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided.",
      serverTime,
    );
  }
  return "iam";
}
