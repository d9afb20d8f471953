/**
 * The client's options and the per-request options: their types and their checks. Checks run
 * before anything is sent, for JavaScript callers too, and reject unknown keys by name (a dropped
 * `timeoutMs` would be a request that can hang).
 *
 * @module
 */

import { type AuthOptions, checkAuth } from "./auth.ts";
import { type RetryOptions, type RetryPolicy, retryPolicy } from "./retry.ts";
import {
  type Check,
  checkOptions,
  describe,
  expectFunction,
  fail,
  HEADER_TEXT,
  integer,
  invalid,
  invalidDescribed,
  isObject,
  kindOf,
} from "./validate.ts";

/**
 * The HTTP function the client calls: the global `fetch` or a replacement with its shape.
 *
 * @example Trace every request
 * ```ts
 * import type { FetchFunction } from "@seed/service-client";
 *
 * const traced: FetchFunction = (input, init) => {
 *   console.log("POST", input);
 *   return fetch(input, init);
 * };
 * console.log(typeof traced); // "function"
 * ```
 */
export type FetchFunction = (input: string, init: FetchInit) => Promise<FetchResponse>;

/**
 * What the client hands `fetch` with the endpoint's URL: a POST of a JSON body, which never follows
 * a redirect. It fits the `RequestInit` of every fetch (the global one, undici's, node-fetch's),
 * so a wrapper passes it on as it is, or with options of its own (undici's `dispatcher`, say).
 *
 * @example Send through a proxy on Node with undici (`npm install undici`)
 * ```ts ignore
 * import { ServiceClient } from "@seed/service-client";
 * import { fetch, ProxyAgent } from "undici";
 *
 * const dispatcher = new ProxyAgent("http://proxy.internal:8080");
 * const client = new ServiceClient({
 *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
 *   auth: { type: "apiKey", apiKey: "da2-example" },
 *   fetch: (input, init) => fetch(input, { ...init, dispatcher }),
 * });
 * ```
 */
export interface FetchInit {
  /** Always `POST`. */
  method: "POST";
  /**
   * Every header to send, names in lowercase: the content type, the auth header (or SigV4's) and
   * yours. A new object for each attempt, which a wrapper may change (in iam mode, a change to a
   * signed header breaks the signature).
   */
  headers: Record<string, string>;
  /** The JSON body: `{ query, variables?, operationName? }`. */
  body: string;
  /** Aborted when the call times out or its caller aborts; left out when the call has neither. */
  signal?: AbortSignal;
  /**
   * Always `manual`: a redirect is a `ServiceHttpError` (3xx), never followed. A `fetch` option that
   * follows it anyway has already sent the request, credentials included, to the new address: the
   * client then refuses the response (`ServiceResponseError`) and never retries it.
   */
  redirect: "manual";
}

/**
 * What the client reads of the response `fetch` resolves: a `Response` of any fetch has it all.
 *
 * @example A response made by hand, as a test's fake fetch returns it
 * ```ts
 * import type { FetchResponse } from "@seed/service-client";
 *
 * const response: FetchResponse = new Response(JSON.stringify({ data: { hello: "world" } }), { status: 200 });
 * console.log(response.ok, await response.text()); // true '{"data":{"hello":"world"}}'
 * ```
 */
export interface FetchResponse {
  /** Whether the status is 2xx. */
  readonly ok: boolean;
  /** The HTTP status. */
  readonly status: number;
  /** The status text (empty over HTTP/2). */
  readonly statusText: string;
  /**
   * The response headers (`Retry-After`, `Date` and the rest, copied onto `ServiceHttpError`): a
   * `Headers` of this runtime or of another fetch implementation (undici's), read through `forEach`.
   */
  readonly headers: {
    forEach(callback: (value: string, name: string) => void): void;
    get?(name: string): string | null;
  };
  /** The body, read once, as text, where there is no `body` stream. */
  readonly text: () => Promise<string>;
  /**
   * The body as a stream of bytes (the `ReadableStream` of any fetch: the runtime's, undici's): read
   * chunk by chunk, so that `maxResponseBytes` bounds what is kept. A Node stream (node-fetch's body)
   * is not read as one: the body is read by `text()`, then measured.
   */
  readonly body?:
    | {
      getReader?(): {
        read(): Promise<{ done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined }>;
        cancel(): Promise<void>;
      };
      cancel(): Promise<void>;
    }
    | { readonly pipe: unknown; readonly getReader?: undefined; readonly cancel?: undefined }
    | null;
  /** `"cors"` for a browser's cross-origin response, whose `content-encoding` may be hidden. */
  readonly type?: string;
  /**
   * Whether fetch followed a redirect (the client refuses the response then). Without it, a `url` on
   * another origin is taken as one.
   */
  readonly redirected?: boolean;
  /** The URL of the response, after any redirect fetch followed. */
  readonly url?: string;
}

