/**
 * Turns one HTTP response, and its body's text, into a GraphQL result: non-2xx
 * is a `ServiceHttpError`; a 2xx body that is not a GraphQL response is a `ServiceResponseError`. (A
 * 2xx body that cannot be read is a `ServiceResponseError` too: the client reads it, see `call.ts`.)
 *
 * @module
 */

import {
  type GraphQLFormattedError,
  isFormattedError,
  listOf,
  ServiceHttpError,
  ServiceResponseError,
} from "./errors.ts";
import type { FetchResponse } from "./options.ts";
import { isObject } from "./validate.ts";

/**
 * The whole result of a GraphQL request, as `requestRaw` returns it: either data and no errors, or
 * errors next to data that may be partial, `null` or absent. Checking `errors` narrows it: without
 * errors, `data` is there (the client refuses a body with neither as a `ServiceResponseError`).
 *
 * @example Without errors, the data is there
 * ```ts
 * import type { GraphQLResult } from "@seed/service-client";
 *
 * function hello(result: GraphQLResult<{ hello: string }>): string {
 *   if (result.errors) return `failed: ${result.errors.length} error(s)`;
 *   return result.data.hello;
 * }
 * console.log(hello({ data: { hello: "world" } })); // "world"
 * console.log(hello({ data: null, errors: [{ message: "Not authorized" }] })); // "failed: 1 error(s)"
 * ```
 */
export type GraphQLResult<TData = unknown> =
  | {
    /** The data. */
    readonly data: TData;
    /** No errors. */
    readonly errors?: undefined;
    /** The response's extensions, when the server sent any. */
    readonly extensions?: Readonly<Record<string, unknown>> | undefined;
  }
  | {
    /** The data: partial, `null`, or absent. */
    readonly data?: TData | null;
    /** The formatted GraphQL errors (an empty list only next to data). */
    readonly errors: readonly GraphQLFormattedError[];
    /** The response's extensions, when the server sent any. */
    readonly extensions?: Readonly<Record<string, unknown>> | undefined;
  };

/**
 * Classifies a response, given its body's text (the client reads it, in the same `await` chain as
 * the fetch, and maps a 2xx body that cannot be read to a `ServiceResponseError`; a non-2xx one comes
 * here without text, and its error without `body`).
 *
 * @throws {ServiceHttpError} For a status that is not 2xx (redirects included: they are never followed).
 * @throws {ServiceResponseError} For a 2xx body that is not JSON, not an object, whose `errors` is not
 * an array of objects each with a string `message`, whose `data` is neither an object nor null, whose
 * `extensions` is neither an object nor null, or that has neither `data` (absent or null) nor a
 * non-empty `errors`. `"errors": null` and `"extensions": null` count as none, and are left out of
 * the result.
 */
export function resultOf(response: FetchResponse, text: string | undefined): GraphQLResult {
  const { status } = response;
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text!);
  } catch {
    // no text, or not JSON: no body
  }
  // Headers of any fetch implementation: the error reads them through their forEach only.
  if (!response.ok) {
    throw new ServiceHttpError(status, response.statusText, response.headers as Headers, body ?? text);
  }
  const { data, errors, extensions } = (isObject(body) && body) as Record<string, unknown>;
  // Each error is read as the caller's code reads it (`err.errors[0].message`): one that is not an
  // object with a message would throw there, far from its cause. Without data (absent or null), the
  // GraphQL spec requires at least one error: `{"errors": []}` and `{"data": null}` are not results
  // (`request` would resolve null where the caller's type says data).
  const problem = body === undefined
    ? "body is not JSON"
    : !isObject(body)
    ? "body is not a JSON object"
    : !listOf(errors, isFormattedError)
    ? "errors is not an array of errors with a message"
    : [data, extensions].some((part) => part != null && !isObject(part))
    ? "data or extensions is not an object"
    : data == null && !(errors as unknown[] | undefined)?.length
    ? "body has neither data nor errors"
    : "";
  if (problem) throw new ServiceResponseError(status, problem, body === undefined ? text : body);
  // `"errors": null`, `"errors": []` and `"extensions": null` count as none, as the result's type has them.
  for (const key of ["errors", "extensions"]) {
    if (body![key] === null || (body![key] as unknown[])?.length === 0) delete body![key];
  }
  return body as GraphQLResult;
}

/**
 * Reads a body's text, at most `max` bytes of it, or `undefined` when it is larger: the read ends
 * there and the body is cancelled. A `content-length` above `max` says so before anything is read;
 * one within it, with no `content-encoding`, bounds the body as it is, which the runtime then reads
 * whole (on Deno that is twice as fast as a stream read in JavaScript). Any other body (compressed:
 * its length says nothing of what it inflates to; or of no declared length) is counted as it
 * arrives, after decompression. A cross-origin response in a browser (`type` "cors") is counted so
 * too: its `content-encoding` is hidden unless the server exposes it, so its `content-length` may be
 * the compressed one. A body with no stream reader (node-fetch's is a Node stream) is read whole by
 * `text()`, then measured; so is a compressed body on Bun 1.0, which hides its `content-encoding`.
 */
export async function readText(response: FetchResponse, max: number): Promise<string | undefined> {
  const { headers } = response;
  const length = headers.get?.("content-length");
  if (+length! > max) return discard(response.body);
  const reader = length && !headers.get!("content-encoding") && response.type != "cors"
    ? undefined
    : response.body?.getReader?.();
  if (!reader) {
    const text = await response.text();
    // Its bytes are counted wherever its characters could undercount them (a character is up to 3
    // bytes): Bun 1.0 inflates a body and hides its `content-encoding`, and a body with no stream has
    // no length to trust.
    return text.length * 3 > max && new Blob([text]).size > max ? undefined : text;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk; !(chunk = await reader.read()).done;) {
    if ((size += chunk.value.length) > max) return discard(reader);
    chunks.push(chunk.value);
  }
  // Joined by hand and decoded at once, by one decoder for every call: a Blob's `text()`, or a decoder
  // per call, costs more on Deno (a Blob several times as much, on every response).
  let bytes = chunks[0];
  if (chunks[1]) {
    bytes = new Uint8Array(size);
    size = 0;
    for (const chunk of chunks) bytes.set(chunk, size), size += chunk.length;
  }
  return (decoder ??= new TextDecoder()).decode(bytes);
}

/**
 * Made at the first body read, not when the module loads: a test environment without one (Jest's
 * jsdom) can still import the client.
 */
let decoder: TextDecoder | undefined;

/** Cancels a body (or its reader) that will not be read, whatever the runtime answers. */
export function discard(body: { cancel?: (() => Promise<void>) | undefined } | null | undefined): undefined {
  try {
    (body as { cancel(): Promise<void> } | null | undefined)?.cancel().catch(() => {});
  } catch {
    // Bun 1.0 throws at once for a body that is done; a Node stream (node-fetch's) has no `cancel`
  }
  return undefined;
}
