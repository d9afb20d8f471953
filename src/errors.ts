/**
 * The errors the client throws. Every class carries a stable string `code`, so callers can branch
 * with `instanceof` or, when two copies of the package are loaded (ESM and CJS), with `code`
 * through {@link isServiceError}.
 *
 * Messages name the status or the problem, never a token, a key, a signature, variables or a
 * response body: data that may be sensitive stays on properties, and secrets stay off errors.
 * What the server sent (`body`, `errors`, `data`, `extensions`) can echo variables or secrets (a
 * GraphQL validation error quotes a variable's value; AWS's signature errors quote the canonical
 * request, session token included), so those properties are non-enumerable getters: `err.errors`
 * reads them, while `JSON.stringify`, object spread and `util.inspect`/`Deno.inspect` (which print an
 * error's `errors` array even when it is not enumerable, also in Node's report of an uncaught
 * error) show `[Getter]` or nothing in their place.
 *
 * @module
 */

import { isObject } from "./validate.ts";

/**
 * The stable `code` of every error class, keyed by a readable name.
 *
 * @example Compare codes without the classes
 * ```ts
 * import { ErrorCode } from "@seed/service-client";
 *
 * function isTimeoutLike(err: { code?: string }): boolean {
 *   return err.code === ErrorCode.Aborted || err.code === ErrorCode.Network;
 * }
 * console.log(isTimeoutLike({ code: "ABORTED" })); // true
 * ```
 */
export const ErrorCode: {
  readonly GraphQL: "GRAPHQL_ERROR";
  readonly Http: "HTTP_ERROR";
  readonly Aborted: "ABORTED";
  readonly Network: "NETWORK_ERROR";
  readonly BadResponse: "BAD_RESPONSE";
  readonly Auth: "AUTH_ERROR";
  readonly InvalidArgument: "INVALID_ARGUMENT";
} = /* @__PURE__ */ Object.freeze(
  {
    /** The response held a non-empty `errors` array ({@link ServiceGraphQLError}). */
    GraphQL: "GRAPHQL_ERROR",
    /** The HTTP status was not 2xx ({@link ServiceHttpError}). */
    Http: "HTTP_ERROR",
    /** The caller's signal or `timeoutMs` ended the call ({@link ServiceAbortError}). */
    Aborted: "ABORTED",
    /** No response was received ({@link ServiceNetworkError}). */
    Network: "NETWORK_ERROR",
    /** A 2xx response was not a GraphQL response, or its body could not be read ({@link ServiceResponseError}). */
    BadResponse: "BAD_RESPONSE",
    /** An auth getter or credentials provider failed or gave an unusable value ({@link ServiceAuthError}). */
    Auth: "AUTH_ERROR",
    /** A value passed to the client or to a request is invalid (a `TypeError` or `RangeError`). */
    InvalidArgument: "INVALID_ARGUMENT",
  } as const,
);

/**
 * One of the values of {@link ErrorCode}.
 *
 * @example A code as a type
 * ```ts
 * import type { ErrorCode } from "@seed/service-client";
 *
 * const code: ErrorCode = "HTTP_ERROR";
 * console.log(code);
 * ```
 */
export type ErrorCode = typeof ErrorCode[keyof typeof ErrorCode];

/**
 * A GraphQL error as the service formats it. `errorType` and `errorInfo` sit at the top level of
 * each error on this service, not under `extensions`.
 *
 * @example A field-level denial
 * ```ts
 * import type { GraphQLFormattedError } from "@seed/service-client";
 *
 * const denied: GraphQLFormattedError = {
 *   message: "Not Authorized to access secret on type Query",
 *   errorType: "Unauthorized",
 *   path: ["secret"],
 *   locations: [{ line: 1, column: 9 }],
 * };
 * console.log(denied.errorType); // "Unauthorized"
 * ```
 */
