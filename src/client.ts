/**
 * `ServiceClient`: sends a GraphQL document over HTTP POST with the configured auth, and returns
 * the typed result. Thin glue over the modules beside it: options, auth, document, signal, retry,
 * response.
 *
 * Follows GraphQL over HTTP (POST, JSON body `{query, variables?, operationName?}`) as the managed
 * service speaks it. Out of scope: subscriptions, caching, normalization, persisted queries.
 *
 * @module
 */

import { authHeader, type IamAuth, readCredentials } from "./auth.ts";
import { type Document, prepareDocument, type Variables } from "./document.ts";
import {
  type ServiceError,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "./errors.ts";
import {
  type ClientConfig,
  clientConfig,
  requestConfig,
  type RequestOptions,
  type ServiceClientOptions,
} from "./options.ts";
import { type GraphQLResult, readResponse } from "./response.ts";
import { retryDelay, shouldRetry } from "./retry.ts";
import { type CallSignal, callSignal, sleep } from "./signal.ts";
import { invalid, invalidValue, isObject } from "./validate.ts";
import type { IntrospectionQuery } from "graphql";

/**
 * The arguments after the document: the variables (required when the operation has required
 * variables, optional otherwise) and the per-request options.
 *
 * @example Variables are required only when the operation needs some
 * ```ts
 * import type { RequestArgs } from "@seed/service-client";
 *
 * const required: RequestArgs<{ id: string }> = [{ id: "1" }, { timeoutMs: 1_000 }];
 * const optional: RequestArgs<{ limit?: number }> = [];
 * console.log(required.length, optional.length); // 2 0
 * ```
 */
export type RequestArgs<TVariables> = [Record<never, never>] extends [TVariables]
  ? [variables?: [TVariables][TVariables extends unknown ? 0 : never], options?: RequestOptions]
  : [variables: [TVariables][TVariables extends unknown ? 0 : never], options?: RequestOptions];

let signer: Promise<typeof import("./sigv4.ts")> | undefined;

/**
 * A GraphQL client for the managed service: one POST per attempt, five auth modes, typed results,
 * timeouts, cancellation and retries.
 *
 * @example Query with an API key
 * ```ts
 * import { ServiceClient } from "@seed/service-client";
 *
 * const client = new ServiceClient({
 *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
 *   auth: { type: "apiKey", apiKey: "da2-example" },
 *   retry: { attempts: 3 },
 *   // Stands in for the service so that this example runs anywhere; leave it out to use the global fetch.
 *   fetch: () => Promise.resolve(Response.json({ data: { hello: "world" } })),
 * });
 * const data = await client.request<{ hello: string }>("query { hello }", undefined, { timeoutMs: 5_000 });
 * console.log(data.hello); // "world"
 * ```
 */
export class ServiceClient {
  readonly #state: ClientState;

  /**
   * Checks the options and creates a client. Nothing is sent.
   *
   * @param options The endpoint, auth and optional policies.
   * @throws {TypeError | RangeError} For a missing or invalid option (code `INVALID_ARGUMENT`), an
   * unknown option key, or a runtime without `fetch` and no `fetch` option.
   */
  constructor(options: ServiceClientOptions) {
    this.#state = { config: clientConfig(options), clockOffsetMs: 0 };
  }

  /**
   * Sends a query or mutation and resolves its `data`.
   *
   * @param document A GraphQL string (give the types as `<Response, Variables>`) or a typed document (types inferred).
   * @param args The variables, then the per-request options.
   * @returns The `data` of the response.
   * @throws {ServiceGraphQLError} When the response has errors, even with partial data.
   * @throws {ServiceHttpError} For a non-2xx status.
   * @throws {ServiceAbortError} When the signal or the timeout ends the call.
   * @throws {ServiceNetworkError} When no response could be received.
   * @throws {ServiceResponseError} For a 2xx body that is not a GraphQL response.
   * @throws {ServiceAuthError} When a token getter or credentials provider fails.
   *
   * @example Typed result from a string document
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   *
   * const client = new ServiceClient({
   *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
   *   auth: { type: "apiKey", apiKey: "da2-example" },
   *   fetch: () => Promise.resolve(Response.json({ data: { post: { title: "Hello" } } })), // stands in for the service
   * });
   * const data = await client.request<{ post: { title: string } }, { id: string }>(
   *   "query Post($id: ID!) { post(id: $id) { title } }",
   *   { id: "1" },
   * );
   * console.log(data.post.title); // "Hello"
   * ```
   */
  async request<TData = unknown, TVariables extends object = Variables>(
    document: Document<TData, TVariables>,
    ...args: RequestArgs<TVariables>
  ): Promise<TData> {
    const result = await this.#send(document, args[0], args[1]);
    if (result.errors?.length) throw new ServiceGraphQLError(result.errors, result.data, result.extensions);
    return result.data as TData;
  }

  /**
   * Sends a document and resolves the whole result, `{ data, errors, extensions }`, without
   * throwing for GraphQL errors: partial data stays readable. Transport problems still throw.
   *
   * @param document A GraphQL string or a typed document.
   * @param args The variables, then the per-request options.
   * @returns The parsed GraphQL result.
   * @throws {ServiceHttpError | ServiceAbortError | ServiceNetworkError | ServiceResponseError | ServiceAuthError} As for `request`.
   *
   * @example Read partial data next to the errors
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   *
   * const client = new ServiceClient({
   *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
   *   auth: { type: "apiKey", apiKey: "da2-example" },
   *   fetch: () => Promise.resolve(Response.json({ data: { hello: "world", secret: null }, errors: [{ message: "Denied", errorType: "Unauthorized" }] })), // stands in for the service
   * });
   * const { data, errors } = await client.requestRaw<{ hello: string; secret: string | null }>("{ hello secret }");
   * console.log(data?.hello, errors?.[0]?.errorType); // "world" "Unauthorized"
   * ```
   */
  requestRaw<TData = unknown, TVariables extends object = Variables>(
    document: Document<TData, TVariables>,
    ...args: RequestArgs<TVariables>
  ): Promise<GraphQLResult<TData>> {
    return this.#send(document, args[0], args[1]) as Promise<GraphQLResult<TData>>;
  }

  /**
   * Alias of {@link ServiceClient.request}, for queries.
   *
   * @param document A GraphQL string or a typed document.
   * @param args The variables, then the per-request options.
   * @returns The `data` of the response.
   *
   * @example Run a query
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   *
   * const client = new ServiceClient({
   *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
   *   auth: { type: "apiKey", apiKey: "da2-example" },
   *   fetch: () => Promise.resolve(Response.json({ data: { hello: "world" } })), // stands in for the service
   * });
   * console.log(await client.query<{ hello: string }>("{ hello }")); // { hello: "world" }
   * ```
   */
  query<TData = unknown, TVariables extends object = Variables>(
    document: Document<TData, TVariables>,
    ...args: RequestArgs<TVariables>
  ): Promise<TData> {
    return this.request(document, ...args);
  }

  /**
   * Alias of {@link ServiceClient.request}, for mutations. Mind retries: a mutation whose response
   * was lost may have run; retry mutations only when they are idempotent.
   *
   * @param document A GraphQL string or a typed document.
   * @param args The variables, then the per-request options.
   * @returns The `data` of the response.
   *
   * @example Run a mutation
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   *
   * const client = new ServiceClient({
   *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
   *   auth: { type: "apiKey", apiKey: "da2-example" },
   *   fetch: () => Promise.resolve(Response.json({ data: { addPost: { id: "3" } } })), // stands in for the service
   * });
   * const data = await client.mutate<{ addPost: { id: string } }, { title: string }>(
   *   "mutation Add($title: String!) { addPost(title: $title) { id } }",
   *   { title: "New" },
   * );
   * console.log(data.addPost.id); // "3"
   * ```
   */
  mutate<TData = unknown, TVariables extends object = Variables>(
    document: Document<TData, TVariables>,
    ...args: RequestArgs<TVariables>
  ): Promise<TData> {
    return this.request(document, ...args);
  }

  /**
   * Sends the standard introspection query and resolves the schema.
   *
   * @param options Per-request options.
   * @returns The `IntrospectionQuery` result (`{ __schema }`), as `graphql`'s types describe it.
   * @throws {ServiceGraphQLError} When the service refuses introspection (it can be disabled).
   *
   * @example List the schema's object types
   * ```ts
   * import { ServiceClient } from "@seed/service-client";
   *
   * const client = new ServiceClient({
   *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
   *   auth: { type: "apiKey", apiKey: "da2-example" },
   *   fetch: () => Promise.resolve(Response.json({ data: { __schema: { queryType: { name: "Query" }, types: [], directives: [] } } })), // stands in for the service
   * });
   * const { __schema } = await client.introspect();
   * console.log(__schema.queryType.name); // "Query"
   * ```
   */
  async introspect(options?: RequestOptions): Promise<IntrospectionQuery> {
    const { INTROSPECTION_QUERY } = await import("./introspection.ts");
    return this.request<IntrospectionQuery>(INTROSPECTION_QUERY, undefined, options);
  }

  #send(document: unknown, variables: unknown, options: unknown): Promise<GraphQLResult> {
    return send(this.#state, document, variables, options);
  }
}

/** A client's checked options, and the server's clock offset it learnt (iam only). */
interface ClientState {
  readonly config: ClientConfig;
  /** Server clock minus ours, learnt from a signature rejected for time. */
  clockOffsetMs: number;
}

/** One call: prepare once, then attempt, retry and wait until a result, an error or the deadline. */
async function send(
  state: ClientState,
  document: unknown,
  variables: unknown,
  options: unknown,
): Promise<GraphQLResult> {
  const { config } = state;
  const request = requestConfig(options);
  const prepared = await prepareDocument(document);
  const body = serialize(prepared.query, variables, request.operationName ?? prepared.operationName);
  const headers = {
    "content-type": "application/json; charset=UTF-8",
    ...config.headers,
    ...request.headers,
  };
  const timeouts = [config.timeoutMs, request.timeoutMs].filter((ms) => ms !== undefined);
  const call = callSignal(
    [config.signal, request.signal],
    timeouts.length ? Math.min(...timeouts) : undefined,
  );
  try {
    let resentForClock = false;
    for (let attempt = 1;; attempt++) {
      try {
        throwIfAborted(call);
        return await sendOnce(state, body, headers, call.signal);
      } catch (err) {
        throwIfAborted(call);
        if (
          !(err instanceof ServiceNetworkError || err instanceof ServiceHttpError ||
            err instanceof ServiceResponseError)
        ) {
          throw err;
        }
        if (!resentForClock && learnClockSkew(state, err)) {
          resentForClock = true;
          attempt--;
          continue;
        }
        const delay = shouldRetry(config.retry, err, attempt) && retryDelay(config.retry, err, attempt);
        if (delay === false || delay === undefined || Date.now() + delay >= call.deadline) throw err;
        await sleep(delay, call.signal).catch(() => throwIfAborted(call));
      }
    }
  } finally {
    call.done();
  }
}

/** One attempt: read auth now, sign last, send, read the response. */
async function sendOnce(
  state: ClientState,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<GraphQLResult> {
  const { auth, url, fetch } = state.config;
  const authorized = await untilAborted<HeadersInit>(
    auth.type === "iam"
      ? sign(state, auth, body, headers)
      : authHeader(auth).then(([name, value]) => ({ ...headers, [name]: value })),
    signal,
  );
  let response: Response;
  try {
    response = await fetch(
      url,
      { method: "POST", headers: authorized, body, signal, redirect: "manual" } as RequestInit,
    );
  } catch (cause) {
    throw new ServiceNetworkError(cause);
  }
  return readResponse(response);
}

async function sign(
  state: ClientState,
  auth: IamAuth,
  body: string,
  headers: Record<string, string>,
): Promise<Headers> {
  const credentials = await readCredentials(auth);
  const { signRequest } = await (signer ??= import("./sigv4.ts"));
  const offset = state.clockOffsetMs;
  return signRequest({ method: "POST", url: state.config.url, headers, body }, {
    region: auth.region,
    service: "appsync",
    credentials,
    ...(offset ? { date: new Date(Date.now() + offset) } : {}),
  });
}

/**
 * When the service rejected an iam signature for time, remembers the server's clock offset from
 * the response's `Date` and returns `true`: the request never ran, so it is re-signed and resent
 * once, with or without a retry policy.
 */
function learnClockSkew(state: ClientState, err: ServiceError): boolean {
  const serverTime = err instanceof ServiceHttpError && state.config.auth.type === "iam" &&
    err.status === 403 &&
    err.errors.some((e) => /signature (expired|not yet current)/i.test(String(e.message))) &&
    Date.parse(err.headers.get("date")!);
  if (!serverTime) return false;
  state.clockOffsetMs = serverTime - Date.now();
  return true;
}

function throwIfAborted(call: CallSignal): void {
  const error = call.error();
  if (error) throw error;
}

/** Settles with `promise`, or rejects as soon as `signal` aborts; the listener is removed either way. */
function untilAborted<T>(promise: Promise<T> | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal
    ? new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort);
      promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    })
    : promise;
}

function serialize(query: string, variables: unknown, operationName: string | undefined): string {
  if (variables != null && !isObject(variables)) throw invalidValue("variables", "an object", variables);
  try {
    return JSON.stringify({ query, variables: variables ?? undefined, operationName });
  } catch (cause) {
    throw invalid(
      "Invalid variables: they cannot be serialized to JSON (a BigInt, or a cycle?)",
      false,
      cause,
    );
  }
}