/**
 * Extra request headers: a plain object (a header set to `undefined` is left out) or a `Headers`.
 * Auth and content headers, `host`, and the headers of framing that fetch sets (`content-length`,
 * `transfer-encoding`, `keep-alive`, …) cannot be set here: they are refused with an error naming
 * the header. In a browser, leave out the headers a page may not set (`origin`, `cookie`,
 * `accept-encoding`, …): the browser drops or replaces them, and with iam the signature covered
 * what was given, so the service refuses it.
 *
 * @example Either form
 * ```ts
 * import type { HeaderValues } from "@seed/service-client";
 *
 * const plain: HeaderValues = { "x-request-id": "r-1" };
 * const headers: HeaderValues = new Headers({ "x-request-id": "r-2" });
 * console.log(plain, headers.get("x-request-id"));
 * ```
 */
export type HeaderValues = Readonly<Record<string, string | undefined>> | Headers;

/**
 * The options of `new ServiceClient(options)`.
 *
 * @example Every option
 * ```ts
 * import type { ServiceClientOptions } from "@seed/service-client";
 *
 * const options: ServiceClientOptions = {
 *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
 *   auth: { type: "apiKey", apiKey: "da2-example" },
 *   retry: { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000 },
 *   headers: { "x-app": "demo" },
 *   timeoutMs: 20_000,
 *   signal: new AbortController().signal,
 *   fetch: (input, init) => fetch(input, init),
 * };
 * console.log(Object.keys(options).length); // 7
 * ```
 */
export interface ServiceClientOptions {
  /** The absolute `http:` or `https:` URL of the GraphQL endpoint, such as `https://….appsync-api.….amazonaws.com/graphql`. */
  readonly url: string | URL;
  /** The auth mode and its secret; see {@link AuthOptions}. */
  readonly auth: AuthOptions;
  /** The retry policy. Without it, one attempt per request. */
  readonly retry?: RetryOptions | undefined;
  /**
   * Replaces the global `fetch`, for tracing or request options. Pass `init.signal` on: the call ends
   * at its timeout or abort either way, but a request without the signal keeps running. Without it,
   * the global `fetch` is looked up at each request (a mock installed later is used).
   */
  readonly fetch?: FetchFunction | undefined;
  /** Headers sent with every request, below the request's own headers and the auth headers. */
  readonly headers?: HeaderValues | undefined;
  /** A default timeout for every call, in ms; a request's `timeoutMs` can only shorten it. No default. */
  readonly timeoutMs?: number | undefined;
  /**
   * A signal that aborts every request of this client (for instance on logout or shutdown), and
   * ends the subscriptions of its `RealtimeClient`s.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * The most bytes of a response body read, counted as the body arrives (after decompression): a
   * larger one ends the read and fails the call: a 2xx with a `ServiceResponseError`, never
   * retried; a non-2xx stays a `ServiceHttpError`, without its body, retried as its status is.
   * Default 16 MiB (16,777,216), far over the service's own limit of a few MB.
   */
  readonly maxResponseBytes?: number | undefined;
}

/**
 * The per-request options (third argument of `request`, `requestRaw`, `query`, `mutate`).
 *
 * @example Bound one call
 * ```ts
 * import type { RequestOptions } from "@seed/service-client";
 *
 * const controller = new AbortController();
 * const options: RequestOptions = {
 *   signal: controller.signal,
 *   timeoutMs: 5_000,
 *   operationName: "Post",
 *   headers: { "x-request-id": "r-1" },
 *   retry: { attempts: 1 }, // no retry for this call, whatever the client's policy
 * };
 * console.log(options.timeoutMs); // 5000
 * ```
 */
export interface RequestOptions {
  /** Aborts the call when aborted: every attempt, the waits between them and the body read. */
  readonly signal?: AbortSignal | undefined;
  /** Aborts the call after this many ms (an integer from 1); the earlier of this and the client's wins. */
  readonly timeoutMs?: number | undefined;
  /** The operation to run when the document holds several. */
  readonly operationName?: string | undefined;
  /** Headers for this request, over the client's `headers`. */
  readonly headers?: HeaderValues | undefined;
  /**
   * A retry policy for this call, in place of the client's (missing fields take the defaults, as
   * there): `{ attempts: 1 }` turns retries off for a mutation that is not idempotent.
   */
  readonly retry?: RetryOptions | undefined;
  /** The most bytes of the response body read, in place of the client's `maxResponseBytes`. */
  readonly maxResponseBytes?: number | undefined;
}

/** Client options after checking. */
export interface ClientConfig extends RequestConfig {
  readonly url: string;
  readonly auth: AuthOptions;
  readonly fetch: FetchFunction;
}

/** Per-request options after checking. */
export interface RequestConfig {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
  readonly operationName?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly retry?: RetryPolicy | undefined;
  readonly maxResponseBytes?: number | undefined;
}