export interface GraphQLFormattedError {
  /** What went wrong, for a human. */
  readonly message: string;
  /** The service's error type, for instance `Unauthorized`. */
  readonly errorType?: string | null;
  /** Additional information the resolver attached. */
  readonly errorInfo?: unknown;
  /** The path of the field that failed. */
  readonly path?: ReadonlyArray<string | number> | null;
  /** Where in the document the error applies. */
  readonly locations?: ReadonlyArray<{ readonly line: number; readonly column: number }> | null;
  /** The data the resolver attached to the error, when it did. */
  readonly data?: unknown;
  /** Extensions, for servers that use them. */
  readonly extensions?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The base class of every error the client throws on purpose, except bad arguments: those are a
 * `TypeError` or `RangeError` with `code: "INVALID_ARGUMENT"`.
 *
 * @example Branch on the code
 * ```ts
 * import { ServiceError } from "@seed/service-client";
 *
 * function describe(err: unknown): string {
 *   return err instanceof ServiceError ? err.code : "unexpected";
 * }
 * console.log(describe(new Error("x"))); // "unexpected"
 * ```
 */
export class ServiceError extends Error {
  /** The stable code of this error; see {@link ErrorCode}. */
  declare readonly code: ErrorCode;
  /**
   * What caused this error, when something did: the runtime's error, a getter's, the signal's
   * reason. Declared here too, so that it is typed under a `lib` older than ES2022.
   */
  declare readonly cause?: unknown;

  /**
   * Creates an error with a stable code.
   *
   * @param code The stable code.
   * @param message A message without secrets.
   * @param options The underlying cause, if any.
   */
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message);
    this.code = code;
    // Everything in `options` goes behind a getter: a runtime's fetch error (the cause) can quote the
    // URL, and the subclasses pass the server's data here too.
    hideData(this, options);
  }
}

/**
 * The response carried a non-empty `errors` array, and `request` (or `query`/`mutate`) was used.
 * Partial `data`, if any, is kept on the error; `requestRaw` returns it without throwing. The
 * message names the first error, as the server wrote it (`errorType: message`, cut at 200
 * characters), and how many more there are: the server's own text may appear in a log, while
 * the request's variables, headers and credentials never do (each value the client sent is cut out
 * of the server's words). Read `errors` for every detail.
 *
 * @example Read the GraphQL errors
 * ```ts
 * import { ServiceGraphQLError } from "@seed/service-client";
 *
 * const err = new ServiceGraphQLError([{ message: "Not authorized", errorType: "Unauthorized" }], { a: 1 });
 * console.log(err.code, err.message); // "GRAPHQL_ERROR" "Unauthorized: Not authorized"
 * ```
 */
export class ServiceGraphQLError extends ServiceError {
  /** Always `"GRAPHQL_ERROR"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.GraphQL;

  /** The formatted GraphQL errors, each with at least `message`. */
  declare readonly errors: readonly GraphQLFormattedError[];
  /** The partial data the server returned, or `null`/`undefined` when it returned none. */
  declare readonly data: unknown;
  /** The response's `extensions`, if any. */
  declare readonly extensions: unknown;

  /**
   * Creates the error from the response's errors, data and extensions.
   *
   * @param errors The formatted errors.
   * @param data The partial data.
   * @param extensions The response's extensions.
   * @param variables The request's variables, or anything else that was sent: a server's words may
   * quote them (a validation error quotes the value it refused), so each string or number in it (of 3
   * characters or more) is cut out of the message. The client passes the variables and the headers
   * it sent (the key or token with them).
   */
  constructor(
    errors: readonly GraphQLFormattedError[],
    data?: unknown,
    extensions?: unknown,
    variables?: unknown,
  ) {
    // The first error says what went wrong (its own text, cut short), as every peer's message does;
    // each variable's value the server may quote is cut out of it.
    const [first] = errors;
    const text = first
      ? `${first.errorType ? first.errorType + ": " : ""}${first.message}`
      : "GraphQL request failed";
    const values: string[] = [];
    JSON.stringify(variables, (_key, value) => {
      if ((typeof value == "string" || typeof value == "number") && (value = value + "").length > 2) {
        values.push(value, JSON.stringify(value).slice(1, -1));
      }
      return value;
    });
    // As the value may come (a server quotes it JSON-escaped), and the longest first: a value that
    // begins another is cut only after the other is. Only the text that can be shown is searched, so
    // that a long message and many variables cost little: as many characters as still leave 200 and the
    // longest value's length once every value in them is cut out (each leaves one character), so that a
    // value that runs past them begins after the first 200 shown.
    const [{ length } = ""] = values.sort((a, b) => b.length - a.length);
    let shown = text.slice(0, (200 + length) * length || 200);
    for (const value of values) shown = shown.replaceAll(value, "…");
    super(
      "GRAPHQL_ERROR",
      shown.slice(0, 200) +
        (errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""),
      { errors, data, extensions } as object,
    );
  }
}

