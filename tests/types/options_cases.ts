/**
 * Type tests: the client's and the request's options: `headers` as a plain object or
 * `Headers`, `timeoutMs` and `signal` on the client and per request. A misspelt or mistyped option
 * does not compile.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type { HeaderValues, RequestOptions, ServiceClient, ServiceClientOptions } from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

declare function options(value: ServiceClientOptions): void;
declare function perRequest(value: RequestOptions): void;
declare const client: ServiceClient;
const url = "https://example.com/graphql";
const auth = { type: "apiKey", apiKey: "da2-key" } as const;

/** Every option in both places, in each accepted form. */
export async function accepted(): Promise<void> {
  options({
    url,
    auth,
    headers: { "x-app": "demo" },
    timeoutMs: 20_000,
    signal: new AbortController().signal,
  });
  options({ url: new URL(url), auth, headers: new Headers({ "x-app": "demo" }) });
  perRequest({ headers: { "x-request-id": "r-1" }, timeoutMs: 5_000, signal: new AbortController().signal });
  perRequest({ headers: new Headers(), operationName: "Post" });
  perRequest({ retry: { attempts: 1 } });
  // An optional header: `undefined` leaves it out, at run time as in the types.
  const requestId: string | undefined = Math.random() > 0.5 ? "r-3" : undefined;
  perRequest({ headers: { "x-request-id": requestId } });
  options({ url, auth, headers: { "x-tenant": requestId } });
  perRequest({ retry: { shouldRetry: (err) => Promise.resolve(err.code === "BAD_RESPONSE") } });
  await client.mutate("mutation { addPost { id } }", undefined, { retry: { attempts: 1 } });
  await client.request("{ hello }", undefined, { headers: { "x-request-id": "r-2" } });
  assertType<IsExact<HeaderValues, Readonly<Record<string, string | undefined>> | Headers>>();
  // A fetch whose body is a Node stream, as node-fetch's types declare it: no web stream methods.
  options({ url, auth, fetch: nodeStyleFetch });
}

/** node-fetch's shape: a Response whose `body` is a Node readable stream. */
declare function nodeStyleFetch(input: string, init?: { method?: string; body?: string }): Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  headers: Headers;
  text(): Promise<string>;
  body: { readable: boolean; pipe<T>(destination: T): T; read(size?: number): string | Uint8Array | null };
}>;

/** Options whose value may be `undefined` (the project compiles with exactOptionalPropertyTypes). */
export async function explicitlyUndefined(
  config: { timeoutMs?: number; signal?: AbortSignal },
): Promise<void> {
  options({
    url,
    auth,
    timeoutMs: config.timeoutMs,
    signal: config.signal,
    headers: undefined,
    fetch: undefined,
  });
  options({ url, auth, retry: { attempts: undefined, baseDelayMs: undefined, shouldRetry: undefined } });
  options({ url, auth, retry: undefined });
  perRequest({
    timeoutMs: config.timeoutMs,
    signal: config.signal,
    operationName: undefined,
    headers: undefined,
  });
  await client.request("{ hello }", undefined, { timeoutMs: config.timeoutMs });
}

/** Mistakes a JavaScript caller would only learn about at run time. */
export function rejected(): void {
  // @ts-expect-error TS2561 'timeout': the option is `timeoutMs`
  options({ url, auth, timeout: 5_000 });
  // @ts-expect-error TS2322 'string': `timeoutMs` is a number of milliseconds
  options({ url, auth, timeoutMs: "5s" });
  // @ts-expect-error TS2322 'number': header values are strings
  options({ url, auth, headers: { "x-count": 1 } });
  // @ts-expect-error TS2740 'AbortController': `signal` takes the controller's signal
  options({ url, auth, signal: new AbortController() });
  // @ts-expect-error TS2561 'header': the option is `headers`
  perRequest({ header: { "x-a": "b" } });
  // @ts-expect-error TS2322 'number': `operationName` is a string
  perRequest({ operationName: 1 });
  // @ts-expect-error TS2559 'number': a request's `retry` is retry options, not a number of attempts
  perRequest({ retry: 3 });
  // @ts-expect-error TS2322 'string': `shouldRetry` answers a boolean (or a Promise of one)
  perRequest({ retry: { shouldRetry: () => "yes" } });
}

/** A method taken off its client does not compile: it would reject at run time. */
export async function methodTakenOff(): Promise<void> {
  const { request, introspect } = client;
  // @ts-expect-error TS2684: called without its client
  await request("{ hello }");
  // @ts-expect-error TS2684: called without its client
  await introspect();
  await request.call(client, "{ hello }");
  const bound = client.request.bind(client);
  await bound("{ hello }");
}
