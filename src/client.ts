/**
 * `ServiceClient`: sends a GraphQL document over HTTP POST with the configured auth, and returns
 * the typed result. Thin glue: the options are checked here, and the work of each call is in
 * `call.ts`.
 *
 * Follows GraphQL over HTTP (POST, JSON body `{query, variables?, operationName?}`) as the managed
 * service speaks it. Out of scope: subscriptions, caching, normalization, persisted queries.
 *
 * @module
 */

import { authorizeFor, type ClientState, clientState, send } from "./call.ts";
import type { Document, VariablesObject } from "./document.ts";
import { chunkLoadFailed } from "./errors.ts";
import {
  type ClientConfig,
  clientConfig,
  type RequestOptions,
  type ServiceClientOptions,
} from "./options.ts";
import { invalid } from "./validate.ts";
import type { GraphQLResult } from "./response.ts";
import type { IntrospectionQuery } from "graphql";

/**
 * What `introspect()` resolves: `graphql`'s `IntrospectionQuery` where that optional peer dependency
 * is installed; without it, `{ __schema }` with the schema `unknown`, never `any`.
 *
 * @example Read the query type's name
 * ```ts
 * import type { IntrospectionResult } from "@seed/service-client";
 *
 * const queryTypeName = (result: IntrospectionResult) => result.__schema.queryType.name;
 * console.log(typeof queryTypeName); // "function"
 * ```
 */
// An import left unresolved (no `graphql`) is an error type: `unknown extends` tells it from a real one.
export type IntrospectionResult = unknown extends IntrospectionQuery ? { readonly __schema: unknown }
  : IntrospectionQuery;

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
  ? [variables?: [TVariables][TVariables extends unknown ? 0 : never], options?: RequestOptions | undefined]
  : [variables: [TVariables][TVariables extends unknown ? 0 : never], options?: RequestOptions | undefined];

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
  /**
   * Checks the options and creates a client. Nothing is sent.
   *
   * @param options The endpoint, auth and optional policies.
   * @throws {TypeError | RangeError} For a missing or invalid option (code `INVALID_ARGUMENT`), an
   * unknown option key, or a runtime without `fetch` and no `fetch` option.
   */
  constructor(options: ServiceClientOptions) {
    states.set(this, clientState(clientConfig(options)));
  }

  /**
   * Sends a query or mutation and resolves its `data`.
   *
   * @param document A GraphQL string (give the types as `<Response, Variables>`) or a typed document (types inferred).
   * @param variables The variables (required when the operation has required variables).
   * @param options The per-request options.
   * @returns The `data` of the response.
   * @throws {ServiceGraphQLError} When the response has errors, even with partial data.
   * @throws {ServiceHttpError} For a non-2xx status.
   * @throws {ServiceAbortError} When the signal or the timeout ends the call.
   * @throws {ServiceNetworkError} When no response could be received.
   * @throws {ServiceResponseError} For a 2xx body that is not a GraphQL response.
   * @throws {ServiceAuthError} When a token getter or credentials provider fails.
   * @throws {TypeError | RangeError} For a bad document, variables or request option, or a `shouldRetry`
   * that throws (code `INVALID_ARGUMENT`; a rejection, as every other error here).
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
  request<TData = unknown, TVariables extends object = VariablesObject>(
    this: ServiceClient,
    document: Document<TData, TVariables>,
    ...[variables, options]: RequestArgs<TVariables>
  ): Promise<TData> {
    return send(states.get(this), document, variables, options, true) as Promise<TData>;
  }

  /**
   * Sends a document and resolves the whole result, `{ data, errors, extensions }`, without
   * throwing for GraphQL errors: partial data stays readable. Transport problems still throw.
   *
   * @param document A GraphQL string or a typed document.
   * @param variables The variables (required when the operation has required variables).
   * @param options The per-request options.
   * @returns The parsed GraphQL result.
   * @throws {ServiceHttpError | ServiceAbortError | ServiceNetworkError | ServiceResponseError | ServiceAuthError | TypeError | RangeError} As for `request`.
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
  requestRaw<TData = unknown, TVariables extends object = VariablesObject>(
    this: ServiceClient,
    document: Document<TData, TVariables>,
    ...[variables, options]: RequestArgs<TVariables>
  ): Promise<GraphQLResult<TData>> {
    return send(states.get(this), document, variables, options, false) as Promise<GraphQLResult<TData>>;
  }

  /**
   * Alias of {@link ServiceClient.request}, for queries.
   *
   * @param document A GraphQL string or a typed document.
   * @param variables The variables (required when the operation has required variables).
   * @param options The per-request options.
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
  query<TData = unknown, TVariables extends object = VariablesObject>(
    this: ServiceClient,
    document: Document<TData, TVariables>,
    ...[variables, options]: RequestArgs<TVariables>
  ): Promise<TData> {
    return send(states.get(this), document, variables, options, true) as Promise<TData>;
  }

  /**
   * Alias of {@link ServiceClient.request}, for mutations. Mind retries: a mutation whose response
   * was lost may have run; retry mutations only when they are idempotent.
   *
   * @param document A GraphQL string or a typed document.
   * @param variables The variables (required when the operation has required variables).
   * @param options The per-request options.
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
  mutate<TData = unknown, TVariables extends object = VariablesObject>(
    this: ServiceClient,
    document: Document<TData, TVariables>,
    ...[variables, options]: RequestArgs<TVariables>
  ): Promise<TData> {
    return send(states.get(this), document, variables, options, true) as Promise<TData>;
  }

  /**
   * Sends the standard introspection query and resolves the schema.
   *
   * @param options Per-request options.
   * @returns The `IntrospectionQuery` result (`{ __schema }`): see {@link IntrospectionResult}.
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
  introspect(this: ServiceClient, options?: RequestOptions): Promise<IntrospectionResult> {
    // The query is a module of its own, loaded the first time: the call's timeout and signal cover that.
    // The module is the prepared document (its `query`).
    const load = () => import("./introspection.ts").catch(chunkLoadFailed);
    return send(states.get(this), undefined, undefined, options, true, load) as Promise<IntrospectionResult>;
  }
}

/**
 * Each client's state, kept out of the class: a `#private` field would make each copy of the class's
 * declarations (the ESM and the CommonJS one) a type of its own, refuse a hand-written fake that
 * implements it, and fail to compile where TypeScript targets ES5 (its default before 6.0). A method
 * taken off its object (`const { request } = client`) finds none: `send` refuses that, as a rejection
 * (it is async), as it does every failure of a call.
 */