/**
 * The HTTP status was not 2xx. The parsed body (JSON, or text when it is not JSON) is kept on
 * `body`, and the GraphQL `errors` of the body, when present, on `errors`; the message names the
 * status only (`HTTP 401`). What the server sent (`statusText`, `headers`, `body`, `errors`) is
 * kept behind getters that logs and `JSON.stringify` leave out: a server or proxy may echo the
 * request there, key and variables included.
 *
 * @example Read the status and the body
 * ```ts
 * import { ServiceHttpError } from "@seed/service-client";
 *
 * const err = new ServiceHttpError(401, "Unauthorized", new Headers(), { errors: [{ message: "No" }] });
 * console.log(err.status, err.message, err.statusText); // 401 "HTTP 401" "Unauthorized"
 * ```
 */
export class ServiceHttpError extends ServiceError {
  /** Always `"HTTP_ERROR"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.Http;

  /** The HTTP status. `0` when a browser hides a refused redirect behind an opaque response. */
  declare readonly status: number;
  /** The HTTP reason phrase, as the server sent it; empty over HTTP/2. */
  declare readonly statusText: string;
  /** A copy of the response headers, without `set-cookie`. */
  declare readonly headers: Headers;
  /** The parsed JSON body, the text body when it is not JSON, or `undefined` when it could not be read. */
  declare readonly body: unknown;
  /**
   * The GraphQL errors in the body, in either of the service's two shapes; empty when none. Only
   * objects with a string `message` are kept here; `body` holds whatever the server sent.
   */
  declare readonly errors: readonly GraphQLFormattedError[];

  /**
   * Creates the error from a non-2xx response.
   *
   * @param status The HTTP status.
   * @param statusText The HTTP status text.
   * @param headers The response headers, of any fetch implementation (copied through their
   * `forEach`; `set-cookie` is dropped).
   * @param body The parsed body.
   */
  constructor(status: number, statusText: string, headers: Headers, body?: unknown) {
    const copy = new Headers();
    headers.forEach((value, name) => name == "set-cookie" || copy.append(name, value));
    // The GraphQL errors of an error body: `{errors: [...]}` or the unwrapped `{errorType, message}`.
    // Items that are not an object with a message are left out (`body` keeps them).
    const errors = isObject(body) && body.errors;
    super("HTTP_ERROR", "HTTP " + status, {
      statusText,
      headers: copy,
      body,
      errors: (Array.isArray(errors) ? errors : [body]).filter(isFormattedError),
    } as object);
    this.status = status;
  }
}

/**
 * Why a call was aborted: by `timeoutMs` or by the caller's signal.
 *
 * @example Tell a timeout from a cancel
 * ```ts
 * import type { AbortReason } from "@seed/service-client";
 *
 * const message = (reason: AbortReason) => reason === "timeout" ? "The service is slow" : "Cancelled";
 * console.log(message("timeout"));
 * ```
 */
export type AbortReason = "timeout" | "abort";

/**
 * The caller's signal or `timeoutMs` ended the call. `reason` is `"timeout"` or `"abort"`; for a
 * caller abort, `cause` is the signal's own reason.
 *
 * @example The reason and code of a timeout
 * ```ts
 * import { ServiceAbortError } from "@seed/service-client";
 *
 * const err = new ServiceAbortError("timeout");
 * console.log(err.code, err.reason); // "ABORTED" "timeout"
 * ```
 */
export class ServiceAbortError extends ServiceError {
  /** Always `"ABORTED"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.Aborted;

  /**
   * `"timeout"` when `timeoutMs` elapsed or the caller's signal timed out (`AbortSignal.timeout()`,
   * whose `TimeoutError` is then the `cause`), `"abort"` when the caller's signal fired otherwise.
   */
  declare readonly reason: AbortReason;

