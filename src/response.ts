/**
 * Turns one HTTP response, and its body's text, into a GraphQL result per the spec's table: non-2xx
 * is a `ServiceHttpError`; a 2xx body that is not a GraphQL response is a `ServiceResponseError`. (A
 * body that cannot be read is a `ServiceNetworkError`: the client reads it, see `client.ts`.)
 *
 * @module
 */

import { type GraphQLFormattedError, ServiceHttpError, ServiceResponseError } from "./errors.ts";

/**
 * The whole result of a GraphQL request, as `requestRaw` returns it.
 *
 * @example Partial data next to errors
 * ```ts
 * import type { GraphQLResult } from "@seed/service-client";
 *
 * const result: GraphQLResult<{ hello: string; secret: string | null }> = {
 *   data: { hello: "world", secret: null },
 *   errors: [{ message: "Not authorized", errorType: "Unauthorized", path: ["secret"] }],
 * };
 * console.log(result.data?.hello, result.errors?.length); // "world" 1
 * ```
 */
export interface GraphQLResult<TData = unknown> {
  /** The data; may be partial, or `null`, when `errors` is present. */
  readonly data?: TData | null;
  /** The formatted GraphQL errors, when any. */
  readonly errors?: readonly GraphQLFormattedError[];
  /** The response's extensions, when the server sent any. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * Classifies a response, given its body's text (the client reads it, in the same `await` chain as
 * the fetch, and maps a body that cannot be read to a `ServiceNetworkError`).
 *
 * @throws {ServiceHttpError} For a status that is not 2xx (redirects included: they are never followed).
 * @throws {ServiceResponseError} For a 2xx body that is not JSON, not an object, or has neither `data`
 * (absent or null) nor a non-empty `errors`.
 */
export function resultOf(response: Response, text: string): GraphQLResult {
  const { status } = response;
  if (!response.ok) {
    throw new ServiceHttpError(status, response.statusText, response.headers, parse(text) ?? text);
  }
  const body = parse(text);
  if (body === undefined) throw new ServiceResponseError(status, "body is not JSON", text);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ServiceResponseError(status, "body is not a JSON object", body);
  }
  const { errors } = body as { errors?: unknown };
  if (errors !== undefined && errors !== null && !Array.isArray(errors)) {
    throw new ServiceResponseError(status, "errors is not an array", body);
  }
  // Without data (absent or null), the GraphQL spec requires at least one error: `{"errors": []}` and
  // `{"data": null}` are not results (`request` would resolve null where the caller's type says data).
  if ((body as { data?: unknown }).data == null && !(errors as unknown[] | undefined)?.length) {
    throw new ServiceResponseError(status, "body has neither data nor errors", body);
  }
  return body as GraphQLResult;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
