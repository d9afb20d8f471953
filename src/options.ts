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
  describe,
  expectInteger,
  expectOptions,
  headerProblem,
  invalid,
  invalidDescribed,
  invalidValue,
  isObject,
  kindOf,
  MAX_TIMER_MS,
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
  /** Aborted when the call times out or its caller aborts; `null` when the call has neither. */
  signal: AbortSignal | null;
  /** Always `manual`: a redirect is a `ServiceHttpError` (3xx), never followed. */
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
  readonly headers: { forEach(callback: (value: string, name: string) => void): void };
  /** The body, read once, as text. */
  readonly text: () => Promise<string>;
}

/**
 * Extra request headers: a plain object (a header set to `undefined` is left out) or a `Headers`.
 * Auth and content headers, `host`, and the headers of framing that fetch sets (`content-length`,
 * `transfer-encoding`, `keep-alive`, …) cannot be set here: they are refused with an error naming
 * the header.
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
  /** A signal that aborts every call of this client (for instance on logout or shutdown). */
  readonly signal?: AbortSignal | undefined;
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
}

/** Client options after checking. */
export interface ClientConfig {
  readonly url: string;
  readonly auth: AuthOptions;
  readonly retry: RetryPolicy;
  readonly fetch: FetchFunction;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal | undefined;
}

/**
 * Headers the caller may not give: the ones the client sets, and the ones of framing that fetch sets
 * from the body (Node's fetch refuses `expect`, `keep-alive`, `transfer-encoding`, `upgrade` and a
 * `content-length` that does not match, so every request would fail; browsers drop them all; Deno
 * sends them). `connection` passes: `close` is meaningful on Node.
 */
const RESERVED_HEADERS = [
  "content-type",
  "authorization",
  "x-api-key",
  "host",
  "x-amz-date",
  "x-amz-security-token",
  "content-length",
  "expect",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/**
 * Checks the client options.
 *
 * @throws {TypeError | RangeError} Naming the field and its current value (secrets by type only).
 */
export function clientConfig(options: unknown): ClientConfig {
  expectOptions(options, "options", ["url", "auth", "retry", "fetch", "headers", "timeoutMs", "signal"]);
  const { url, auth } = options;
  const fetch = options.fetch === undefined
    ? globalThis.fetch && ((input: string, init: RequestInit) => globalThis.fetch(input, init))
    : options.fetch;
  checkAuth(auth);
  if (typeof fetch !== "function") {
    if (options.fetch !== undefined) throw invalidValue("fetch", "a function", fetch);
    throw invalid("Cannot create the client: this runtime has no global fetch; pass a `fetch` option");
  }
  return {
    url: checkUrl(url),
    auth,
    retry: retryPolicy(options.retry),
    fetch: fetch as FetchFunction,
    ...commonOptions(options, ""),
  };
}

/** Per-request options after checking. */
export interface RequestConfig {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
  readonly operationName?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The call's own retry policy, if it has one. */
  readonly retry?: RetryPolicy | undefined;
}

/** A request without options: every field is absent. */
const NO_REQUEST_OPTIONS: RequestConfig = {};

/**
 * Checks per-request options.
 *
 * @throws {TypeError | RangeError} Naming the field and its current value.
 */
export function requestConfig(options: unknown): RequestConfig {
  if (options === undefined) return NO_REQUEST_OPTIONS;
  expectOptions(options, "request options", ["signal", "timeoutMs", "operationName", "headers", "retry"]);
  const { operationName, retry } = options;
  if (operationName !== undefined && (typeof operationName !== "string" || operationName === "")) {
    throw invalidValue("operationName", "a non-empty string", operationName);
  }
  return {
    operationName,
    retry: retry === undefined ? undefined : retryPolicy(retry),
    ...commonOptions(options, "request "),
  };
}

/** The options a client and a request share: `signal`, `timeoutMs` and `headers`. */
function commonOptions(options: Record<string, unknown>, prefix: string) {
  const { signal, timeoutMs, headers } = options;
  if (
    signal !== undefined &&
    !(isObject(signal) && typeof signal.aborted === "boolean" &&
      typeof signal.addEventListener === "function" &&
      typeof signal.removeEventListener === "function")
  ) {
    throw invalidValue(prefix + "signal", "an AbortSignal", signal);
  }
  return {
    signal: signal as AbortSignal | undefined,
    timeoutMs: timeoutMs === undefined
      ? undefined
      : expectInteger(timeoutMs, prefix + "timeoutMs", 1, MAX_TIMER_MS),
    headers: headers === undefined ? undefined : headerRecord(headers, prefix + "headers"),
  };
}

function checkUrl(url: unknown): string {
  const urlLike = typeof url === "string" || url instanceof URL;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url as string);
  } catch {
    // reported below
  }
  if (!urlLike || !/^https?:$/.test(parsed?.protocol!)) {
    throw invalidDescribed(
      "url",
      "an absolute http(s) URL",
      // Never quoted: a URL may carry a password or a key, and a misplaced setting may be one.
      !urlLike
        ? describe(url)
        : parsed
        ? "a URL with the scheme " + parsed.protocol
        : url
        ? "a string that is not an absolute URL"
        : "an empty string",
    );
  }
  if (parsed!.username || parsed!.password) {
    throw invalid("Invalid url: credentials in the URL are not allowed");
  }
  return parsed!.href;
}

/** Copies caller headers into a record with lower-case names, refusing the reserved ones. */
function headerRecord(value: unknown, field: string): Readonly<Record<string, string>> {
  // A `Headers` is an object too, of this runtime or of another implementation (undici's, tagged
  // `Headers`; whatwg-fetch's, untagged): read as the iterable it is, or its own fields would be taken
  // for headers. Any other kind (a Map, say) would be read as an object with no headers.
  if (!isObject(value)) throw invalidValue(field, "an object or Headers", value);
  const kind = kindOf(value);
  if (kind !== "Object" && kind !== "Headers") {
    throw invalidDescribed(field, "an object or Headers", "a " + kind);
  }
  const record: Record<string, string> = {};
  try {
    // A header set to `undefined` in a record is left out, as it is absent in the types.
    new Headers(
      Symbol.iterator in value
        ? value as unknown as Headers
        : Object.entries(value).filter((entry) => entry[1] !== undefined) as [string, string][],
    ).forEach((headerValue, name) => record[name] = headerValue);
  } catch {
    // The runtime's message may quote the value, so it is not kept as the cause.
    throw invalid(`Invalid ${field}: a name or value is not a valid HTTP header`);
  }
  for (const name in record) {
    // Headers takes control characters that fetch refuses when sending (a network error, retried).
    const problem = headerProblem(record[name]!);
    if (problem) throw invalid(`Invalid ${field}: \`${name}\` has ${problem}`);
  }
  for (const name of RESERVED_HEADERS) {
    if (name in record) {
      throw invalid(`Invalid ${field}: \`${name}\` is set by the client or by fetch, not by the caller`);
    }
  }
  return record;
}