  /**
   * Creates the error for a timeout or a caller abort.
   *
   * @param reason What ended the call.
   * @param cause The caller signal's reason, when the caller's signal ended the call.
   */
  constructor(reason: AbortReason, cause?: unknown) {
    super("ABORTED", reason === "timeout" ? "Request timed out" : "Request aborted", {
      cause,
    });
    this.reason = reason;
  }
}

/**
 * No response was received: the connection failed or was reset before a status arrived. The
 * runtime's error is the `cause`, as the runtime made it, behind a getter that `JSON.stringify` and
 * Node's and Deno's `console.log` leave out (Bun's console and Deno's report of an uncaught error print
 * it, and it may name the URL). Retried by default when a `retry` policy is set. The server may still
 * have received the request before the connection broke: give a mutation that must not run twice
 * `retry: { attempts: 1 }`.
 *
 * @example Wrap a fetch failure
 * ```ts
 * import { ServiceNetworkError } from "@seed/service-client";
 *
 * const err = new ServiceNetworkError(new TypeError("fetch failed"));
 * console.log(err.code); // "NETWORK_ERROR"
 * ```
 */
export class ServiceNetworkError extends ServiceError {
  /** Always `"NETWORK_ERROR"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.Network;

  /**
   * Creates the error from the runtime's fetch error.
   *
   * @param cause The runtime's error (none when a WebSocket could not connect: its close event says
   * nothing more, and its socket may hold credentials in its URL).
   */
  constructor(cause?: unknown) {
    super("NETWORK_ERROR", "Network request failed", { cause });
  }
}

/**
 * Throws the failure to load a module the client loads lazily (a chunk a bundler split off: the
 * printer, the introspection query, the iam signer) as the network failure it is, so that it has a
 * `code` and a retry policy retries it.
 */
export function chunkLoadFailed(cause: unknown): never {
  throw new ServiceNetworkError(cause);
}

/**
 * A 2xx response that is not a GraphQL response: a body that could not be read to its end (the
 * connection reset, a body cut short or not decodable: the runtime's error is the `cause`), larger
 * than `maxResponseBytes`, not JSON, not an object, an `errors` that is not a list of errors (each an
 * object with a string `message`, and a string `errorType`, a `path` and `locations` when present), a
 * `data` that is not an object, or neither `data` nor a non-empty `errors` (such as
 * `{"errorMessage": "…"}` or `{"errors": []}`); or a response that a `fetch` option got by following
 * a redirect. The parsed body, when there is one, is on `body`. Not retried by the default rule: the
 * status arrived, so the server may have run the request.
 *
 * @example A body that is not GraphQL
 * ```ts
 * import { ServiceResponseError } from "@seed/service-client";
 *
 * const err = new ServiceResponseError(200, "not JSON", "<html>");
 * console.log(err.code, err.message); // "BAD_RESPONSE" "Unexpected response (HTTP 200): not JSON"
 * ```
 */
export class ServiceResponseError extends ServiceError {
  /** Always `"BAD_RESPONSE"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.BadResponse;

  /** The HTTP status of the response. */
  declare readonly status: number;
  /** The parsed body, or the text when it is not JSON. */
  declare readonly body: unknown;

  /**
   * Creates the error from a 2xx response that is not a GraphQL response.
   *
   * @param status The HTTP status.
   * @param problem What is wrong with the body, without its content.
   * @param body The parsed body or its text.
   * @param cause Why the body could not be read, when it could not.
   */
  constructor(status: number, problem: string, body: unknown, cause?: unknown) {
    super("BAD_RESPONSE", `Unexpected response (HTTP ${status}): ${problem}`, { cause, body } as object);
    this.status = status;
  }
}

/**
 * An auth getter or credentials provider threw, or returned a value that cannot be sent (not a
 * string, empty, or holding a control character or a non-Latin-1 one). The getter's error is the
 * `cause`. Never retried.
 *
 * @example A failing token getter
 * ```ts
 * import { ServiceAuthError } from "@seed/service-client";
 *
 * const err = new ServiceAuthError("apiKey", "returned an empty string");
 * console.log(err.message); // "Cannot authenticate: apiKey returned an empty string"
 * ```
 */