/** The options a client and a request share, and their checks. */
const COMMON: Readonly<Record<string, Check>> = {
  signal: (signal, field) =>
    isObject(signal) && typeof signal.aborted == "boolean" && typeof signal.addEventListener == "function" &&
      typeof signal.removeEventListener == "function"
      ? signal
      : fail(field, "an AbortSignal", signal),
  timeoutMs: integer(1),
  maxResponseBytes: integer(1),
  headers: headerRecord,
  retry: retryPolicy,
};

/**
 * The client's options and their checks: `auth`, `url` and `fetch`, which the client always reads,
 * are checked even when absent (the first two are required; `fetch` falls back to the global one,
 * when there is one). `auth` comes first: 0.x options (`auth: { mode, apiUrl, apiKey }`, no `url`)
 * get the migration hint of `auth.type` before anything else.
 */
const CLIENT: Readonly<Record<string, Check>> = {
  auth: checkAuth,
  url: checkUrl,
  // Without a `fetch` option, the global one, looked up at each request (a mock installed later is used);
  // checked here first, so that a runtime without one is told so at construction.
  fetch: (fetch, field) =>
    fetch !== undefined ? expectFunction(fetch, field) : expectFunction(globalThis.fetch, field, "fetch") &&
      ((input: string, init: FetchInit) => globalThis.fetch(input, init)),
  ...COMMON,
};

/** A request's options and their checks (`operationName` is named as it always was: no client has one). */
const REQUEST: Readonly<Record<string, Check>> = {
  operationName: (value) =>
    typeof value == "string" && value ? value : fail("operationName", "a non-empty string", value),
  ...COMMON,
};

/**
 * Checks the client options: the ones given, and `auth`, `url` and `fetch` always (the client's state,
 * `clientState` in `call.ts`, adds the one-attempt default of `retry`).
 *
 * @throws {TypeError | RangeError} Naming the field and its current value (secrets by type only).
 */
export function clientConfig(options: unknown): ClientConfig {
  return checkOptions(options, "options", CLIENT, "", 3) as unknown as ClientConfig;
}

/**
 * Checks per-request options.
 *
 * @throws {TypeError | RangeError} Naming the field and its current value.
 */
export function requestConfig(options: unknown): RequestConfig {
  return options === undefined ? {} : checkOptions(options, "request options", REQUEST, "request ");
}

/**
 * The endpoint, as an absolute http(s) URL without credentials. The value is never quoted: a URL
 * may carry a password or a key, and a misplaced setting may be one.
 */
function checkUrl(url: unknown): string {
  try {
    const parsed = new URL(url as string);
    if (
      (typeof url == "string" || url instanceof URL) && /^https?:$/.test(parsed.protocol) &&
      !parsed.username &&
      !parsed.password
    ) return parsed.href;
  } catch {
    // reported below
  }
  fail("url", "an absolute http(s) URL without credentials", url, false, true);
}

/** Copies caller headers into a record with lower-case names, refusing the reserved ones. */
function headerRecord(value: unknown, field: string): Readonly<Record<string, string>> {
  // A `Headers` is an object too, of this runtime or of another implementation (undici's, tagged
  // `Headers`; whatwg-fetch's, untagged): read as the iterable it is, or its own fields would be taken
  // for headers. Any other kind (a Map, say) would be read as an object with no headers.
  const kind = isObject(value) && kindOf(value);
  if (kind != "Object" && kind != "Headers") {
    throw invalidDescribed(field, "an object or Headers", kind ? "a " + kind : describe(value));
  }
  const record: Record<string, string> = {};
  try {
    // A header set to `undefined` in a record is left out, as it is absent in the types.
    new Headers(
      Symbol.iterator in (value as object)
        ? value as unknown as Headers
        : Object.entries(value!).filter((entry) => entry[1] !== undefined) as [string, string][],
    ).forEach((headerValue, name) => record[name] = headerValue);
  } catch {
    // The runtime's message may quote the value, so it is not kept as the cause.
    throw invalid(`Invalid ${field}: a name or value is not a valid HTTP header`);
  }
  for (const name in record) {
    const headerValue = record[name]!;
    // Headers takes control characters that fetch refuses when sending (a network error, retried).
    // The caller may not give the headers the client sets, nor the ones of framing that fetch sets
    // from the body (Node's fetch refuses `expect`, `keep-alive`, `transfer-encoding`, `upgrade` and a
    // `content-length` that does not match, so every request would fail; browsers drop them all; Deno
    // sends them). `connection` passes as `close` or `keep-alive` only: any other value fails every
    // request on Node.
    const problem = !HEADER_TEXT.test(headerValue)
      ? "has a character it cannot hold"
      : /^(content-(type|length)|authorization|x-api-key|host|x-amz-(date|security-token)|expect|keep-alive|te|trailer|transfer-encoding|upgrade)$/
          .test(name) ||
          name == "connection" && !/^(close|keep-alive)$/i.test(headerValue)
      ? "is set by the client or by fetch"
      : "";
    if (problem) throw invalid(`Invalid ${field}: \`${name}\` ${problem}`);
  }
  return record;
}
