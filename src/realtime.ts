/**
 * Real-time subscriptions for a {@link ServiceClient}: GraphQL subscriptions over the service's own
 * WebSocket protocol (subprotocol `graphql-ws`, as the service's guide "Building a real-time
 * WebSocket client" describes it; not the `graphql-transport-ws` protocol of the graphql-ws package).
 *
 * One socket per `RealtimeClient`, opened by the first subscription and closed a second after the
 * last one ends; every subscription is multiplexed on it, each `start` with its own authorization,
 * read from the client's auth at that moment (iam signs the connection and each `start`). A socket
 * that closes or misses its keep-alives is opened again with jittered exponential backoff (from a
 * quarter second, doubled after each loss up to 5 s, back to the start once a keep-alive arrives), with
 * fresh auth, and every live subscription is started again; so is a socket whose token getter or
 * credentials provider fails, or hangs past the ack's 15 s, while reconnecting (most likely for the same
 * reason the socket was lost). Errors the service calls final (codes 400, 401, 403,
 * `UnauthorizedException`, `BadRequestException`), a getter that fails for the first socket, a
 * WebSocket constructor that throws, and a fifth socket lost before any was acknowledged (a wrong URL,
 * a server that refuses, no network: `ServiceNetworkError`) end the subscriptions instead. A `start`
 * left unanswered for 15 s, its auth included, ends its subscription. The service's
 * keep-alive timeout (`connectionTimeoutMs`) is taken as at least 60 s. Every frame is checked: one
 * that is not an object is ignored, and errors without a message still end what they concern with a
 * typed error.
 *
 * Out of scope: the separate Events APIs (`aws-appsync-event-ws`), and auth in plain HTTP headers.
 *
 * @example Subscribe, and stop at the first event
 * ```ts ignore
 * import { ServiceClient } from "@seed/service-client";
 * import { RealtimeClient } from "@seed/service-client/realtime";
 *
 * const client = new ServiceClient({
 *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
 *   auth: { type: "apiKey", apiKey: "da2-example" },
 * });
 * const realtime = new RealtimeClient(client, { onStateChange: (state) => console.log(state) });
 * for await (const data of realtime.subscribe<{ onPost: { title: string } }>("subscription { onPost { title } }")) {
 *   console.log(data.onPost.title);
 *   break; // sends `stop`; the socket closes a second later
 * }
 * ```
 *
 * @module
 */

import { checkVariables, serialize, watch } from "./call.ts";
import { authorize, endpointOf, type ServiceClient, stateOf } from "./client.ts";
import { type Document, prepareDocument, type VariablesObject } from "./document.ts";

export type { Document, VariablesObject };
import {
  type GraphQLFormattedError,
  isFormattedError,
  ServiceAbortError,
  ServiceGraphQLError,
  ServiceNetworkError,
} from "./errors.ts";
import { requestConfig } from "./options.ts";
import { expectOptions, invalid, invalidValue, isObject, MAX_TIMER_MS } from "./validate.ts";

/**
 * What the connection is doing, as `onStateChange` reports it.
 *
 * @example A status line for a UI
 * ```ts
 * import type { ConnectionState } from "@seed/service-client/realtime";
 *
 * const label = (state: ConnectionState) => state === "connected" ? "live" : state;
 * console.log(label("reconnecting")); // "reconnecting"
 * ```
 */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "closed";

/**
 * What the client uses of a WebSocket: the standard one (browsers, Deno, Bun, Node 22+) and `ws`'s
 * (Node 18 and 20) both have it.
 *
 * @example The standard WebSocket fits
 * ```ts
 * import type { WebSocketLike } from "@seed/service-client/realtime";
 *
 * const close = (socket: WebSocketLike) => socket.readyState === 1 && socket.close();
 * console.log(typeof close); // "function"
 * ```
 */
