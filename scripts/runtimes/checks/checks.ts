/**
 * The checks the browser, worker and edge runs make inside their runtime, against the local
 * endpoint: every auth mode (iam through the client and through `signRequest`), errors, a
 * `DocumentNode` without `loc` (the printer chunk), `introspect()` (its chunk), timeouts and aborts.
 *
 * Runtime-neutral: only `fetch`, `AbortController` and timers. The package comes in through
 * {@link CheckContext} (as each runtime loads it), so this file never imports the library itself.
 *
 * @module
 */

import type * as Client from "../../../mod.ts";
import type * as Sigv4 from "../../../src/sigv4.ts";
import { parse } from "graphql";
import {
  API_KEY,
  CREDENTIALS,
  LAMBDA_TOKEN,
  OIDC_JWT,
  REGION,
  USERPOOL_JWT,
} from "../../../tests/_fixtures.ts";

/** What the checks run against. */
export interface CheckContext {
  /** The package's main entry, as the runtime loaded it. */
  readonly lib: typeof Client;
  /** The package's `./sigv4` entry. */
  readonly sigv4: typeof Sigv4;
  /** The endpoint's base URL, `http://127.0.0.1:PORT` (routes: `/graphql`, and those of scripts/runtimes/endpoint.ts). */
  readonly base: string;
  /** Whether the runtime hides a redirect behind an opaque response of status 0, as browsers do. */
  readonly hidesRedirects?: boolean;
  /** Whether this run expects `AbortSignal.any` to exist (undefined: either is fine). */
  readonly abortSignalAny?: boolean;
  /** Only the checks whose name starts with one of these (all when absent). */
  readonly only?: readonly string[];
}

/** One check's outcome. */
export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  /** The failure, as `name: message`. */
  readonly error?: string;
}

/** A check: its name, what it does, and (when not every run) which runs it applies to. */
type Check = readonly [
  name: string,
  run: (context: CheckContext) => Promise<void>,
  appliesTo?: (context: CheckContext) => boolean,
];

/** How long one check may take: a check that hangs fails instead of stalling the run. */
export const CHECK_TIMEOUT_MS = 10_000;

const MODES: ReadonlyArray<readonly [string, Client.AuthOptions]> = [
  ["apiKey", { type: "apiKey", apiKey: API_KEY }],
  ["userpool", { type: "userpool", jwtToken: USERPOOL_JWT }],
  ["oidc", { type: "oidc", jwtToken: OIDC_JWT }],
  ["lambda", { type: "lambda", authorizationToken: LAMBDA_TOKEN }],
  ["iam", { type: "iam", region: REGION, credentials: CREDENTIALS }],
];

/**
 * Throws `message` unless `condition` holds.
 *
 * @param condition What must hold.
 * @param message The failure's message.
 */
export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error("expected a rejection, but the call resolved");
}

function client(
  context: CheckContext,
  route = "",
  auth: Client.AuthOptions = MODES[0]![1],
): Client.ServiceClient {
  return new context.lib.ServiceClient({ url: `${context.base}${route}/graphql`, auth });
}

