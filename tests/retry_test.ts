import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  isRetryable,
  RETRY_DEFAULTS,
  ServiceAbortError,
  ServiceClient,
  type ServiceClientOptions,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "../mod.ts";
import { retryAfterMs, retryDelay, shouldRetry } from "../src/backoff.ts";
import { retryPolicy } from "../src/retry.ts";
import { type Endpoint, send, startEndpoint } from "./_server.ts";
import { API_KEY, rejection } from "./_fixtures.ts";
import { trackClientTimers } from "./_timers.ts";

let endpoint: Endpoint;

const auth = { type: "apiKey", apiKey: API_KEY } as const;
const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

/** A route that fails with `status` for the first `failures` requests, then answers normally. */
function flaky(name: string, status: number, failures: number, headers: Record<string, string> = {}): string {
  endpoint.route(
    name,
    (_req, res, count, pass) =>
      count <= failures ? send(res, status, { errors: [{ message: `fail ${count}` }] }, headers) : pass(),
  );
  return endpoint.urlFor(name);
}

function client(url: string, extra: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({ url, auth, ...extra });
}

function requestsTo(name: string): number {
  return endpoint.requests.filter((r) => r.path === `/${name}/graphql`).length;
}

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("retry", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("retries", () => {
    it("without a retry option, a 503 is thrown after one attempt", async () => {
      const url = flaky("once-503", 503, 1);
      const err = await rejection(client(url).request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 503);
      assert.equal(requestsTo("once-503"), 1);
    });

    for (const status of [500, 502, 503, 504, 429]) {
      it(`retries HTTP ${status} then returns data`, async () => {
        const name = `retry-${status}`;
        const url = flaky(name, status, 2);
        assert.deepEqual(await client(url, { retry: fast }).request("{ hello }"), { hello: "world" });
        assert.equal(requestsTo(name), 3);
      });
    }

    for (const status of [400, 401, 403, 404]) {
      it(`does not retry HTTP ${status} by default`, async () => {
        const name = `no-retry-${status}`;
        const url = flaky(name, status, 5);
        const err = await rejection(client(url, { retry: fast }).request("{ hello }"));
        assert.equal(err.status, status);
        assert.equal(requestsTo(name), 1);
      });
    }

    it("always 503: stops after `attempts` and throws the last attempt's error", async () => {
      const url = flaky("always-503", 503, 100);
      const err = await rejection(client(url, { retry: fast }).request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.deepEqual(err.errors, [{ message: "fail 3" }]);
      assert.equal(requestsTo("always-503"), 3);
    });

    it("retries a network error (connection refused) and reports ServiceNetworkError with the cause", async () => {
      const closed = await startEndpoint();
      const url = closed.url;
      await closed.close();
      let calls = 0;
      const err = await rejection(new ServiceClient({
        url,
        auth,
        retry: fast,
        fetch: (input, init) => (calls++, fetch(input, init)),
      }).request("{ hello }"));
      assert.ok(err instanceof ServiceNetworkError);
      assert.equal(err.code, "NETWORK_ERROR");
      assert.ok(err.cause instanceof Error);
      assert.equal(calls, 3);
    });

    it("re-reads auth on every attempt", async () => {
      const url = flaky("reauth", 503, 2);
      let calls = 0;
      await new ServiceClient({
        url,
        auth: { type: "apiKey", apiKey: () => (calls++, API_KEY) },
        retry: fast,
      })
        .request("{ hello }");
      assert.equal(calls, 3);
    });

    it("shouldRetry decides the further cases: it adds 409, sees the attempt number, and 503 stays retried", async () => {
      endpoint.route("conflict-then-busy", (_req, res, count, pass) => {
        if (count === 1) return send(res, 409, { errors: [{ message: "conflict" }] });
        if (count === 2) return send(res, 503, { message: "busy" });
        pass();
      });
      const seen: Array<[number, number]> = [];
      const data = await client(endpoint.urlFor("conflict-then-busy"), {
        retry: {
          ...fast,
          shouldRetry: (err, attempt) => {
            seen.push([(err as ServiceHttpError).status, attempt]);
            return err instanceof ServiceHttpError && err.status === 409;
          },
        },
      }).request("{ hello }");
      assert.deepEqual(data, { hello: "world" });
      // Asked about the 409 only: the 503 is a default case, retried without asking.
      assert.deepEqual(seen, [[409, 1]]);
      assert.equal(requestsTo("conflict-then-busy"), 3);
    });

    it("a 2xx body that is not GraphQL is not retried by default, but shouldRetry sees it and may retry it", async () => {
      for (const name of ["not-graphql-default", "not-graphql-retried"]) {
        endpoint.route(
          name,
          (_req, res, count, pass) =>
            count === 1 ? send(res, 200, { errorMessage: "gateway hiccup" }) : pass(),
        );
      }
      const byDefault = await rejection(
        client(endpoint.urlFor("not-graphql-default"), { retry: fast }).request("{ hello }"),
      );
      assert.ok(byDefault instanceof ServiceResponseError, String(byDefault));
      assert.equal(requestsTo("not-graphql-default"), 1);
      const seen: string[] = [];
      const data = await client(endpoint.urlFor("not-graphql-retried"), {
        retry: { ...fast, shouldRetry: (err) => (seen.push(err.code), err instanceof ServiceResponseError) },
      }).request("{ hello }");
      assert.deepEqual(data, { hello: "world" });
      assert.deepEqual(seen, ["BAD_RESPONSE"]);
      assert.equal(requestsTo("not-graphql-retried"), 2);
    });

    it("shouldRetry is never asked about a default case: a 503 and a network error are retried whatever it says", async () => {
      const asked: unknown[] = [];
      const retry = { ...fast, shouldRetry: (err: unknown) => (asked.push(err), false) };
      const data = await client(flaky("no-veto", 503, 1), { retry }).request("{ hello }");
      assert.deepEqual(data, { hello: "world" });
      assert.equal(requestsTo("no-veto"), 2);
      let calls = 0;
      const failingOnce: typeof fetch = (input, init) =>
        ++calls === 1 ? Promise.reject(new TypeError("connection reset")) : fetch(input, init);
      await new ServiceClient({ url: endpoint.url, auth, retry, fetch: failingOnce }).request("{ hello }");
      assert.equal(calls, 2);
      assert.deepEqual(asked, []);
    });

    it("a shouldRetry that throws rejects with a TypeError (INVALID_ARGUMENT) whose cause is its error", async () => {
      const url = flaky("throwing-should-retry", 409, 1);
      const boom = new Error("boom");
      const err = await rejection(
        client(url, {
          retry: {
            ...fast,
            shouldRetry: () => {
              throw boom;
            },
          },
        }).request("{ hello }"),
      );
      assert.ok(err instanceof TypeError);
      assert.equal((err as { code?: string }).code, "INVALID_ARGUMENT");
      assert.equal(err.cause, boom);
      assert.equal(requestsTo("throwing-should-retry"), 1);
    });

    it("honours Retry-After in seconds on 429", async () => {
      const url = flaky("retry-after-seconds", 429, 1, { "retry-after": "1" });
      const started = Date.now();
      await client(url, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5_000 } }).request("{ hello }");
      const waited = Date.now() - started;
      assert.ok(waited >= 900, `waited ${waited} ms for Retry-After: 1`);
      assert.equal(requestsTo("retry-after-seconds"), 2);
    });

    it("honours Retry-After as an HTTP date on 503", async () => {
      const url = flaky("retry-after-date", 503, 1, {
        "retry-after": new Date(Date.now() + 2_000).toUTCString(),
      });
      const started = Date.now();
      await client(url, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5_000 } }).request("{ hello }");
      const waited = Date.now() - started;
      assert.ok(waited >= 500, `waited ${waited} ms for a Retry-After date ~1-2 s ahead`);
      assert.equal(requestsTo("retry-after-date"), 2);
    });

    it("reads a Retry-After date against the server's Date: a server clock ten minutes off changes nothing", async () => {
      for (
        const [name, skewMs] of [["retry-after-ahead", 600_000], ["retry-after-behind", -600_000]] as const
      ) {
        const serverNow = Date.now() + skewMs;
        const url = flaky(name, 503, 1, {
          date: new Date(serverNow).toUTCString(),
          "retry-after": new Date(serverNow + 2_000).toUTCString(),
        });
        const started = Date.now();
        // Against the local clock, the date is 10 minutes away (over maxDelayMs: the 503 thrown at once)
        // or 10 minutes past (retried at once).
        await client(url, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5_000 } }).request("{ hello }");
        const waited = Date.now() - started;
        assert.ok(
          waited >= 900,
          `${name}: waited ${waited} ms for a Retry-After 2 s after the server's Date`,
        );
        assert.equal(requestsTo(name), 2);
      }
    });

    it("the call's deadline follows the timer, not the wall clock: a clock step during a call changes nothing", async () => {
      // An NTP step or a VM resume moves Date.now() by an hour while the first attempt is in flight.
      const realNow = Date.now;
      endpoint.route("clock-step", (_req, res, count, pass) => {
        if (count > 1) return pass();
        Date.now = () => realNow() + 3_600_000;
        return send(res, 503, { errors: [{ message: "busy" }] });
      });
      try {
        const data = await client(endpoint.urlFor("clock-step"), { retry: fast })
          .request("{ hello }", undefined, { timeoutMs: 10_000 });
        assert.deepEqual(data, { hello: "world" }, "retried: the deadline is still 10 s away");
      } finally {
        Date.now = realNow;
      }
      assert.equal(requestsTo("clock-step"), 2);
    });

    it("an abort while a synchronous shouldRetry decides ends the call as ABORTED, as during an async one", async () => {
      for (const answer of [false, true]) {
        const name = `abort-in-should-retry-${answer}`;
        const url = flaky(name, 409, 1);
        const controller = new AbortController();
        const err = await rejection(
          client(url, {
            retry: {
              ...fast,
              shouldRetry: () => {
                controller.abort("user left");
                return answer;
              },
            },
          }).request("{ hello }", undefined, { signal: controller.signal }),
        );
        assert.ok(err instanceof ServiceAbortError, `answer ${answer}: ${err}`);
        assert.equal(err.reason, "abort");
        assert.equal(requestsTo(name), 1);
      }
    });

    it("an abort while an async shouldRetry decides leaves no wait timer behind when it then says yes", async () => {
      const url = flaky("abort-in-async-should-retry", 409, 1);
      const controller = new AbortController();
      const timers = trackClientTimers();
      try {
        const err = await rejection(
          client(url, {
            retry: {
              attempts: 3,
              baseDelayMs: 10_000,
              maxDelayMs: 10_000,
              shouldRetry: () => (controller.abort("user left"),
                new Promise((resolve) => setTimeout(resolve, 20, true))),
            },
          }).request("{ hello }", undefined, { signal: controller.signal }),
        );
        assert.ok(err instanceof ServiceAbortError, String(err));
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(timers.pending(), 0, "a backoff wait was started after the call had ended");
      } finally {
        timers.restore();
      }
      assert.equal(requestsTo("abort-in-async-should-retry"), 1);
    });

    it("an abort between telling the error and asking shouldRetry (the backoff chunk's load) asks it nothing", async () => {
      const url = flaky("abort-before-should-retry", 409, 1);
      const controller = new AbortController();
      let asked = 0;
      // The last step before the backoff chunk is loaded is isRetryable's read of the error's status: an
      // abort there lands in the moment between (the chunk's load, or its lookup once loaded).
      let told = 0;
      const stored = Symbol("status");
      Object.defineProperty(ServiceHttpError.prototype, "status", {
        configurable: true,
        get(this: { [stored]: number }) {
          told++;
          controller.abort("user left");
          return this[stored];
        },
        set(this: { [stored]: number }, status: number) {
          this[stored] = status;
        },
      });
      try {
        const err = await rejection(
          client(url, { retry: { ...fast, shouldRetry: () => (asked++, true) } })
            .request("{ hello }", undefined, { signal: controller.signal }),
        );
        assert.ok(err instanceof ServiceAbortError, String(err));
      } finally {
        delete (ServiceHttpError.prototype as { status?: number }).status;
      }
      assert.equal(told, 1, "the error was told once, after the response");
      assert.equal(requestsTo("abort-before-should-retry"), 1);
      assert.equal(asked, 0, "shouldRetry was asked after the call had ended");
    });

    it("an auth getter's failure is never retried, even by a shouldRetry that retries everything", async () => {
      let calls = 0;
      const err = await rejection(
        new ServiceClient({
          url: flaky("auth-never-retried", 409, 0),
          auth: { type: "apiKey", apiKey: () => (calls++, "") },
          retry: { ...fast, shouldRetry: () => true },
        }).request("{ hello }"),
      );
      assert.equal(err.code, "AUTH_ERROR", String(err));
      assert.equal(calls, 1);
    });

    it("a Retry-After longer than maxDelayMs is not waited for: the 429 is thrown at once", async () => {
      const url = flaky("retry-after-long", 429, 1, { "retry-after": "120" });
      const started = Date.now();
      const err = await rejection(client(url, { retry: fast }).request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 429);
      assert.equal(err.headers.get("retry-after"), "120");
      assert.ok(Date.now() - started < 2_000);
      assert.equal(requestsTo("retry-after-long"), 1);
    });

    it("a Retry-After beyond the call's timeout is not waited for: the 429 is thrown, not a timeout", async () => {
      const url = flaky("retry-after-timeout", 429, 1, { "retry-after": "5" });
      const err = await rejection(
        client(url, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 10_000 } })
          .request("{ hello }", undefined, { timeoutMs: 1_000 }),
      );
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 429);
      assert.equal(requestsTo("retry-after-timeout"), 1);
    });

    it("a Retry-After just past the call's deadline is not waited for either (2 s against 1.5 s)", async () => {
      const url = flaky("retry-after-just-past", 429, 1, { "retry-after": "2" });
      const started = Date.now();
      const err = await rejection(
        client(url, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 10_000 } })
          .request("{ hello }", undefined, { timeoutMs: 1_500 }),
      );
      assert.ok(err instanceof ServiceHttpError, String(err));
      assert.equal(err.status, 429);
      assert.ok(Date.now() - started < 1_000, "thrown at once, not after waiting to the deadline");
    });

    it("a caller abort during a backoff wait ends the call at once, with no further attempt", async () => {
      const url = flaky("abort-in-backoff", 503, 10);
      const controller = new AbortController();
      const started = Date.now();
      // A wait drawn from [0, 10^9) ms: below the 25 ms before the abort once in 40 million runs
      // (with 10 s, once in 400 runs: it happened, and the test saw a second attempt).
      const pending = client(url, { retry: { attempts: 5, baseDelayMs: 1e9, maxDelayMs: 1e9 } })
        .request("{ hello }", undefined, { signal: controller.signal });
      // The first attempt fails fast; abort once it has been received.
      while (requestsTo("abort-in-backoff") < 1) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 20));
      controller.abort("user left");
      const err = await rejection(pending);
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "abort");
      assert.equal(err.cause, "user left");
      assert.ok(Date.now() - started < 5_000);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(requestsTo("abort-in-backoff"), 1);
    });

    it("the timeout bounds the whole call, retries and waits included", async () => {
      const url = flaky("timeout-over-retries", 503, 100);
      const started = Date.now();
      const err = await rejection(
        client(url, { retry: { attempts: 100, baseDelayMs: 50, maxDelayMs: 50 } })
          .request("{ hello }", undefined, { timeoutMs: 300 }),
      );
      assert.ok(err instanceof ServiceAbortError || err instanceof ServiceHttpError, String(err));
      assert.ok(Date.now() - started < 2_000);
      assert.ok(requestsTo("timeout-over-retries") < 100);
    });
    it("100 attempts leave no pile of listeners on any signal fetch is given (Node warns past 100)", async () => {
      // Node's fetch leaves its abort listener on the signal it is given until that signal is
      // collected; this fetch does the same, and counts what each signal gathers.
      const url = flaky("hundred-attempts", 503, 100);
      const gathered = new Map<AbortSignal, number>();
      const warnings: string[] = [];
      const onWarning = (warning: Error) => void warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        const c = client(url, {
          retry: { attempts: 100, baseDelayMs: 0, maxDelayMs: 0 },
          timeoutMs: 60_000,
          fetch: (input, init) => {
            const signal = init!.signal!;
            signal.addEventListener("abort", () => {});
            gathered.set(signal, (gathered.get(signal) ?? 0) + 1);
            return fetch(input, init);
          },
        });
        const err = await rejection(c.request("{ hello }"));
        assert.equal(err.status, 503);
        assert.equal(requestsTo("hundred-attempts"), 100);
        assert.deepEqual(new Set(gathered.values()), new Set([1]), "one listener per signal");
        await new Promise((resolve) => setTimeout(resolve, 0));
        assert.deepEqual(warnings.filter((name) => name === "MaxListenersExceededWarning"), []);
      } finally {
        process.off("warning", onWarning);
      }
    });

    it("an async shouldRetry leaves no listener of the client's on any signal, over many attempts", async () => {
      // Every listener the client adds to a signal it hands fetch is counted until it is removed;
      // fetch's own (added while it is called: Node's stays until the signal is collected) are not.
      let live = 0, fetching = false;
      const c = client(flaky("async-should-retry-listeners", 409, 30), {
        retry: { attempts: 30, baseDelayMs: 0, maxDelayMs: 0, shouldRetry: () => Promise.resolve(true) },
        timeoutMs: 60_000,
        fetch: (input, init) => {
          const signal = init!.signal!;
          const [add, remove] = [
            signal.addEventListener.bind(signal),
            signal.removeEventListener.bind(signal),
          ];
          const counted = new Set<unknown>();
          signal.addEventListener =
            ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
              if (!fetching && !counted.has(listener)) [counted.add(listener), live++];
              add(type, listener, options);
            }) as typeof signal.addEventListener;
          signal.removeEventListener = ((type: string, listener: EventListener) => {
            if (counted.delete(listener)) live--;
            remove(type, listener);
          }) as typeof signal.removeEventListener;
          fetching = true;
          try {
            return fetch(input, init);
          } finally {
            fetching = false;
          }
        },
      });
      const err = await rejection(c.request("{ hello }"));
      assert.equal(err.status, 409);
      assert.equal(requestsTo("async-should-retry-listeners"), 30);
      assert.equal(live, 0, "listeners left behind");
    });
  });

  describe("retry policy", () => {
    it("fills documented defaults for missing fields", () => {
      assert.deepEqual(retryPolicy({}), { ...RETRY_DEFAULTS, shouldRetry: undefined });
      assert.deepEqual(RETRY_DEFAULTS, { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000 });
    });

    it("takes the ends of each range: delays of 0 and of the longest timer, 1 and 100 attempts", () => {
      assert.deepEqual(
        retryPolicy({ attempts: 1, baseDelayMs: 0, maxDelayMs: 0 }),
        { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, shouldRetry: undefined },
      );
      assert.equal(retryPolicy({ attempts: 100, maxDelayMs: 2_147_483_647 }).maxDelayMs, 2_147_483_647);
    });

    it("a delay given alone moves the other's default out of its way; given both, they must agree", () => {
      const policy = (retry: object) => {
        const { baseDelayMs, maxDelayMs } = retryPolicy(retry);
        return [baseDelayMs, maxDelayMs];
      };
      assert.deepEqual(policy({ maxDelayMs: 100 }), [100, 100], "waits of at most 100 ms");
      assert.deepEqual(policy({ maxDelayMs: 0 }), [0, 0], "no wait at all");
      assert.deepEqual(policy({ maxDelayMs: 300 }), [250, 300], "above the default base: it stays");
      assert.deepEqual(policy({ baseDelayMs: 20_000 }), [20_000, 20_000], "a base above the default cap");
      assert.deepEqual(policy({ baseDelayMs: 500 }), [500, 10_000], "below the default cap: it stays");
      assert.throws(() => retryPolicy({ baseDelayMs: 300, maxDelayMs: 299 }), {
        name: "RangeError",
        message: "Invalid retry.maxDelayMs: expected at least retry.baseDelayMs (300), current value is 299",
      });
    });

    it("a shouldRetry answer that is not a boolean is refused, not taken for a yes or a no", async () => {
      const err = new ServiceHttpError(409, "", new Headers());
      for (const answer of [1, "yes", {}, undefined, null]) {
        assert.throws(
          () => shouldRetry(retryPolicy({ shouldRetry: () => answer as never }), err, 1),
          (error: TypeError & { code?: string }) => {
            assert.equal(error.code, "INVALID_ARGUMENT");
            assert.match(
              error.message,
              /^Invalid answer from retry\.shouldRetry: expected a boolean, got (a number|a string|an object|undefined|null)$/,
            );
            assert.equal(error.cause, err, "the attempt's error is kept");
            return true;
          },
        );
      }
      await assert.rejects(
        shouldRetry(retryPolicy({ shouldRetry: () => Promise.resolve("yes" as never) }), err, 1) as Promise<
          boolean
        >,
        /Invalid answer from retry\.shouldRetry/,
      );
      assert.equal(shouldRetry(retryPolicy({ shouldRetry: () => true }), err, 1), true);
      assert.equal(shouldRetry(retryPolicy({ shouldRetry: () => false }), err, 1), false);
      assert.equal(
        await shouldRetry(retryPolicy({ shouldRetry: () => Promise.resolve(true) }), err, 1),
        true,
      );
      // A thenable of another promise library or realm is awaited as a Promise is.
      const thenable = (answer: unknown) => ({
        then: (resolve: (value: unknown) => void) => resolve(answer),
      });
      assert.equal(
        await shouldRetry(retryPolicy({ shouldRetry: () => thenable(true) as never }), err, 1),
        true,
      );
      assert.equal(
        await shouldRetry(retryPolicy({ shouldRetry: () => thenable(false) as never }), err, 1),
        false,
      );
      await assert.rejects(
        Promise.resolve(shouldRetry(retryPolicy({ shouldRetry: () => thenable(1) as never }), err, 1)),
        /^TypeError: Invalid answer from retry\.shouldRetry: expected a boolean/,
      );
    });

    it("a request's retry replaces the client's: { attempts: 1 } sends a mutation once on a client that retries", async () => {
      const retrying = client(flaky("request-retry-off", 503, 5), { retry: fast });
      const err = await rejection(
        retrying.mutate('mutation { addPost(title: "x") { id } }', undefined, { retry: { attempts: 1 } }),
      );
      assert.equal(err.status, 503);
      assert.equal(requestsTo("request-retry-off"), 1);
      // And the other way: a request retries on a client that does not.
      const once = client(flaky("request-retry-on", 503, 1));
      assert.deepEqual(await once.request("{ hello }", undefined, { retry: fast }), { hello: "world" });
      assert.equal(requestsTo("request-retry-on"), 2);
      // The client's own policy still applies to its other calls.
      const url = flaky("request-retry-client-again", 503, 2);
      const again = client(url, { retry: fast });
      await rejection(again.request("{ hello }", undefined, { retry: { attempts: 1 } }));
      assert.deepEqual(await again.request("{ hello }"), { hello: "world" });
      assert.equal(requestsTo("request-retry-client-again"), 3, "the second call was retried");
    });

    it("a request's retry is checked like the client's", async () => {
      const c = client(endpoint.url);
      for (
        const [retry, message] of [
          [
            { attempts: 0 },
            /^Invalid retry\.attempts: expected an integer from 1 to 100, current value is 0$/,
          ],
          [
            { tries: 2 },
            /^Unknown option `tries` in retry: expected one of attempts, baseDelayMs, maxDelayMs, shouldRetry$/,
          ],
          ["3", /^Invalid retry: expected an object, current value is a string$/],
        ] as const
      ) {
        const err = await rejection(c.request("{ hello }", undefined, { retry } as never));
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, message);
      }
    });

    it("an async shouldRetry is awaited: a yes retries, a rejection rejects the call with it as the cause", async () => {
      const url = flaky("async-should-retry", 409, 1);
      const c = client(url, { retry: { ...fast, shouldRetry: async () => await Promise.resolve(true) } });
      assert.deepEqual(await c.request("{ hello }"), { hello: "world" });
      assert.equal(requestsTo("async-should-retry"), 2);
      const failure = new Error("decision failed");
      const d = client(flaky("async-should-retry-rejects", 409, 5), {
        retry: { ...fast, shouldRetry: () => Promise.reject(failure) },
      });
      const err = await rejection(d.request("{ hello }"));
      assert.equal(err.code, "INVALID_ARGUMENT");
      assert.equal(err.cause, failure);
    });

    it("an async shouldRetry that never answers is ended by the call's timeout", async () => {
      const c = client(flaky("async-should-retry-hangs", 409, 5), {
        retry: { ...fast, shouldRetry: () => new Promise<boolean>(() => {}) },
      });
      const started = Date.now();
      const err = await rejection(c.request("{ hello }", undefined, { timeoutMs: 100 }));
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "timeout");
      assert.ok(Date.now() - started < 2_000, "within 2 s");
    });

    it("a Retry-After of exactly maxDelayMs is waited for", () => {
      const err = new ServiceHttpError(429, "", new Headers({ "retry-after": "5" }));
      assert.equal(retryDelay(retryPolicy({ maxDelayMs: 5_000 }), err, 1), 5_000);
    });

    it("Retry-After is honoured on 429 and 503 only: on a 500, the backoff decides", () => {
      const policy = retryPolicy({ attempts: 3, baseDelayMs: 10, maxDelayMs: 100 });
      const after = (status: number) =>
        new ServiceHttpError(status, "", new Headers({ "retry-after": "3600" }));
      // An hour is more than maxDelayMs: on 429/503 the error is thrown at once; a 500 waits its backoff.
      assert.equal(retryDelay(policy, after(429), 1, () => 0.5), undefined);
      assert.equal(retryDelay(policy, after(503), 1, () => 0.5), undefined);
      assert.equal(retryDelay(policy, after(500), 1, () => 0.5), 5);
    });

    it("backoff is full jitter over baseDelayMs * 2^(attempt-1), capped at maxDelayMs", () => {
      const policy = retryPolicy({ attempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 });
      const err = new ServiceNetworkError(new Error("x"));
      assert.equal(retryDelay(policy, err, 1, () => 0), 0);
      assert.equal(retryDelay(policy, err, 1, () => 0.999), 99);
      assert.equal(retryDelay(policy, err, 2, () => 0.5), 100);
      assert.equal(retryDelay(policy, err, 3, () => 0.5), 200);
      assert.equal(retryDelay(policy, err, 8, () => 0.999), 999);
    });

    it("parses Retry-After seconds and dates, and ignores garbage", () => {
      const now = Date.parse("2026-01-01T00:00:00Z");
      assert.equal(retryAfterMs("3", now), 3_000);
      assert.equal(retryAfterMs(" 0 ", now), 0);
      assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now), 5_000);
      assert.equal(retryAfterMs("Wed, 31 Dec 2025 00:00:05 GMT", now), 0);
      assert.equal(retryAfterMs("soon", now), undefined);
      // Neither whole seconds nor a date (Date.parse alone reads these as dates in 2001 and 2000).
      assert.equal(retryAfterMs("1.5", now), undefined);
      assert.equal(retryAfterMs("-1", now), undefined);
      assert.equal(retryAfterMs("in 5", now), undefined);
      assert.equal(retryAfterMs("12 Jan", now), undefined);
      assert.equal(retryAfterMs("Thu, 01 Jan 2026", now), undefined, "an HTTP date has a time");
      assert.equal(retryAfterMs("2026-01-01T00:00:05Z", now), undefined, "ISO 8601 is not an HTTP date");
      // The obsolete HTTP-date forms RFC 9110 still asks recipients to accept.
      assert.equal(retryAfterMs("Thursday, 01-Jan-26 00:00:05 GMT", now), 5_000);
      assert.equal(retryAfterMs("Thu Jan  1 00:00:05 2026", now), 5_000);
      assert.equal(retryAfterMs(null, now), undefined);
    });

    it("reads every Retry-After date as GMT, whatever the local time zone", () => {
      // The asctime form names no zone, and Date.parse reads such a date as local time. Deno, Node and
      // Bun all take a new TZ at once.
      const now = Date.parse("2026-01-01T00:00:00Z");
      const zone = process.env.TZ;
      try {
        for (const tz of ["America/New_York", "Asia/Tokyo", "UTC"]) {
          process.env.TZ = tz;
          assert.equal(retryAfterMs("Thu Jan  1 00:00:05 2026", now), 5_000, tz);
          assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now), 5_000, tz);
          assert.equal(retryAfterMs("Thursday, 01-Jan-26 00:00:05 GMT", now), 5_000, tz);
        }
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
    });

    it("isRetryable: network errors, 5xx and 429 only", () => {
      const h = new Headers();
      assert.equal(isRetryable(new ServiceNetworkError(new Error("x"))), true);
      assert.equal(isRetryable(new ServiceHttpError(500, "", h)), true);
      assert.equal(isRetryable(new ServiceHttpError(429, "", h)), true);
      assert.equal(isRetryable(new ServiceHttpError(404, "", h)), false);
      assert.equal(isRetryable(new ServiceAbortError("timeout")), false);
      assert.equal(isRetryable(new Error("x")), false);
    });

    it("isRetryable answers for an error of another copy of the package (the CommonJS one) by its code", () => {
      const foreign = (code: string, status?: number) =>
        Object.assign(new Error("from another copy"), { code, status });
      assert.equal(isRetryable(foreign("NETWORK_ERROR")), true);
      assert.equal(isRetryable(foreign("HTTP_ERROR", 503)), true);
      assert.equal(isRetryable(foreign("HTTP_ERROR", 409)), false);
      assert.equal(isRetryable(foreign("BAD_RESPONSE", 503)), false);
    });
  });
});
