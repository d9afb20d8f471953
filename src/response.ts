/**
 * Reads one HTTP response into a GraphQL result, per the spec's table: non-2xx is a
 * `ServiceHttpError`; a 2xx body that is not a GraphQL response is a `ServiceResponseError`; a body
 * that cannot be read is a `ServiceNetworkError`.
 *
 * @module
 */

import {
  type GraphQLFormattedError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "./errors.ts";

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
 * Reads and classifies a response.
 *
 * @throws {ServiceHttpError} For a status that is not 2xx (redirects included: they are never followed).
 * @throws {ServiceResponseError} For a 2xx body that is not JSON, not an object, or has neither `data` nor `errors`.
 * @throws {ServiceNetworkError} When the body cannot be read.
 */
export async function readResponse(response: Response): Promise<GraphQLResult> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw new ServiceNetworkError(cause);
  }
  const { status } = response;
  if (!response.ok) {
    throw new ServiceHttpError(status, response.statusText, response.headers, parse(text) ?? text);
  }
  const body = parse(text);
  if (body === undefined) throw new ServiceResponseError(status, "body is not JSON", text);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ServiceResponseError(status, "body is not a JSON object", body);
  }
  if (!("data" in body) && !("errors" in body)) {
    throw new ServiceResponseError(status, "body has neither data nor errors", body);
  }
  const { errors } = body as { errors?: unknown };
  if (errors !== undefined && errors !== null && !Array.isArray(errors)) {
    throw new ServiceResponseError(status, "errors is not an array", body);
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
