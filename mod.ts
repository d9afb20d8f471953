/**
 * A zero-dependency, typed GraphQL client for a managed GraphQL service (AWS AppSync-shaped), with
 * its five auth modes: API key, user pool, OIDC, lambda authorizer and IAM (SigV4). Runs on Deno,
 * Node 18.17+, Bun, browsers and worker/edge runtimes.
 *
 * @example A typed request with an API key
 * ```ts
 * import { ServiceClient, ServiceGraphQLError } from "@seed/service-client";
 *
 * const client = new ServiceClient({
 *   url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
 *   auth: { type: "apiKey", apiKey: () => currentKey() },
 *   retry: { attempts: 3 },
 *   // Stands in for the service so that this example runs anywhere; leave it out to use the global fetch.
 *   fetch: () => Promise.resolve(Response.json({ data: { post: { title: "Hello" } } })),
 * });
 *
 * try {
 *   const data = await client.request<{ post: { title: string } }, { id: string }>(
 *     "query Post($id: ID!) { post(id: $id) { title } }",
 *     { id: "1" },
 *     { timeoutMs: 10_000 },
 *   );
 *   console.log(data.post.title);
 * } catch (err) {
 *   if (err instanceof ServiceGraphQLError) console.error(err.errors);
 *   else throw err;
 * }
 *
 * function currentKey(): string {
 *   return "da2-example";
 * }
 * ```
 *
 * @module
 */

export { type IntrospectionResult, type RequestArgs, ServiceClient } from "./src/client.ts";
export type {
  FetchFunction,
  FetchInit,
  FetchResponse,
  HeaderValues,
  RequestOptions,
  ServiceClientOptions,
} from "./src/options.ts";
export type {
  ApiKeyAuth,
  AuthOptions,
  Getter,
  IamAuth,
  LambdaAuth,
  OidcAuth,
  UserPoolAuth,
} from "./src/auth.ts";
export type { AwsCredentials } from "./src/sigv4.ts";
export { isRetryable, RETRY_DEFAULTS, type RetryOptions } from "./src/retry.ts";
export type {
  Document,
  DocumentNode,
  DocumentTypeDecoration,
  SignalVariable,
  Variables,
  VariablesObject,
} from "./src/document.ts";
export type { GraphQLResult } from "./src/response.ts";
export {
  type AbortReason,
  type AnyServiceError,
  ErrorCode,
  type GraphQLFormattedError,
  isServiceError,
  ServiceAbortError,
  ServiceAuthError,
  ServiceError,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "./src/errors.ts";
export type { InvalidArgumentError } from "./src/validate.ts";