export interface WebSocketLike {
  /** `1` when open. */
  readonly readyState: number;
  /**
   * Sends a text message.
   *
   * @example Send when open
   * ```ts
   * import type { WebSocketLike } from "@seed/service-client/realtime";
   *
   * const ping = (socket: WebSocketLike) => socket.readyState === 1 && socket.send('{"type":"ka"}');
   * console.log(typeof ping); // "function"
   * ```
   */
  send(data: string): void;
  /**
   * Closes the socket.
   *
   * @example Close it
   * ```ts
   * import type { WebSocketLike } from "@seed/service-client/realtime";
   *
   * const end = (socket: WebSocketLike) => socket.close();
   * console.log(typeof end); // "function"
   * ```
   */
  close(): void;
}

/**
 * A WebSocket constructor: the global `WebSocket`, or `ws`'s.
 *
 * @example The global one, where the runtime has it
 * ```ts
 * import type { WebSocketConstructor } from "@seed/service-client/realtime";
 *
 * const webSocket: WebSocketConstructor | undefined = globalThis.WebSocket;
 * console.log(typeof webSocket); // "function" in Deno, Bun, browsers and Node 22+
 * ```
 */
export type WebSocketConstructor = new (url: string, protocols: string[]) => WebSocketLike;

/**
 * The options of a {@link RealtimeClient}.
 *
 * @example Credentials in the URL, for a server that reads only that
 * ```ts
 * import type { RealtimeOptions } from "@seed/service-client/realtime";
 *
 * const options: RealtimeOptions = {
 *   authIn: "query",
 *   url: "ws://127.0.0.1:20002/graphql/realtime",
 *   onStateChange: (state) => console.log(state),
 * };
 * console.log(options.authIn); // "query"
 * ```
 */
export interface RealtimeOptions {
  /** The WebSocket constructor; the global `WebSocket` by default. On Node 18 and 20, pass `ws`'s. */
  readonly webSocket?: WebSocketConstructor | undefined;
  /**
   * Where the socket carries its credentials: `"protocol"` (the default, as the official clients do)
   * in a second subprotocol, which keeps them out of URLs and so out of proxy logs; `"query"` in the
   * URL's `header` parameter, for servers that read only that (the local simulator).
   */
  readonly authIn?: "protocol" | "query" | undefined;
  /**
   * The real-time URL (`wss://…`), when it cannot be derived from the client's: a standard endpoint's
   * `appsync-api` host becomes `appsync-realtime-api`; any other URL gets `/realtime` appended. Given
   * or derived, it must be a `ws:` or `wss:` URL without a fragment (checked at construction).
   */
  readonly url?: string | undefined;
  /**
   * Called with each new state of the connection, for a UI, in a microtask: what it throws is reported
   * as uncaught, and does not stop the connection. `"reconnecting"` comes only after a first connection.
   */
  readonly onStateChange?: ((state: ConnectionState) => void) | undefined;
}

/**
 * The options of one subscription.
 *
 * @example End a subscription after a minute
 * ```ts
 * import type { SubscribeOptions } from "@seed/service-client/realtime";
 *
 * const options: SubscribeOptions = { signal: AbortSignal.timeout(60_000) };
 * console.log(options.signal?.aborted); // false
 * ```
 */