export class ServiceAuthError extends ServiceError {
  /** Always `"AUTH_ERROR"`: `code` narrows {@link AnyServiceError} to this class. */
  declare readonly code: typeof ErrorCode.Auth;

  /**
   * Creates the error for a failed auth getter or provider.
   *
   * @param field The auth field whose getter failed.
   * @param problem What is wrong, without the value.
   * @param cause The getter's error, if it threw.
   */
  constructor(field: string, problem: string, cause?: unknown) {
    super("AUTH_ERROR", `Cannot authenticate: ${field} ${problem}`, { cause });
  }
}

/**
 * Every error class of the client: a union that `code` narrows to one class, as `instanceof` does.
 *
 * @example Branch on the code
 * ```ts
 * import { type AnyServiceError, ServiceHttpError } from "@seed/service-client";
 *
 * function describe(err: AnyServiceError): string {
 *   return err.code === "HTTP_ERROR" ? `status ${err.status}` : err.code;
 * }
 * console.log(describe(new ServiceHttpError(503, "", new Headers()))); // "status 503"
 * ```
 */
export type AnyServiceError =
  | ServiceGraphQLError
  | ServiceHttpError
  | ServiceAbortError
  | ServiceNetworkError
  | ServiceResponseError
  | ServiceAuthError;

/**
 * Whether `value` is an error of this package, by class or, across two loaded copies of the
 * package, by `name` and `code`.
 *
 * @param value Anything caught.
 * @returns `true` for a {@link ServiceError} of any copy of the package.
 *
 * @example Recognize errors of any copy of the package
 * ```ts
 * import { isServiceError, ServiceNetworkError } from "@seed/service-client";
 *
 * console.log(isServiceError(new ServiceNetworkError(new Error("x")))); // true
 * console.log(isServiceError(new Error("x"))); // false
 * ```
 */
export function isServiceError(value: unknown): value is AnyServiceError {
  return value instanceof ServiceError ||
    value instanceof Error && /^Service/.test(String(value.name)) &&
      /^(GRAPHQL_ERROR|HTTP_ERROR|ABORTED|NETWORK_ERROR|BAD_RESPONSE|AUTH_ERROR)$/.test(
        (value as { code?: string }).code!,
      );
}

// Names are set on the prototypes, as the built-in errors have them, because minifiers rename
// classes: `constructor.name` is not the class's name in a bundle.
ServiceError.prototype.name = "ServiceError";
ServiceGraphQLError.prototype.name = "ServiceGraphQLError";
ServiceHttpError.prototype.name = "ServiceHttpError";
ServiceAbortError.prototype.name = "ServiceAbortError";
ServiceNetworkError.prototype.name = "ServiceNetworkError";
ServiceResponseError.prototype.name = "ServiceResponseError";
ServiceAuthError.prototype.name = "ServiceAuthError";

/**
 * Sets what the server sent as read-only, non-enumerable getters: `err.body` reads it, but
 * `JSON.stringify(err)`, loggers that copy enumerable keys, and `util.inspect`/`Deno.inspect` (which
 * print a getter as `[Getter]` unless asked for `getters: true`) leave it out.
 */
function hideData(error: object, fields?: object): void {
  for (const [key, value] of Object.entries(fields ?? {})) {
    Object.defineProperty(error, key, { get: () => value, enumerable: false });
  }
}

/** Whether `value` is a formatted GraphQL error as far as callers read one: an object with a string `message`. */
export const isFormattedError = (value: unknown): value is GraphQLFormattedError =>
  isObject(value) && typeof value.message === "string" &&
  typeof (value.errorType ?? "") == "string" &&
  listOf(value.path, (step) => typeof step == "string" || typeof step == "number") &&
  listOf(
    value.locations,
    (at) => isObject(at) && typeof at.line == "number" && typeof at.column == "number",
  );

/** Whether `value` is absent or null (as the service sends it), or an array whose every item passes `test`. */
export const listOf = (value: unknown, test: (item: unknown) => boolean): boolean =>
  value == null || Array.isArray(value) && value.every(test);
