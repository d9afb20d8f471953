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
 * a server that refuses, no network: `ServiceNetworkError`, or the server's own error if it sent one)
 * end the subscriptions instead; a getter that fails for a later one of those sockets counts as a
 * loss. A first `start` left unanswered for 15 s once sent, or whose own auth hangs for 15 s, ends its
 * subscription; a restart left unanswered is taken for a socket that died silently (a network drop
 * just after a reconnect), which is opened again; a second such restart in a row ends it. The
 * service's keep-alive timeout (`connectionTimeoutMs`) is taken as at least 60 s, and measured on the
 * wall clock every 5 s, so that a socket that died while the machine slept is replaced within 5 s of
 * waking, not after the whole timeout (a clock set back past the last message replaces it too). Every
 * frame is checked: one that is not an object is ignored, and errors without a message still end what
 * they concern with a typed error.
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

import { type ServiceClient, stateOf } from "./client.ts";
import type { Document, VariablesObject } from "./document.ts";
import { type Connection, connection } from "./realtime_connection.ts";
import { expectFunction } from "./validate.ts";

export type { Document, VariablesObject };

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
 * (Node 18 and 20) both have it. The client sets the four `on…` handlers, so a wrapper must have them
 * and call them (one that only dispatches to `addEventListener` listeners is never heard).
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
  /** Set by the client: called when the socket opens. */
  onopen: unknown;
  /** Set by the client: called with each message (`{ data }`, the frame's text). */
  onmessage: unknown;
  /** Set by the client: called when the socket closes. */
  onclose: unknown;
  /** Set by the client: called when the socket fails (the client then takes it as closed). */
  onerror: unknown;
  /**
   * `ws`'s (Node 18 and 20): ends the socket without the close handshake, which the client does a
   * second after a close that the peer leaves unanswered.
   *
   * @example Cut a socket that has it
   * ```ts
   * import type { WebSocketLike } from "@seed/service-client/realtime";
   *
   * const cut = (socket: WebSocketLike) => socket.terminate?.();
   * console.log(typeof cut); // "function"
   * ```
   */
  terminate?(): void;
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
   * host (`<id>.appsync-api.<region>.amazonaws.com`, or `.com.cn`) becomes its `appsync-realtime-api`
   * host; any other URL, a custom domain's, gets `/realtime` after its path (before its query). Given
   * or derived, it must be a `ws:` or `wss:` URL without a fragment (checked at construction).
   */
  readonly url?: string | undefined;
  /**
   * Called with each new state of the connection, for a UI, in a microtask: what it throws is an
   * uncaught error, not the connection's (in a browser the connection goes on; Deno and Node end the
   * process, as for any uncaught error). `"reconnecting"` comes only after a first connection.
   * `null` or `false` is none (`{ onStateChange: debug && log }`).
   */
  readonly onStateChange?: ((state: ConnectionState) => void) | null | false | undefined;
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
 * The events of one subscription, as `subscribe` returns them: an async iterator of each event's
 * data, for `for await`. Ending the loop (`break`, `return`, a throw) or calling `return()` ends the
 * subscription (it sends `stop`); the error that ends it otherwise is thrown by `next()`. A plain
 * iterator type, the same on every TypeScript and with no `any` in its results: it is an
 * `AsyncIterableIterator<TData>` too, and an `AsyncGenerator<TData, void>` can stand in for it (in an
 * app's tests, say).
 *
 * @example End a subscription that has not started
 * ```ts
 * import { ServiceClient } from "@seed/service-client";
 * import { RealtimeClient, type Subscription } from "@seed/service-client/realtime";
 *
 * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
 * const realtime = new RealtimeClient(client);
 * const events: Subscription<{ onPost: { id: string } }> = realtime.subscribe("subscription { onPost { id } }");
 * const end = await events.return();
 * console.log(end.done, end.value); // true undefined
 * realtime.close();
 * ```
 */
export interface Subscription<TData> {
  /**
   * The next event's data; done once the subscription has ended. It throws the error that ended it.
   *
   * @example A subscription whose signal has aborted ends at once
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * const events = realtime.subscribe("subscription { onPost { id } }", undefined, { signal: AbortSignal.abort() });
   * await events.next().catch((err) => console.log(err.code)); // "ABORTED"
   * realtime.close();
   * ```
   */
  next(...args: [] | [undefined]): Promise<IteratorResult<TData, void>>;
  /**
   * Ends the subscription (it sends `stop`), dropping the events not yet read: `next()` then gives
   * done. An error that had already ended it is not lost: the read waiting for it, or else the next
   * one, throws it, once.
   *
   * @example End it, then read: it is done
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * const events = realtime.subscribe("subscription { onPost { id } }");
   * await events.return();
   * console.log(await events.next()); // { value: undefined, done: true }
   * realtime.close();
   * ```
   */
  return(value?: undefined): Promise<IteratorResult<TData, void>>;
  /**
   * The subscription itself, for `for await`.
   *
   * @example It iterates itself
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   * import { RealtimeClient } from "@seed/service-client/realtime";
   *
   * const client = new ServiceClient({ url: "https://api.example.com/graphql", auth: { type: "apiKey", apiKey: "da2-example" } });
   * const realtime = new RealtimeClient(client);
   * const events = realtime.subscribe("subscription { onPost { id } }");
   * console.log(events[Symbol.asyncIterator]() === events); // true
   * await events.return();
   * realtime.close();
   * ```
   */
  [Symbol.asyncIterator](): Subscription<TData>;
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
    links.set(this, connection(client, options));
  }

  /**
   * Starts a subscription. Its events come out of the iterator: each `data` event's `data`. A
   * `break`, `return()` or the signal ends it (`stop` is sent, once the service has acknowledged the
   * `start` if it has not yet).
   *
   * @param document A GraphQL string (give the types as `<Data, Variables>`) or a typed document.
   * @param args The variables, then the options.
   * @returns The events' data, in order.
   * @throws {ServiceGraphQLError} From the iterator: an event with errors, without data or that is
   * not an object, a refused `start` (such as `MaxSubscriptionsReachedError`), or a final connection
   * error. (A subscription the service had acknowledged and then refuses as its token expired is
   * started again with fresh auth instead, once a minute at most.)
   * @throws {ServiceAbortError} From the iterator, when the signal ends the subscription, or with the
   * reason `"timeout"` when its first `start` stays unanswered for 15 s once sent, or its auth hangs
   * for 15 s (or two restarts in a row stay unanswered).
   * @throws {ServiceNetworkError} From the iterator, when five sockets in a row were lost before any
   * was acknowledged (a wrong URL, a server that refuses the socket, no network); a
   * `ServiceGraphQLError` when the server refused the last of them with its own error.
   * @throws {ServiceAuthError} From the iterator, when a token getter or credentials provider fails
   * for the first socket or the subscription's first `start`, or for the socket opened again after a
   * token was refused as expired (while reconnecting otherwise, it is retried).
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
   * console.log(await events.return()); // { value: undefined, done: true }: nothing was sent
   * realtime.close();
   * ```
   */
  subscribe<TData = unknown, TVariables extends object = VariablesObject>(
    this: RealtimeClient,
    document: Document<TData, TVariables>,
    ...args: SubscribeArgs<TVariables>
  ): Subscription<TData> {
    return stateOf(links, this).subscribe(document, args) as Subscription<TData>;
  }

  /**
   * The callback form of {@link RealtimeClient.subscribe}: calls `onData` with each event's data,
   * and `onError` with the error that ends the subscription, if one does.
   *
   * @param document A GraphQL string or a typed document.
   * @param variables The variables (`undefined` when the operation has none).
   * @param onData Called with each event's data. An async one is awaited before the next event, in
   * order, and its rejection is what it threw.
   * @param onError Called once with the error that ended the subscription, or that `onData` threw or
   * rejected with (the subscription then ends). It must not throw: what it throws is an unhandled
   * rejection.
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
    this: RealtimeClient,
    document: Document<TData, TVariables>,
    variables: SubscribeArgs<TVariables>[0],
    onData: (data: TData) => void | PromiseLike<void>,
    onError: (error: unknown) => void,
  ): () => void {
    expectFunction(onData, "onData");
    expectFunction(onError, "onError");
    const events = stateOf(links, this).subscribe(document, [variables]) as Subscription<TData>;
    (async () => {
      for await (const data of events) await onData(data);
    })().catch(onError);
    return () => void events.return();
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
    return stateOf(links, this).state();
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
  close(this: RealtimeClient): void {
    stateOf(links, this).close();
  }
}

/**
 * The connection of each client, kept out of the instance as the ServiceClient's state is: a method
 * called without its client throws (`stateOf`).
 */
const links = new WeakMap<RealtimeClient, Connection>();
