/**
 * The connection behind a `RealtimeClient` (see `realtime.ts`, which documents the behaviour): one
 * socket and its subscriptions, the protocol's messages, the watchdog, the backoff and the restarts.
 * Internal: `realtime.ts` is the entry, and wraps what {@link connection} returns.
 *
 * @module
 */

import { checkVariables, type ClientState, serialize, watch } from "./call.ts";
import { authorize, configOf, type ServiceClient } from "./client.ts";
import { prepareDocument } from "./document.ts";
import {
  type GraphQLFormattedError,
  isFormattedError,
  ServiceAbortError,
  ServiceGraphQLError,
  ServiceNetworkError,
} from "./errors.ts";
import { requestConfig } from "./options.ts";
import type {
  ConnectionState,
  RealtimeOptions,
  Subscription as Events,
  WebSocketConstructor,
  WebSocketLike,
} from "./realtime.ts";
import { expectFunction, expectOptions, fail, invalid, isObject } from "./validate.ts";

/** One subscription, as the connection knows it. */
interface Subscription {
  /** The `start` payload's `data`, once the document is ready. */
  data?: string;
  /**
   * The socket whose `start_ack` it last had (acknowledged on the current socket when that is
   * `socket`); `undefined` before any ack or lost socket; `false` once a socket was lost under it
   * before any ack, or once a restart of it went unanswered. Once it is not `undefined`, its next
   * `start` is a restart; while it holds a socket, a `start` of it left unanswered means a dead socket
   * rather than a refusal (see `start`).
   */
  acked?: object | false | undefined;
  /** The headers of its last `start` sent: cut out of the service's errors for it. */
  sent?: object;
  /** Ends it when its `start` stays unanswered, or takes the socket as lost (see `start`). */
  wait?: ReturnType<typeof setTimeout>;
  /** Queues an event's payload for its reader, or ends it with the service's error for it (`refused`). */
  push(payload: Payload, refused?: boolean): void;
  /**
   * Ends it, with an error to throw; `stop` when the service is to be told (the caller, its signal or
   * a malformed event ended it), not when the service ended it already or never started it.
   */
  end(error?: unknown, stop?: boolean): void;
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
/** The error codes and types after which reconnecting cannot help. */
const FINAL = /^(40[013]|BadRequestException|UnauthorizedException)$/;

/** What a `RealtimeClient` calls: its state, `close()` and `subscribe()`. */
export interface Connection {
  state(): ConnectionState;
  close(): void;
  subscribe(document: unknown, args: readonly unknown[]): Events<unknown>;
}

/** The socket and subscriptions of one `RealtimeClient`. */
export function connection(client: ServiceClient, options: RealtimeOptions | undefined): Connection {
  expectOptions(options ??= {}, "options", ["webSocket", "authIn", "url", "onStateChange"]);
  // The client's own content type (the caller's headers cannot change it), which iam signs with.
  const { url: graphql, signal: clientSignal, headers: { "content-type": contentType } } = configOf(
    client,
  ) as ClientState;
  /** The GraphQL URL with `path` appended to its path (before its query, if it has one). */
  const under = (path: string) => graphql.replace(/[?#]|$/, path + "$&");
  const { authIn = "protocol", onStateChange } = options as RealtimeOptions;
  const webSocket = expectFunction(
    options.webSocket ?? globalThis.WebSocket,
    "webSocket",
    "WebSocket",
  ) as WebSocketConstructor;
  // Only the standard host, `<id>.appsync-api.<region>.amazonaws.com` (or `.com.cn`), has a real-time
  // host, `appsync-api` becoming `appsync-realtime-api` (the id is a word: its first `-api` is the
  // service's); any other URL, a custom domain's, gets `/realtime` after its path. The client's URL is
  // normalized (a lower-case scheme and host, a path from `/`).
  const url: string = (options as RealtimeOptions).url ??
    (/^https:\/\/\w+\.appsync-api\.[\w-]+\.amazonaws\.com(\.cn)?\//i.test(graphql)
      ? graphql.replace("-api", "-realtime-api")
      : under("/realtime")).replace(/^http/i, "ws");
  if (authIn != "protocol" && authIn != "query") fail("authIn", '"protocol" or "query"', authIn);
  // As the WebSocket constructor checks it (a fragment, a bad port): it throws for what no retry mends.
  // Another scheme, or a fragment, is refused as an unparsable URL is (`new URL("")` throws).
  try {
    new URL(/^wss?:\/\/[^#]*$/i.test(url) ? url : "");
  } catch {
    fail("url", "a ws: or wss: URL without a fragment", url);
  }
  if (onStateChange) expectFunction(onStateChange, "onStateChange");
  const subscriptions = new Map<string, Subscription>();
  /**
   * The current socket, from its auth to its close: a token of its own, which its handlers and its
   * starts compare with.
   */
  let socket: object | undefined;
  /**
   * The current socket's WebSocket, once its auth has come (`terminate`, where it has it, ends it
   * without the close handshake).
   */
  let ws: WebSocketLike | undefined;
  let state: ConnectionState = "closed";
  /** The watchdog of the socket (from its auth to its ack, then between messages), or the backoff. */
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  /**
   * How long the socket may stay silent: the ack's timeout first (set as each socket opens), then the
   * service's `connectionTimeoutMs`.
   */
  let timeoutMs: number;
  /** Sockets opened since the last keep-alive: the backoff's exponent (0 as the first one opens). */
  let attempt: number;
  /** Whether a socket of this client was ever acknowledged: its URL and auth are known to work. */
  let acknowledged = false;
  /** The headers the current socket connected with: cut out of the service's connection errors. */
  let sent: object | undefined;
  let ids = 0;
  /** When a token refused as expired last opened the socket again (`Date.now()`). */
  let renewed = 0;

  const setState = (next: ConnectionState) => {
    if (state != next) {
      state = next;
      // In a microtask: what a callback throws is an uncaught error of its own, not the connection's.
      if (onStateChange) queueMicrotask(() => onStateChange(next));
    }
  };
  /** The `host` and auth headers of a POST of `body` to `path` under the GraphQL URL. */
  const headers = async (path: string, body: string) => ({
    // The headers an iam `/connect` and `start` are signed with; sent for every mode.
    ...await authorize(client, under(path), body, {
      accept: "application/json, text/javascript",
      "content-encoding": "amz-1.0",
      "content-type": contentType!,
    }),
    host: new URL(graphql).host,
  });
  // Only to an open socket: Deno 1 and older `ws` throw once it is closing (a `stop` then would leave
  // its subscription's readers waiting).
  const send = (message: object) => ws?.readyState == 1 && ws.send(JSON.stringify(message));
  /**
   * (Re)arms the watchdog: a socket silent for its timeout is lost. It looks at the wall clock every 5 s
   * rather than waiting for one timer, which a machine asleep holds back (the socket is long dead then,
   * and would still say "connected" for up to the whole timeout after waking).
   */
  const rearm = (since = Date.now()) => {
    clearTimeout(timer);
    // A clock set back before the last message cannot tell how long the socket has been silent: the
    // socket is given up too (a new one costs less than a dead one kept).
    const silent = Date.now() - since;
    if (silent >= 0 && silent < timeoutMs) timer = setTimeout(rearm, 5_000, since);
    else lost();
  };
  /**
   * The socket closed, went silent or was refused (`error`: the server's words, if it sent any): it is
   * dropped, and another opened while subscriptions live. Before this client's first socket was
   * acknowledged (still `connecting`), the fifth loss ends them: the URL, the server or the network is
   * wrong, and the caller is told. Once one was, they wait for the network as after any loss, the next
   * socket after an idle close included. (Not with the close event, whose socket may hold credentials in its URL.) `end`
   * drops the socket through it too, once no subscription is left.
   */
  const lost = (error?: unknown) => {
    clearTimeout(timer);
    const closing = ws;
    // Forgotten first: closing may fire its handlers at once (Node 22's fires `error` again), and they
    // then belong to no socket.
    socket = ws = undefined;
    closing?.close();
    // `ws` waits 30 s for a silent peer's close frame, and the process with it (Bun's too): it is cut
    // after a second. The standard WebSocket has no such method: Deno's and Node 22+'s, closed towards
    // a frozen peer, keep the process alive (over a minute on Node 22; on Deno, as long as the peer
    // keeps the connection), which no option shortens.
    if (closing?.readyState == 2 && closing.terminate) {
      const cut = setTimeout(() => closing.terminate!(), 1_000);
      closing.onclose = () => clearTimeout(cut);
    }
    if (!subscriptions.size) return setState("closed");
    if (state == "connecting") {
      if (attempt > 3 && !acknowledged) return end(error ?? new ServiceNetworkError());
    } else setState("reconnecting");
    // Each one's next `start` is a restart (`acked` is no longer `undefined`).
    subscriptions.forEach((subscription) => {
      subscription.acked ??= false;
      clearTimeout(subscription.wait);
    });
    timer = setTimeout(open, Math.min(5_000, 250 * 2 ** attempt++) * (0.5 + Math.random() / 2));
  };
  /** A connection error: final ones end every subscription, others reconnect. */
  const failed = (payload: Payload) => {
    const errors = errorsOf(payload);
    // A final refusal ends every subscription; any other error is a lost socket, opened again.
    const final = errors.some((error) =>
      FINAL.test(error.errorCode as string) || FINAL.test(error.errorType!)
    );
    // Its words may quote the key or token the socket connected with: cut out, as for a request.
    (final ? end : lost)(new ServiceGraphQLError(errors, undefined, undefined, sent));
  };
  const end = (error?: unknown) => {
    subscriptions.forEach((subscription) => subscription.end(error));
    clearTimeout(idle);
    // None is left: `lost` drops the socket and says closed.
    lost();
  };
  const start = async (subscription: Subscription, id: string) => {
    // Not ready yet (its document is still being prepared): `subscribe` starts it once it is ready.
    if (!subscription.data) return;
    const current = socket;
    // Still on the socket it was started on, and not ended (no other subscription is ever under its id).
    const live = () => socket == current && subscriptions.has(id);
    // Until the start is sent: a getter that hangs ends the subscription. (A second connection_ack,
    // from a peer that misbehaves, starts it again: the first start's timer goes.)
    clearTimeout(subscription.wait);
    subscription.wait = setTimeout(
      () => subscription.end(new ServiceAbortError("timeout")),
      ACK_TIMEOUT_MS,
    );
    try {
      const authorization = await headers("", subscription.data!);
      if (live()) {
        // Its headers are kept only once sent: a late answer of an earlier start's getter changes nothing.
        send({
          id,
          type: "start",
          payload: {
            data: subscription.data,
            extensions: { authorization: subscription.sent = authorization },
          },
        });
        // A restart left unanswered most likely means a socket that died without a word (a network
        // drop just after a reconnect): it is opened again, and every subscription started again, as
        // for any lost socket. A first start left unanswered (the service does not answer it), or a
        // second restart in a row, ends its subscription with a timeout.
        clearTimeout(subscription.wait);
        subscription.wait = setTimeout(
          () =>
            subscription.acked
              ? (subscription.acked = false, lost())
              : subscription.end(new ServiceAbortError("timeout")),
          ACK_TIMEOUT_MS,
        );
      }
    } catch (error) {
      // A getter failing for a restart fails as the reconnect's own would: the socket is opened again
      // (unless the subscription has ended since: the socket is then the others').
      if (subscription.acked == undefined) subscription.end(error);
      else if (live()) lost();
    }
  };
  const receive = (text: unknown) => {
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
      // The service's timeout, from a minute (as the official subscription link takes it: a timeout
      // of 1 would close each socket as it opens); 5 minutes when it is not a number (the simulator's,
      // which it spells `connectionTimeout`, is 5 minutes).
      timeoutMs = Math.max(60_000, payload?.connectionTimeoutMs as number) || 300_000;
      rearm();
      setState("connected");
      acknowledged = true;
      subscriptions.forEach(start);
    } else if (type == "start_ack") {
      // A start_ack for a subscription ended before it came: stop it now.
      if (subscription) {
        subscription.acked = socket;
        clearTimeout(subscription.wait);
      } else send({ id, type: "stop" });
    } else if (type == "ka") attempt = 0; // a socket that lives: the next loss reconnects at once
    else if (
      type == "error" && subscription?.acked == socket && Date.now() - renewed > 60_000 &&
      /token has expired/i.test(text as string)
    ) {
      // A token that expired while its subscription lived ("UnauthorizedException", "Token has
      // expired."): the socket is opened again with fresh auth, as the official clients do, and every
      // subscription started again. Only for a subscription the service had acknowledged (not a start
      // or restart refused), and once a minute: a service that acknowledges and then refuses makes no
      // loop. With `attempt` reset, a getter that fails for the new socket ends the subscriptions with
      // its error, as for a first socket.
      renewed = Date.now();
      attempt = -1;
      lost();
    } else if (type == "data" || type == "error" && id) subscription?.push(payload, type == "error");
    else if (type == "complete") subscription?.end();
    else if (type == "connection_error" || type == "error") failed(payload);
  };
  const open = async () => {
    // Nothing left to serve (the last subscription ended meanwhile): closed, as `lost` leaves it.
    if (!subscriptions.size) return lost();
    const current = socket = {};
    timeoutMs = ACK_TIMEOUT_MS;
    if (state == "closed") {
      attempt = 0;
      setState("connecting");
    }
    // The auth counts against the ack's timeout: a getter that hangs is given up, and tried again.
    rearm();
    let authorization;
    try {
      authorization = await headers("/connect", "{}");
    } catch (error) {
      // A getter failing for the first socket is the caller's to mend; for a later one, it most likely
      // fails for the reason the socket before it was lost (the network), and is tried again.
      return socket == current && (attempt ? lost : end)(error);
    }
    if (socket != current) return;
    // Kept once this socket is the current one: an earlier socket's late getter changes nothing.
    const header = btoa(JSON.stringify(sent = authorization));
    // Nothing left to serve once the token has come (a logout while it was read): no socket opens,
    // and this one is forgotten, so that the next subscription opens its own.
    if (!subscriptions.size) return lost();
    let opened: Handlers;
    try {
      opened = ws = new webSocket(
        authIn == "query"
          ? `${url}${/\?/.test(url) ? "&" : "?"}header=${encodeURIComponent(header)}&payload=e30=`
          : url,
        authIn == "query"
          ? ["graphql-ws"]
          : ["graphql-ws", "header-" + header.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_")],
      ) as WebSocketLike & Handlers;
    } catch (error) {
      // It throws for what no retry mends (a URL or subprotocol it refuses, a page's security policy):
      // a bad argument, as a bad url option is. Its own error stays out (it may quote the URL): only
      // its name is told (a thrown value that is not an error has none: "undefined").
      return end(invalid("new WebSocket() threw " + (error as Error)?.name));
    }
    // Standard sockets fire `close` after `error`, but Node 22's does not when it cannot connect.
    opened.onclose = opened.onerror = () => socket == current && lost();
    opened.onopen = () => socket == current && send({ type: "connection_init" });
    opened.onmessage = (event) => socket == current && receive(event.data);
  };

  return {
    state: () => state,
    close: end,
    subscribe(document: unknown, [variables, options]: readonly unknown[]): Events<unknown> {
      const id = ++ids + "";
      const queue: unknown[] = [];
      const waiting: (() => void)[] = [];
      /** Set once it has ended, for good. */
      let ended: true | undefined;
      let failure: unknown;
      const stops: ((() => void) | void)[] = [];
      const subscription: Subscription = {
        push(payload, refused) {
          // An event without data is malformed too: its type promises data (a payload that is not an
          // object, as JSON gives it, has none). The service's words may quote the variables or the
          // token: cut out of the message, as for a request (the variables as they were sent).
          if (refused || payload?.data == null || [payload.errors ?? []].flat().length) {
            return subscription.end(
              new ServiceGraphQLError(errorsOf(payload), payload?.data, undefined, [
                JSON.parse(subscription.data!).variables,
                subscription.sent,
              ]),
              !refused,
            );
          }
          queue.push(payload.data);
          waiting.splice(0).forEach((wake) => wake());
        },
        end(error, stop) {
          if (ended) return;
          ended = true;
          failure = error;
          stops.forEach((stop) => stop?.());
          clearTimeout(subscription.wait);
          // Its id is its own: only it was ever under that key, until it ended or the connection did.
          if (subscriptions.delete(id)) {
            if (stop && subscription.acked == socket) send({ id, type: "stop" });
            // The last one: the socket closes a second later, unless a subscription comes first.
            if (!subscriptions.size) {
              clearTimeout(idle);
              idle = setTimeout(() => subscriptions.size || end(), socket ? 1_000 : 0);
            }
          }
          waiting.splice(0).forEach((wake) => wake());
        },
      };
      const iterator: Events<unknown> = {
        async next() {
          while (!queue.length && !ended) await new Promise<void>((wake) => waiting.push(wake));
          if (queue.length) return { value: queue.shift(), done: false };
          const error = failure;
          failure = undefined;
          if (error) throw error;
          return { value: undefined, done: true };
        },
        // deno-lint-ignore require-await -- async for the promise an iterator's return gives
        async return() {
          // Ended by the caller: the events not read are dropped. An error that had ended it stays,
          // for the one read that is waiting or comes next: it is never lost.
          queue.length = 0;
          subscription.end(undefined, true);
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      try {
        expectOptions(options ??= {}, "subscribe options", ["signal"]);
        // The checks of request(): the same signals and variables are refused, with the same words;
        // the variables are written now, as the caller gave them.
        const { signal } = requestConfig(options);
        const variablesText = checkVariables(variables);
        subscriptions.set(id, subscription); // a pending idle close sees it, and leaves the socket open
        // The subscription's signal and the client's (logout, shutdown) end it. One listener per
        // signal, however many subscriptions share it (Node warns past 10); none once it has ended.
        [clientSignal, signal].forEach((each) =>
          each && !ended && stops.push(watch(each, (error) => subscription.end(error, true)))
        );
        // A bad document throws here, and ends the subscription at once; a node is printed later.
        const prepared = prepareDocument(document);
        (async () => {
          subscription.data = serialize(await prepared, variablesText);
          if (ended) return;
          if (!socket) open();
          else if (state == "connected") start(subscription, id);
        })().catch(subscription.end);
      } catch (error) {
        subscription.end(error);
      }
      return iterator;
    },
  };
}

/**
 * The errors of a payload: a list, or one object (as `MaxSubscriptionsReachedError` has it). An
 * error without a message gets "Malformed message" (its `errorType` and `errorCode` are kept); what
 * is not a formatted error even so is left out; with none left, one error says the message was
 * malformed (an event that is not an object, say). The words are spelt out twice: a shared constant
 * costs the bundle 4 B more, gzipped.
 */
function errorsOf(payload: Payload): (GraphQLFormattedError & { errorCode?: unknown })[] {
  const errors = [payload?.errors].flat().filter(isObject)
    .map((error) => ({ message: "Malformed message", ...error }))
    .filter(isFormattedError);
  return errors.length ? errors : [{ message: "Malformed message" }];
}