export interface SubscribeOptions {
  /** Ends the subscription (it sends `stop`); the iterator then throws a `ServiceAbortError`. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The arguments after the document: the variables (required when the operation has required
 * variables, optional otherwise) and the subscription's options.
 *
 * @example Variables are required only when the operation needs some
 * ```ts
 * import type { SubscribeArgs } from "@seed/service-client/realtime";
 *
 * const required: SubscribeArgs<{ author: string }> = [{ author: "me" }];
 * const optional: SubscribeArgs<{ limit?: number }> = [];
 * console.log(required.length, optional.length); // 1 0
 * ```
 */
export type SubscribeArgs<TVariables> = [Record<never, never>] extends [TVariables]
  ? [variables?: [TVariables][TVariables extends unknown ? 0 : never], options?: SubscribeOptions | undefined]
  : [variables: [TVariables][TVariables extends unknown ? 0 : never], options?: SubscribeOptions | undefined];

/** One subscription, as the connection knows it. */
interface Subscription {
  /** The `start` payload's `data`, once the document is ready. */
  data?: string;
  /**
   * Whether the service acknowledged its `start` on the current socket: `false` once a socket was
   * lost under it (its next `start` is a restart), `undefined` before.
   */
  acked?: boolean;
  /** Ends it when its `start` stays unanswered. */
  wait?: ReturnType<typeof setTimeout>;
  /** Hands over an event's payload. */
  receive(payload: Payload): void;
  /** Ends it, with an error to throw; `quiet` when the service ended it already (no `stop`). */
  end(error?: unknown, quiet?: boolean): void;
}

/** One socket, from its auth to its close. */
interface Socket {
  /** The socket; `terminate` is `ws`'s (Node 18 and 20), which ends it without the close handshake. */
  ws?: WebSocketLike & { terminate?(): void; onclose?: unknown };
  /** How long it may stay silent: the ack's timeout first, then the service's `connectionTimeoutMs`. */
  timeoutMs: number;
}

/** A message's payload, as the peer sent it: anything, read with `?.` only. */
type Payload = { readonly [key: string]: unknown } | undefined;

type Handlers = {
  [K in "onopen" | "onmessage" | "onclose" | "onerror"]: (event: { data?: unknown }) => void;
};

/**
 * How long the connection may wait for its `connection_ack`, and a `start` for its `start_ack`, as
 * the official clients do.
 */
const ACK_TIMEOUT_MS = 15_000;
/**
 * The shortest keep-alive timeout taken from the service, as the official subscription link does: a
 * `connectionTimeoutMs` of 1 (or below 0) would close each socket as it opens, and open the next.
 */
const MIN_TIMEOUT_MS = 60_000;
/** The message of an error that came without one, or of an event that is not an object. */
const MALFORMED = "Malformed message";
/** The error codes and types after which reconnecting cannot help. */
const FINAL = /^(40[013]|BadRequestException|UnauthorizedException)$/;
/** The headers an iam `/connect` and `start` are signed with; sent for every mode. */
const SIGNED_HEADERS = {
  accept: "application/json, text/javascript",
  "content-encoding": "amz-1.0",
  "content-type": "application/json; charset=UTF-8",
};

/**
 * Subscriptions over one WebSocket, with the url and auth of a {@link ServiceClient}.
 *
 * @example Subscribe with variables, until a signal fires
 * ```ts ignore
 * import { ServiceClient } from "@seed/service-client";
 * import { RealtimeClient } from "@seed/service-client/realtime";
 *
 * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "k" } });
 * const realtime = new RealtimeClient(client);
 * const signal = AbortSignal.timeout(60_000);
 * try {
 *   for await (const { onPost } of realtime.subscribe<{ onPost: { id: string } }, { author: string }>(
 *     "subscription On($author: String!) { onPost(author: $author) { id } }",
 *     { author: "me" },
 *     { signal },
 *   )) console.log(onPost.id);
 * } finally {
 *   realtime.close();
 * }
 * ```
 */
export class RealtimeClient {
  /**
   * Checks the options. Nothing is sent: the first subscription opens the socket.
   *
   * @param client The client whose url and auth (any of the five modes) the socket uses.
   * @param options The WebSocket constructor, where credentials go, the URL, a state observer.
   * @throws {TypeError | RangeError} For an invalid client or option, an unknown option key, or a
   * runtime without `WebSocket` and no `webSocket` option (code `INVALID_ARGUMENT`).
   */
  constructor(client: ServiceClient, options?: RealtimeOptions) {
    links.set(this, connection(client, options ?? {}));
  }