const states = new WeakMap<ServiceClient, ClientState>();

// Vue's `reactive()`, `ref()` and Pinia stores leave an object with this flag as it is (what
// `markRaw` sets), instead of wrapping it in a Proxy, through which no method would find its state.
(ServiceClient.prototype as unknown as { __v_skip: boolean }).__v_skip = true;

/**
 * Internal, for the `./realtime` entry (not exported by `mod.ts`): the client's options as checked at
 * construction (its endpoint URL, its signal).
 */
export function configOf(client: ServiceClient): ClientConfig {
  return stateOf(states, client);
}

/**
 * Internal, for the `./realtime` entry (not exported by `mod.ts`): `headers` plus the client's auth
 * for a POST of `body` to `url`, read now (getters and providers are called again). For iam, the
 * SigV4 headers of that request (`authorization`, `x-amz-date`, `x-amz-security-token`), signed at the
 * client's corrected clock; `host` is signed but not returned.
 *
 * @throws {ServiceAuthError} (as a rejection) When a getter or provider fails or returns an unusable value.
 */
// deno-lint-ignore require-await -- async for its rejection, not for an await
export async function authorize(
  client: ServiceClient,
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  return authorizeFor(stateOf(states, client), url, body, headers);
}

/**
 * Internal, for the realtime entry (which keeps its state the same way): what `states` holds for
 * `owner`. A method taken off its object (`const { subscribe } = realtime`) is called without one,
 * and so is the realtime entry given something else than a `ServiceClient` of this copy of the package
 * (`send` refuses a client's method called without its client with the first words of the error).
 *
 * @throws {TypeError} With `code: "INVALID_ARGUMENT"` when `owner` has no state.
 */
export function stateOf<Owner extends object, State>(states: WeakMap<Owner, State>, owner: Owner): State {
  const state = states.get(owner);
  if (!state) {
    throw invalid(
      "Called without its client: a method taken off it, a Proxy of it, or a ServiceClient of another copy " +
        "of the package (its ESM and CommonJS builds do not mix)",
    );
  }
  return state;
}