/** Expects a ServiceAbortError with `reason`, within `withinMs` of `started`. */
function expectAbort(
  context: CheckContext,
  err: Error & Record<string, unknown>,
  reason: string,
  started: number,
) {
  expect(
    err instanceof context.lib.ServiceAbortError,
    `expected ServiceAbortError, got ${err.name}: ${err.message}`,
  );
  expect(err.reason === reason, `expected reason ${reason}, got ${String(err.reason)}`);
  expect(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
}

const CHECKS: readonly Check[] = [
  ...MODES.map(([mode, auth]): Check => [`${mode}: the endpoint accepts the request`, async (context) => {
    const data = await client(context, "", auth).request<{ whoami: string }>("query { whoami }");
    expect(data.whoami === mode, `the endpoint saw mode ${data.whoami}`);
  }]),
  ["iam: signRequest (./sigv4) headers are accepted by the endpoint", async ({ base, sigv4 }) => {
    const body = JSON.stringify({ query: "{ whoami }" });
    const headers = await sigv4.signRequest(
      {
        method: "POST",
        url: `${base}/graphql`,
        headers: { "content-type": "application/json; charset=UTF-8" },
        body,
      },
      { region: REGION, service: "appsync", credentials: CREDENTIALS },
    );
    const response = await fetch(`${base}/graphql`, { method: "POST", headers, body });
    expect(response.status === 200, `HTTP ${response.status}`);
    const json = await response.json() as { data: { whoami: string } };
    expect(json.data.whoami === "iam", `the endpoint saw ${json.data.whoami}`);
  }],
  [
    "iam: a clock 20 minutes off the endpoint's is corrected, and the request resent once",
    async (context) => {
      const data = await client(context, "/skewed", MODES[4]![1]).request<{ whoami: string }>("{ whoami }");
      expect(data.whoami === "iam", `the endpoint saw mode ${data.whoami}`);
    },
  ],
  ["a wrong API key rejects with ServiceHttpError 401", async (context) => {
    const err = await rejection(
      client(context, "", { type: "apiKey", apiKey: "da2-wrong" }).request("{ hello }"),
    );
    expect(err instanceof context.lib.ServiceHttpError, `got ${err.name}`);
    expect(err.status === 401, `status ${String(err.status)}`);
  }],
  ["a dropped connection rejects with ServiceNetworkError", async (context) => {
    const err = await rejection(client(context, "/reset").request("{ hello }"));
    expect(err instanceof context.lib.ServiceNetworkError, `got ${err.name}: ${err.message}`);
    expect(err.code === "NETWORK_ERROR", `code ${String(err.code)}`);
  }],
  [
    "a redirect is not followed: ServiceHttpError, status 302 (0 in a browser, which hides it)",
    async (context) => {
      const err = await rejection(client(context, "/redirect").request("{ hello }"));
      expect(err instanceof context.lib.ServiceHttpError, `got ${err.name}: ${err.message}`);
      const expected = context.hidesRedirects ? 0 : 302;
      expect(err.status === expected, `status ${String(err.status)}, expected ${expected}`);
    },
  ],
  ["a 503 with Retry-After: 0 is retried at once: the header is read (cross-origin too)", async (context) => {
    // Without the header, the backoff would wait a random time up to 10^9 ms, past the timeout's
    // deadline: the client would then throw the 503 at once instead of retrying.
    const retried = new context.lib.ServiceClient({
      url: `${context.base}/retry-after/graphql`,
      auth: MODES[0]![1],
      retry: { attempts: 2, baseDelayMs: 1e9, maxDelayMs: 1e9 },
    });
    const message = `retry ${Math.random()}`;
    const data = await retried.request<{ echo: string }, { m: string }>(
      "query Echo($m: String!) { echo(message: $m) }",
      { m: message },
      { timeoutMs: 5_000 },
    );
    expect(data.echo === message, `echo was ${data.echo}`);
  }],
  [
    "maxResponseBytes counts what a gzip body inflates to (cross-origin, where its content-encoding is hidden, too)",
    async (context) => {
      const url = `${context.base}/gzip/graphql`;
      const bounded = (maxResponseBytes: number) =>
        new context.lib.ServiceClient({ url, auth: MODES[0]![1], maxResponseBytes });
      // 2,421 bytes inflated, 821 characters, a few dozen bytes on the wire.
      const err = await rejection(bounded(1_000).request("{ hello }"));
      expect(err instanceof context.lib.ServiceResponseError, `got ${err.name}: ${err.message}`);
      expect(/larger than maxResponseBytes$/.test(err.message), err.message);
      const data = await bounded(2_421).request<{ hello: string }>("{ hello }");
      expect(data.hello === "✓".repeat(800), "the body within the limit resolves");
    },
  ],
  ["a field error rejects with ServiceGraphQLError carrying the partial data", async (context) => {
    const err = await rejection(client(context).request("{ hello secret }"));
    expect(err instanceof context.lib.ServiceGraphQLError, `got ${err.name}`);
    expect((err.data as { hello?: string } | undefined)?.hello === "world", "the partial data is kept");
  }],
  ["a DocumentNode without loc is printed (lazy printer chunk) and runs", async (context) => {
    const document = parse("query Echo($m: String!) { echo(message: $m) }", { noLocation: true });
    const data = await client(context).request<{ echo: string }, { m: string }>(document, { m: "héllo ✓" });
    expect(data.echo === "héllo ✓", `echo was ${data.echo}`);
  }],
  ["introspect() loads its chunk and returns the schema", async (context) => {
    const schema = await client(context).introspect();
    expect(schema.__schema.queryType?.name === "Query", "the query type is Query");
  }],
  ["timeoutMs ends a request that never answers: ServiceAbortError(timeout)", async (context) => {
    const started = Date.now();
    const err = await rejection(client(context, "/hang").request("{ hello }", undefined, { timeoutMs: 150 }));
    expectAbort(context, err, "timeout", started);
  }],
  ["timeoutMs bounds a body that trickles forever", async (context) => {
    const started = Date.now();
    const err = await rejection(
      client(context, "/trickle").request("{ hello }", undefined, { timeoutMs: 300 }),
    );
    expectAbort(context, err, "timeout", started);
  }],
  ["the caller's signal aborts an in-flight request: ServiceAbortError(abort)", async (context) => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("navigated away")), 100);
    const err = await rejection(
      client(context, "/hang").request("{ hello }", undefined, { signal: controller.signal }),
    );
    expectAbort(context, err, "abort", started);
    expect(
      (err.cause as Error | undefined)?.message === "navigated away",
      "the signal's reason is the cause",
    );
  }],
  ["an already-aborted signal rejects at once", async (context) => {
    const started = Date.now();
    const err = await rejection(
      client(context).request("{ hello }", undefined, { signal: AbortSignal.abort() }),
    );
    expectAbort(context, err, "abort", started);
  }],
  ["a caller signal and a timeout together: the timeout fires first", async (context) => {
    const controller = new AbortController();
    const started = Date.now();
    const err = await rejection(
      client(context, "/hang").request("{ hello }", undefined, { signal: controller.signal, timeoutMs: 150 }),
    );
    expectAbort(context, err, "timeout", started);
    controller.abort();
  }],
  ["an error's server data is readable through a getter, and out of its keys and its JSON", (context) => {
    const err = new context.lib.ServiceHttpError(401, "Unauthorized", new Headers(), {
      errors: [{ message: "SERVER-DATA" }],
    });
    expect(err.errors[0]?.message === "SERVER-DATA", "err.errors reads the body's errors");
    for (const key of ["body", "errors"]) {
      const descriptor = Object.getOwnPropertyDescriptor(err, key);
      expect(typeof descriptor?.get === "function" && !descriptor.enumerable, `${key} is a hidden getter`);
    }
    expect(
      !JSON.stringify({ err, spread: { ...err } }).includes("SERVER-DATA"),
      "JSON and spread leave it out",
    );
    return Promise.resolve();
  }],
  // Only where the run says which: a run without an expectation has nothing to check it against.
  ["AbortSignal.any is as this run expects", (context) => {
    const present = typeof (AbortSignal as { any?: unknown }).any === "function";
    expect(present === context.abortSignalAny, `AbortSignal.any is ${present ? "present" : "absent"}`);
    return Promise.resolve();
  }, (context) => context.abortSignalAny !== undefined],
];

/**
 * Runs the checks one after another.
 *
 * @param context The package and the endpoint.
 * @returns One result per check, in order.
 */
export async function runChecks(context: CheckContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [name, run, appliesTo] of CHECKS) {
    if (context.only && !context.only.some((prefix) => name.startsWith(prefix))) continue;
    if (appliesTo && !appliesTo(context)) continue;
    results.push(await timedCheck(name, () => run(context)));
  }
  return results;
}

/**
 * Runs `run` as one check, bounded by {@link CHECK_TIMEOUT_MS}.
 *
 * @param name The check's name.
 * @param run The check: it fails by throwing or rejecting.
 * @param detail What to add to a failure's error (the connection states a real-time check saw).
 * @returns The check's result.
 */
export async function timedCheck(
  name: string,
  run: () => Promise<void>,
  detail: () => string = () => "",
): Promise<CheckResult> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`did not settle within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([run(), timeout]);
    return { name, ok: true, ms: Date.now() - started };
  } catch (err) {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { name, ok: false, ms: Date.now() - started, error: error + detail() };
  } finally {
    clearTimeout(timer);
  }
}