  /**
   * Starts a subscription. Its events come out of the iterator: each `data` event's `data`. A
   * `break`, `return()` or the signal ends it (`stop` is sent, once the service has acknowledged the
   * `start` if it has not yet).
   *
   * @param document A GraphQL string (give the types as `<Data, Variables>`) or a typed document.
   * @param args The variables, then the options.
   * @returns The events' data, in order.
   * @throws {ServiceGraphQLError} From the iterator: an event with errors or that is not an object, a
   * refused `start` (such as `MaxSubscriptionsReachedError`), or a final connection error.
   * @throws {ServiceAbortError} From the iterator, when the signal ends the subscription, or with the
   * reason `"timeout"` when the service leaves its `start` unanswered for 15 s.
   * @throws {ServiceNetworkError} From the iterator, when five sockets in a row were lost before any
   * was acknowledged (a wrong URL, a server that refuses the socket, no network).
   * @throws {ServiceAuthError} From the iterator, when a token getter or credentials provider fails
   * for the first socket or the subscription's first `start` (while reconnecting, it is retried).
   * @throws {TypeError | RangeError} From the iterator, for a bad document, variables or option, or a
   * WebSocket constructor that throws (code `INVALID_ARGUMENT`).
   *
   * @example Start a subscription, and end it before any event
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * const events = realtime.subscribe<{ onPost: { id: string } }>("subscription { onPost { id } }");
   * console.log(await events.return!()); // { value: undefined, done: true }: nothing was sent
   * realtime.close();
   * ```
   */
  subscribe<TData = unknown, TVariables extends object = VariablesObject>(
    document: Document<TData, TVariables>,
    ...args: SubscribeArgs<TVariables>
  ): AsyncIterableIterator<TData> {
    return linkOf(this).subscribe(document, args) as AsyncIterableIterator<TData>;
  }

  /**
   * The callback form of {@link RealtimeClient.subscribe}: calls `onData` with each event's data,
   * and `onError` with the error that ends the subscription, if one does.
   *
   * @param document A GraphQL string or a typed document.
   * @param variables The variables (`undefined` when the operation has none).
   * @param onData Called with each event's data.
   * @param onError Called once with the error that ended the subscription, or that `onData` threw
   * (the subscription then ends). It must not throw: what it throws is an unhandled rejection.
   * @returns A function that ends the subscription (it sends `stop`).
   * @throws {TypeError} When `onData` or `onError` is not a function (code `INVALID_ARGUMENT`).
   *
   * @example Listen, then stop
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * const stop = realtime.listen<{ onPost: { id: string } }>(
   *   "subscription { onPost { id } }",
   *   undefined,
   *   ({ onPost }) => console.log(onPost.id),
   *   (err) => console.error(err),
   * );
   * stop(); // ends it before any event: nothing was sent
   * realtime.close();
   * ```
   */
  listen<TData = unknown, TVariables extends object = VariablesObject>(
    document: Document<TData, TVariables>,
    variables: SubscribeArgs<TVariables>[0],
    onData: (data: TData) => void,
    onError: (error: unknown) => void,
  ): () => void {
    expectFunction(onData, "onData");
    expectFunction(onError, "onError");
    const events = linkOf(this).subscribe(document, [variables]) as AsyncIterableIterator<TData>;
    (async () => {
      for await (const data of events) onData(data);
    })().catch(onError);
    return () => void events.return!();
  }

  /**
   * The connection's state.
   *
   * @example Closed until the first subscription
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * console.log(new RealtimeClient(client).state); // "closed"
   * ```
   */
  get state(): ConnectionState {
    return linkOf(this).state();
  }

