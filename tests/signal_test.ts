import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AuthOptions, ServiceAbortError, ServiceClient, type ServiceClientOptions } from "../mod.ts";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY, REGION } from "./_fixtures.ts";
import { rejection } from "./_fixtures.ts";

let endpoint: Endpoint;

const auth = { type: "apiKey", apiKey: API_KEY } as const;
function client(name?: string, extra: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({ url: name ? endpoint.urlFor(name) : endpoint.url, auth, ...extra });
}

/** A signal whose registered abort listeners are tracked, to prove none is left behind. */
function countedSignal() {
  const controller = new AbortController();
  const signal = controller.signal;
  const registered = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
    registered.add(listener);
    add(type, listener, options);
  }) as AbortSignal["addEventListener"];
  signal.removeEventListener = ((type: string, listener: EventListener) => {
    registered.delete(listener);
    remove(type, listener);
  }) as AbortSignal["removeEventListener"];
  return { controller, signal, listeners: () => registered.size };
}

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("signals", () => {
  before(async () => {
    endpoint = await startEndpoint();
    // Never answers: keeps the request open until the client gives up.
    endpoint.route("hang", () => new Promise<void>(() => {}));
    // Sends headers, then one byte every 50 ms, forever (until the client goes away).
    endpoint.route("trickle", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":{"hello":"');
      const timer = setInterval(() => res.write("x"), 50);
      res.on("close", () => clearInterval(timer));
    });
  });
  after(() => endpoint.close());

  describe("timeouts and cancellation", () => {
    it("an abort while a failed response's body is read ends the call before shouldRetry is asked", async () => {
      // A 409 whose body starts, then never ends.
      endpoint.route("trickle-409", (_req, res) => {
        res.writeHead(409, { "content-type": "application/json" });
        res.write('{"errors":[');
        const timer = setInterval(() => res.write(" "), 50);
        res.on("close", () => clearInterval(timer));
      });
      let asked = 0;
      const controller = new AbortController();
      const c = client("trickle-409", {
        retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0, shouldRetry: () => (asked++, true) },
      });
      const pending = c.request("{ hello }", undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      const err = await rejection(pending);
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(asked, 0, "shouldRetry was asked after the abort");
    });

    it("timeoutMs ends a request that never answers: ServiceAbortError, reason timeout, code ABORTED", async () => {
      const started = Date.now();
      const err = await rejection(client("hang").request("{ hello }", undefined, { timeoutMs: 100 }));
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "timeout");
      assert.equal(err.code, "ABORTED");
      assert.ok(Date.now() - started < 2_000, "a 100 ms timeout fires within 2 s");
    });

    it("timeoutMs bounds the body read (headers sent, body trickles forever)", async () => {
      const err = await rejection(client("trickle").request("{ hello }", undefined, { timeoutMs: 200 }));
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "timeout");
    });

    it("the caller's signal aborts an in-flight request: reason abort, the signal's reason as cause", async () => {
      const controller = new AbortController();
      const pending = client("hang").request("{ hello }", undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("navigated away")), 50);
      const err = await rejection(pending);
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.code, "ABORTED");
      assert.equal(err.reason, "abort");
      assert.equal((err.cause as Error).message, "navigated away");
    });

    it("a caller's AbortSignal.timeout() ends the call as a timeout: reason timeout, its TimeoutError as cause", async () => {
      const err = await rejection(
        client("hang").request("{ hello }", undefined, { signal: AbortSignal.timeout(50) }),
      );
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "timeout");
      assert.equal((err.cause as DOMException).name, "TimeoutError");
      // Already fired before the call: the same.
      const timedOut = AbortSignal.timeout(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const early = await rejection(client().request("{ hello }", undefined, { signal: timedOut }));
      assert.equal(early.reason, "timeout");
    });

    it("an already-aborted signal rejects without calling fetch", async () => {
      let calls = 0;
      const c = client(undefined, { fetch: (input, init) => (calls++, fetch(input, init)) });
      const err = await c.request("{ hello }", undefined, { signal: AbortSignal.abort("early") }).catch((e) =>
        e
      );
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "abort");
      assert.equal(calls, 0);
    });

    it("a caller abort is not retried", async () => {
      let calls = 0;
      const controller = new AbortController();
      const c = client("hang", {
        retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 1 },
        fetch: (input, init) => (calls++, fetch(input, init)),
      });
      const pending = c.request("{ hello }", undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(), 30);
      assert.ok((await rejection(pending)) instanceof ServiceAbortError);
      assert.equal(calls, 1);
    });

    it("the signal fetch is given aborts with the very error the call rejects with", async () => {
      const given: AbortSignal[] = [];
      const c = client("hang", {
        retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
        fetch: (input, init) => (given.push(init!.signal!), fetch(input, init)),
      });
      const err = await rejection(c.request("{ hello }", undefined, { timeoutMs: 100 }));
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(err.reason, "timeout");
      assert.equal(given.length, 1);
      assert.equal(given[0]!.reason, err);
    });

    it("an abort during fetch leaves the error the call rejects with as it was made (its fields own and enumerable)", async () => {
      for (const name of ["timeout", "abort"] as const) {
        const controller = new AbortController();
        if (name == "abort") setTimeout(() => controller.abort(), 50);
        const options = name == "timeout" ? { timeoutMs: 50 } : { signal: controller.signal };
        const pending = client("hang").request("{ hello }", undefined, options);
        const err = await rejection(pending);
        // The fetch the call aborted rejects with that same error, a moment later on some runtimes.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.ok(err instanceof ServiceAbortError, String(err));
        assert.deepEqual(
          Object.getOwnPropertyDescriptor(err, "code"),
          { value: "ABORTED", writable: true, enumerable: true, configurable: true },
          `${name}: code is an own, plain field`,
        );
        assert.deepEqual(JSON.parse(JSON.stringify(err)), { code: "ABORTED", reason: name }, name);
      }
    });

    it("the timeout also bounds a slow token getter", async () => {
      const c = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: () => new Promise<string>(() => {}) },
      });
      const err = await rejection(c.request("{ hello }", undefined, { timeoutMs: 100 }));
      assert.ok(err instanceof ServiceAbortError);
      assert.equal(err.reason, "timeout");
    });

    // A getter that answers only after the call ended (its timeout, or the caller's abort): the request
    // must not go out then. A mutation sent that way would run although its caller was told it failed.
    for (const [mode, ending] of [["apiKey", "timeout"], ["apiKey", "abort"], ["iam", "timeout"]] as const) {
      it(`${mode}: a getter that answers after the call's ${ending} sends nothing`, async () => {
        let fetched = 0;
        const late = <T>(value: T) => () =>
          new Promise<T>((resolve) => setTimeout(() => resolve(value), 150));
        const auth: AuthOptions = mode === "iam"
          ? {
            type: "iam",
            region: REGION,
            credentials: late({ accessKeyId: "AKID", secretAccessKey: "secret" }),
          }
          : { type: "apiKey", apiKey: late(API_KEY) };
        const c = new ServiceClient({
          url: endpoint.url,
          auth,
          fetch: (input, init) => (fetched++, fetch(input, init)),
        });
        const controller = new AbortController();
        const call = c.mutate('mutation { addPost(title: "once") { id } }', undefined, {
          ...(ending === "timeout" ? { timeoutMs: 50 } : { signal: controller.signal }),
        });
        if (ending === "abort") setTimeout(() => controller.abort(), 50);
        const err = await rejection(call);
        assert.ok(err instanceof ServiceAbortError, String(err));
        assert.equal(err.reason, ending);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(fetched, 0, "the request went out after the call had ended");
      });
    }

    // A fetch wrapper that rebuilds `init` and drops its signal, or a body that never ends: the call
    // still ends at its timeout, as it does for a slow getter.
    const deafFetches: ReadonlyArray<[string, () => Promise<Response>]> = [
      ["a fetch that drops the signal and never answers", () => new Promise<Response>(() => {})],
      [
        "a fetch that drops the signal and whose body never ends",
        () =>
          Promise.resolve(
            new Response(new ReadableStream({ start: (body) => body.enqueue(new Uint8Array([123])) }), {
              headers: { "content-type": "application/json" },
            }),
          ),
      ],
    ];
    for (const [name, deafFetch] of deafFetches) {
      it(`the timeout also bounds ${name}`, async () => {
        const c = new ServiceClient({ url: endpoint.url, auth, fetch: deafFetch });
        const started = Date.now();
        const err = await rejection(c.request("{ hello }", undefined, { timeoutMs: 100 }));
        assert.ok(err instanceof ServiceAbortError, String(err));
        assert.equal(err.reason, "timeout");
        assert.ok(Date.now() - started < 2_000, `ended after ${Date.now() - started} ms`);
      });
    }

    for (const mode of ["lambda", "iam"] as const) {
      it(`${mode}: a getter that aborts the caller's signal before returning ends the call at once`, async () => {
        // A provider that finds the session gone, signs the user out (aborting the app's signal), then
        // waits for a new sign-in that may never come.
        const logout = new AbortController();
        const never = () => (logout.abort(new Error("signed out")), new Promise<never>(() => {}));
        const auth: AuthOptions = mode === "iam"
          ? { type: "iam", region: REGION, credentials: never }
          : { type: "lambda", authorizationToken: never };
        const c = new ServiceClient({ url: endpoint.url, auth, signal: logout.signal, timeoutMs: 5_000 });
        const started = Date.now();
        const err = await rejection(c.request("{ hello }"));
        assert.ok(err instanceof ServiceAbortError, String(err));
        assert.equal(err.reason, "abort");
        assert.equal((err.cause as Error).message, "signed out");
        assert.ok(Date.now() - started < 2_000, `ended after ${Date.now() - started} ms`);
      });
    }

    it("leaves no listener on the caller's signal after success, failure and timeout", async () => {
      const counted = countedSignal();
      await client().request("{ hello }", undefined, { signal: counted.signal });
      assert.equal(counted.listeners(), 0);
      await client().request("{ nope }", undefined, { signal: counted.signal }).catch(() => {});
      assert.equal(counted.listeners(), 0);
      await rejection(
        client("hang").request("{ hello }", undefined, { signal: counted.signal, timeoutMs: 50 }),
      );
      assert.equal(counted.listeners(), 0);
    });

    it("one long-lived signal shared by 200 requests holds at most the in-flight listeners, then none", async () => {
      const counted = countedSignal();
      const c = client();
      await Promise.all(
        Array.from({ length: 200 }, () => c.request("{ hello }", undefined, { signal: counted.signal })),
      );
      assert.equal(counted.listeners(), 0);
      assert.equal(counted.signal.aborted, false);
    });

    it("a shared signal still aborts the calls in flight after another call on it has ended", async () => {
      const controller = new AbortController();
      const c = client();
      // The timeout only ends the test should the abort not arrive.
      const hanging = client("hang").request("{ hello }", undefined, {
        signal: controller.signal,
        timeoutMs: 5_000,
      });
      await c.request("{ hello }", undefined, { signal: controller.signal });
      setTimeout(() => controller.abort("logout"), 20);
      const err = await rejection(hanging);
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(err.reason, "abort");
      assert.equal(err.cause, "logout");
    });

    it("a signal reused after every call on it has ended still aborts the next call", async () => {
      const controller = new AbortController();
      await client().request("{ hello }", undefined, { signal: controller.signal });
      // The timeout only ends the test should the abort not arrive.
      const hanging = client("hang").request("{ hello }", undefined, {
        signal: controller.signal,
        timeoutMs: 5_000,
      });
      setTimeout(() => controller.abort("logout"), 20);
      const err = await rejection(hanging);
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(err.reason, "abort");
      assert.equal(err.cause, "logout");
    });

    it("works where AbortSignal.any is missing (Safari < 17.4, edge-runtime)", async () => {
      const any = Object.getOwnPropertyDescriptor(AbortSignal, "any");
      // deno-lint-ignore no-explicit-any
      delete (AbortSignal as any).any;
      try {
        const controller = new AbortController();
        const pending = client("hang").request("{ hello }", undefined, {
          signal: controller.signal,
          timeoutMs: 5_000,
        });
        setTimeout(() => controller.abort(), 30);
        assert.equal(((await rejection(pending)) as ServiceAbortError).reason, "abort");
        const timedOut = await rejection(client("hang").request("{ hello }", undefined, { timeoutMs: 50 }));
        assert.equal((timedOut as ServiceAbortError).reason, "timeout");
      } finally {
        if (any) Object.defineProperty(AbortSignal, "any", any);
      }
    });
  });

  describe("client-level timeout and signal", () => {
    it("the client's timeoutMs applies to every request", async () => {
      const err = await rejection(client("hang", { timeoutMs: 80 }).request("{ hello }"));
      assert.equal((err as ServiceAbortError).reason, "timeout");
    });

    it("the earlier of the client's and the request's timeouts wins", async () => {
      const started = Date.now();
      const err = await rejection(
        client("hang", { timeoutMs: 10_000 }).request("{ hello }", undefined, { timeoutMs: 80 }),
      );
      assert.equal((err as ServiceAbortError).reason, "timeout");
      assert.ok(Date.now() - started < 5_000);
      const err2 = await rejection(
        client("hang", { timeoutMs: 80 }).request("{ hello }", undefined, {
          timeoutMs: 10_000,
        }),
      );
      assert.equal((err2 as ServiceAbortError).reason, "timeout");
    });

    it("either the client's or the request's signal aborts the call", async () => {
      const clientController = new AbortController();
      const c = client("hang", { signal: clientController.signal });
      const pending = c.request("{ hello }", undefined, { signal: new AbortController().signal });
      setTimeout(() => clientController.abort("shutdown"), 30);
      const err = await rejection(pending);
      assert.equal((err as ServiceAbortError).reason, "abort");
      assert.equal(err.cause, "shutdown");
    });

    it("the client's signal alone aborts a call that has no signal, timeout or retry of its own", async () => {
      const clientController = new AbortController();
      const pending = client("hang", { signal: clientController.signal }).request("{ hello }");
      setTimeout(() => clientController.abort("shutdown"), 30);
      const err = await rejection(pending);
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(err.reason, "abort");
      assert.equal(err.cause, "shutdown");
    });
  });

  describe("the wait between attempts", () => {
    it("20 attempts with waits between them keep at most a few abort listeners on any signal (Node warns past 10)", async () => {
      endpoint.route("503-fast", (_request, res) => {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "0" });
        res.end("{}");
      });
      const live = new Map<EventTarget, number>();
      let most = 0;
      const proto = AbortSignal.prototype as unknown as EventTarget;
      const { addEventListener: add, removeEventListener: remove } = proto;
      proto.addEventListener = function (
        this: EventTarget,
        ...args: Parameters<EventTarget["addEventListener"]>
      ) {
        if (args[0] === "abort") {
          live.set(this, (live.get(this) ?? 0) + 1), most = Math.max(most, live.get(this)!);
        }
        return add.apply(this, args);
      };
      proto.removeEventListener = function (
        this: EventTarget,
        ...args: Parameters<EventTarget["removeEventListener"]>
      ) {
        if (args[0] === "abort" && live.has(this)) live.set(this, live.get(this)! - 1);
        return remove.apply(this, args);
      };
      try {
        const client = new ServiceClient({
          url: endpoint.urlFor("503-fast"),
          auth: { type: "apiKey", apiKey: API_KEY },
          retry: { attempts: 20, baseDelayMs: 0, maxDelayMs: 0 },
          timeoutMs: 30_000,
        });
        const err = await rejection(client.request("{ hello }"));
        assert.equal(err.status, 503, String(err));
      } finally {
        proto.addEventListener = add;
        proto.removeEventListener = remove;
      }
      assert.ok(most <= 3, `at most ${most} abort listeners on one signal`);
    });

    it("a call aborted during its backoff wait ends at once, leaving no timer and no listener behind", async () => {
      endpoint.route("always-503", (_request, res) => {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "30" });
        res.end("{}");
      });
      const pending = new Set<unknown>();
      const { setTimeout: set, clearTimeout: clear } = globalThis;
      // Only the wait counts: other code in this process (fetch's own timers on Node 22, say) may set
      // timers while setTimeout is replaced, and they are not the client's.
      const WAIT = 30_000; // the server's Retry-After

      globalThis.setTimeout = ((callback: () => void, ms?: number) => {
        const timer = set(() => (pending.delete(timer), callback()), ms);
        if (ms === WAIT) pending.add(timer);
        return timer;
      }) as typeof setTimeout;
      globalThis.clearTimeout = ((timer: ReturnType<typeof setTimeout>) => {
        pending.delete(timer);
        clear(timer);
      }) as typeof clearTimeout;
      try {
        const counted = countedSignal();
        const client = new ServiceClient({
          url: endpoint.urlFor("always-503"),
          auth: { type: "apiKey", apiKey: API_KEY },
          retry: { attempts: 2, maxDelayMs: 60_000 },
        });
        const call = client.request("{ hello }", undefined, { signal: counted.signal });
        while (pending.size === 0) await new Promise((resolve) => set(resolve, 5));
        const started = performance.now();
        counted.controller.abort("stop");
        const err = await rejection(call);
        assert.ok(err instanceof ServiceAbortError, String(err));
        assert.ok(performance.now() - started < 1_000, "ended at once");
        assert.equal(pending.size, 0, "no timer after the abort");
        assert.equal(counted.listeners(), 0, "no listener after the abort");
      } finally {
        globalThis.setTimeout = set;
        globalThis.clearTimeout = clear;
      }
    });
  });
});