  /**
   * Ends every subscription (their iterators finish) and closes the socket.
   *
   * @example Close, whatever is open
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * realtime.close();
   * console.log(realtime.state); // "closed"
   * ```
   */
  close(): void {
    linkOf(this).close();
  }
}

type Connection = ReturnType<typeof connection>;
const links = new WeakMap<RealtimeClient, Connection>();

function linkOf(realtime: RealtimeClient): Connection {
  return stateOf(links, realtime);
}

/** The socket and subscriptions of one `RealtimeClient`. */
function connection(client: ServiceClient, options: RealtimeOptions) {
  expectOptions(options, "options", ["webSocket", "authIn", "url", "onStateChange"]);
  const graphql = endpointOf(client);
  /** The GraphQL URL with `path` appended to its path (before its query, if it has one). */
  const under = (path: string) => graphql.replace(/[?#]|$/, path + "$&");
  const { authIn = "protocol", onStateChange } = options as RealtimeOptions;
  const webSocket = (options.webSocket ?? globalThis.WebSocket) as WebSocketConstructor;
  const url: string = (options as RealtimeOptions).url ??
    (/^https:\/\/\w+\.appsync-api\./i.test(graphql)
      ? graphql.replace("appsync-api", "appsync-realtime-api")
      : under("/realtime")).replace(/^http/i, "ws");
  if (typeof webSocket != "function") {
    throw invalidValue("webSocket", "a WebSocket constructor", webSocket);
  }
  if (authIn != "protocol" && authIn != "query") {
    throw invalidValue("authIn", '"protocol" or "query"', authIn);
  }
  // As the WebSocket constructor checks it (a fragment, a bad port): it throws for what no retry mends.
  let valid;
  try {
    valid = /^wss?:\/\/[^#]*$/i.test(url) && new URL(url);
  } catch {
    // refused below
  }
  if (!valid) throw invalidValue("url", "a ws: or wss: URL without a fragment", url);
  if (onStateChange != null) expectFunction(onStateChange, "onStateChange");
  const host = new URL(graphql).host;
  const subscriptions = new Map<string, Subscription>();
  let socket: Socket | undefined;
  let state: ConnectionState = "closed";
  /** The watchdog of the socket (from its auth to its ack, then between messages), or the backoff. */
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  /** Sockets opened since the last keep-alive: the backoff's exponent. */
  let attempt = 0;
  let ids = 0;

  const setState = (next: ConnectionState) => {
    if (state != next) {
      state = next;
      // In a microtask: a callback that throws stays out of the connection's way (reported as uncaught).
      if (onStateChange) queueMicrotask(() => onStateChange(next));
    }
  };
  /** The `host` and auth headers of a POST of `body` to `path` under the GraphQL URL. */
  const headers = async (path: string, body: string) => ({
    ...await authorize(client, under(path), body, SIGNED_HEADERS),
    host,
  });
  const send = (message: object) => socket?.ws?.readyState == 1 && socket.ws.send(JSON.stringify(message));
  /** (Re)arms the watchdog: a socket silent for its timeout is lost. */
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(lost, socket!.timeoutMs);
  };
  const drop = () => {
    clearTimeout(timer);
    const ws = socket?.ws;
    ws?.close();
    // `ws` waits 30 s for a silent peer's close frame, and the process with it (Bun's too): it is cut
    // after a second. The standard WebSocket has no such method: Deno's and Node 22+'s, closed towards
    // a frozen peer, keep the process alive until the runtime gives up (over a minute on Node 22),
    // which no option shortens.
    if (ws?.readyState == 2 && ws.terminate) {
      const cut = setTimeout(() => ws.terminate!(), 1_000);
      ws.onclose = () => clearTimeout(cut);
    }
    socket = undefined;
  };
  /**
   * The socket closed (`cause`: its close event) or went silent: open another while subscriptions
   * live. Before any socket was acknowledged (still `connecting`), the fifth loss ends them: the URL,
   * the server or the network is wrong, and the caller is told.
   */
  const lost = (cause?: unknown) => {
    drop();
    if (!subscriptions.size) return setState("closed");
    if (state != "connecting") setState("reconnecting");
    else if (attempt > 3) return end(new ServiceNetworkError(cause));
    for (const subscription of subscriptions.values()) {
      subscription.acked = false;
      clearTimeout(subscription.wait);
    }
    timer = setTimeout(open, Math.min(5_000, 250 * 2 ** attempt++) * (0.5 + Math.random() / 2));
  };
  /** A connection error: final ones end every subscription, others reconnect. */
  const failed = (payload: Payload) => {
    const errors = errorsOf(payload);
    if (errors.some((error) => FINAL.test(error.errorCode as string) || FINAL.test(error.errorType!))) {
      end(new ServiceGraphQLError(errors));
    } else lost();
  };
  const end = (error?: unknown) => {
    for (const subscription of subscriptions.values()) subscription.end(error, true);
    clearTimeout(idle);
    drop();
    attempt = 0;
    setState("closed");
  };
  const start = async (id: string, subscription: Subscription) => {
    const current = socket;
    // From the auth on: a getter may hang, and the socket may be alive while the service lost the `start`.
    subscription.wait = setTimeout(
      () => subscription.end(new ServiceAbortError("timeout"), true),
      ACK_TIMEOUT_MS,
    );
    try {
      const authorization = await headers("", subscription.data!);
      if (socket == current && subscriptions.get(id) == subscription) {
        send({ id, type: "start", payload: { data: subscription.data, extensions: { authorization } } });
      }
    } catch (error) {
      // A getter failing for a restart fails as the reconnect's own would: the socket is opened again.
      if (subscription.acked == undefined) subscription.end(error, true);
      else if (socket == current) lost();
    }
  };
  const receive = (current: Socket, text: unknown) => {
    let id, type, payload: Payload;
    try {
      // Not JSON, or null: ignored (any other value has no type, and does nothing but show life).
      ({ id, type, payload } = JSON.parse(text as string));
    } catch {
      return;
    }
    const subscription = subscriptions.get(id);
    rearm();
    if (type == "connection_ack") {
      // The service's timeout (the simulator spells it `connectionTimeout`), from a minute to what a
      // timer can hold; 5 minutes when it is not a number.
      current.timeoutMs = Math.max(
        MIN_TIMEOUT_MS,
        Math.min(MAX_TIMER_MS, (payload?.connectionTimeoutMs ?? payload?.connectionTimeout) as number),
      ) || 300_000;
      rearm();
      setState("connected");
      for (const [id, subscription] of subscriptions) if (subscription.data) start(id, subscription);
    } else if (type == "start_ack") {
      // A start_ack for a subscription ended before it came: stop it now.
      if (subscription) {
        subscription.acked = true;
        clearTimeout(subscription.wait);
      } else send({ id, type: "stop" });
    } else if (type == "ka") attempt = 0; // a socket that lives: the next loss reconnects at once
    else if (type == "data") subscription?.receive(payload);
    else if (type == "complete") subscription?.end(undefined, true);
    else if (type == "error" && id) subscription?.end(new ServiceGraphQLError(errorsOf(payload)), true);
    else if (type == "error" || type == "connection_error") failed(payload);
  };
  const open = async () => {
    if (!subscriptions.size) return setState("closed");
    const current: Socket = socket = { timeoutMs: ACK_TIMEOUT_MS };
    if (state == "closed") setState("connecting");
    // The auth counts against the ack's timeout: a getter that hangs is given up, and tried again.
    rearm();
    let header;
    try {
      header = btoa(JSON.stringify(await headers("/connect", "{}")));
    } catch (error) {
      // A getter failing for the first socket is the caller's to mend; while reconnecting, it most
      // likely fails for the reason the socket was lost (the network), and is tried again.
      return socket == current && (state == "connecting" ? end(error) : lost());
    }
    if (socket != current) return;
    let ws;
    try {
      ws = current.ws = authIn == "query"
        ? new webSocket(
          `${url}${/\?/.test(url) ? "&" : "?"}header=${encodeURIComponent(header)}&payload=e30=`,
          [
            "graphql-ws",
          ],
        )
        : new webSocket(url, [
          "graphql-ws",
          "header-" + header.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_"),
        ]);
    } catch (error) {
      // It throws for what no retry mends (a URL or subprotocol it refuses, a page's security policy):
      // a bad argument, as a bad url option is. Its own error stays out: it may quote the URL.
      return end(
        invalid(
          "The WebSocket constructor threw a " + (error as Error)?.name,
        ),
      );
    }
    Object.assign(
      ws,
      {
        onopen: () => socket == current && send({ type: "connection_init" }),
        onmessage: (event) => socket == current && receive(current, event.data),
        onclose: (event) => socket == current && lost(event),
        onerror: () => {},
      } satisfies Handlers,
    );
  };

  return {
    state: () => state,
    close: () => end(),
    subscribe(document: unknown, [variables, options]: readonly unknown[]): AsyncIterableIterator<unknown> {
      const id = String(++ids);
      const queue: unknown[] = [];
      const waiting: (() => void)[] = [];
      let ended = false;
      let failure: unknown;
      let signal: AbortSignal | undefined;
      let unwatch: (() => void) | void;
      const subscription: Subscription = {
        receive(payload) {
          if (!isObject(payload) || [payload.errors ?? []].flat().length) {
            return subscription.end(new ServiceGraphQLError(errorsOf(payload), payload?.data));
          }
          queue.push(payload.data);
          waiting.splice(0).forEach((wake) => wake());
        },
        end(error, quiet) {
          if (ended) return;
          [ended, failure] = [true, error];
          unwatch?.();
          clearTimeout(subscription.wait);
          if (subscriptions.get(id) == subscription) {
            subscriptions.delete(id);
            if (!quiet && subscription.acked) send({ id, type: "stop" });
            if (!subscriptions.size) {
              clearTimeout(idle);
              idle = setTimeout(() => subscriptions.size || end(), socket ? 1_000 : 0);
            }
          }
          waiting.splice(0).forEach((wake) => wake());
        },
      };
      const iterator: AsyncIterableIterator<unknown> = {
        async next() {
          while (!queue.length && !ended) await new Promise<void>((wake) => waiting.push(wake));
          if (queue.length) return { value: queue.shift(), done: false };
          const error = failure;
          failure = undefined;
          if (error) throw error;
          return { value: undefined, done: true };
        },
        return() {
          queue.length = 0;
          subscription.end();
          return Promise.resolve({ value: undefined, done: true });
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      try {
        expectOptions(options ?? {}, "subscribe options", ["signal"]);
        // The checks of request(): the same signals and variables are refused, with the same words.
        signal = requestConfig(options ?? undefined).signal;
        checkVariables(variables);
        subscriptions.set(id, subscription); // a pending idle close sees it, and leaves the socket open
        // One listener per signal, however many subscriptions share it (Node warns past 10).
        if (signal) unwatch = watch(signal, subscription.end);
        Promise.resolve(prepareDocument(document)).then((prepared) => {
          subscription.data = serialize(prepared, variables, undefined);
          if (ended) return;
          if (!socket) open();
          else if (state == "connected") start(id, subscription);
        }).catch((error) => subscription.end(error, true));
      } catch (error) {
        subscription.end(error, true);
      }
      return iterator;
    },
  };
}

/**
 * The errors of a payload: a list, or one object (as `MaxSubscriptionsReachedError` has it). An
 * error without a message gets {@link MALFORMED} (its `errorType` and `errorCode` are kept); what is
 * not a formatted error even so is left out; with none left, one error says the message was malformed.
 */
function errorsOf(payload: Payload): (GraphQLFormattedError & { errorCode?: unknown })[] {
  const errors = [payload?.errors].flat().filter(isObject).map((error) => ({ message: MALFORMED, ...error }))
    .filter(isFormattedError);
  return errors.length ? errors : [{ message: MALFORMED }];
}

/** Throws unless `value` is a function. */
function expectFunction(value: unknown, field: string): void {
  if (typeof value != "function") throw invalidValue(field, "a function", value);
}
