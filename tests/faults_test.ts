/**
 * Faults on the wire, served on purpose by a raw `node:net` server (`_faults_server.ts`): each case
 * asserts the error class and code, how many attempts were made, and that nothing is left running —
 * every connection that carried a request is closed (the client let go of its sockets, aborted ones
 * included) and every timer the client's own code started is cleared.
 *
 * Covered elsewhere, not repeated here: 500/502/503/504 then success, always 503, 429 and
 * Retry-After, connection refused and a caller abort during a backoff wait (retry_test.ts); an HTML
 * 502, 200 with invalid JSON, null, an array or `{"errorMessage"}`, a 307 redirect (response_test.ts);
 * a slow token getter (signal_test.ts); a getter that throws or returns "" (options_test.ts).
 *
 * Runtimes differ in a few places, noted where they do: Node's undici accepts a chunked body that
 * ends without its last chunk (so the client sees truncated JSON), and opens a spare idle
 * connection after an abort mid-body; Deno only advertises and decodes gzip and br.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { Socket } from "node:net";
import {
  ServiceAbortError,
  ServiceAuthError,
  ServiceClient,
  type ServiceClientOptions,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "../mod.ts";
import { answer, type Fault, type FaultServer, head, ok, reset, startFaultServer } from "./_faults_server.ts";
import { API_KEY, type Caught, settlesWithin, Unsettled } from "./_fixtures.ts";
import { trackClientTimers } from "./_timers.ts";

// The server starts in the outer describe's hooks: Node 18.17 runs top-level `before` hooks only
// after the file's describes.
let server: FaultServer;

const auth = { type: "apiKey", apiKey: API_KEY } as const;
const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };
const JSON_TYPE = { "content-type": "application/json" };

/** What one call did: its result or error, how many times fetch was called and how many resolved. */
interface Outcome {
  readonly data?: unknown;
  readonly error?: Caught;
  readonly attempts: number;
  readonly responses: number;
  readonly ms: number;
}

/**
 * Sends `{ hello }` to a route of the fault server, then waits until nothing is left running: no
 * connection that carried a request is open, and every timer started from `src/` was cleared or
 * has fired.
 */
async function call(
  route: string,
  fault: Fault,
  options: Partial<ServiceClientOptions> = {},
  timeoutMs = 5_000,
): Promise<Outcome> {
  server.on(route, fault);
  let attempts = 0;
  let responses = 0;
  const client = new ServiceClient({
    url: server.url(route),
    auth,
    fetch: (input, init) => {
      attempts++;
      return fetch(input, init).then((response) => (responses++, response));
    },
    ...options,
  });
  const timers = trackClientTimers();
  const started = Date.now();
  let outcome: Outcome;
  try {
    const data = await settlesWithin(
      client.request("{ hello }", undefined, { timeoutMs }),
      timeoutMs + 5_000,
    );
    outcome = { data, attempts, responses, ms: Date.now() - started };
  } catch (error) {
    if (error instanceof Unsettled) throw error;
    outcome = { error: error as Caught, attempts, responses, ms: Date.now() - started };
  } finally {
    timers.restore();
  }
  assert.equal(timers.pending(), 0, "every timer the client started is cleared");
  await server.settled();
  assert.equal(server.count(route), attempts, "the server received one request per attempt");
  return outcome;
}

function assertNetworkError(outcome: Outcome, attempts: number): void {
  const { error } = outcome;
  assert.ok(error instanceof ServiceNetworkError, `expected ServiceNetworkError, got ${error}`);
  assert.equal(error.code, "NETWORK_ERROR");
  assert.equal(error.message, "Network request failed");
  assert.ok(error.cause instanceof Error, "the runtime's error is the cause");
  assert.equal(outcome.attempts, attempts);
}

/** Headers announcing a JSON body of `length` bytes, then `partial` of it. */
function partialBody(socket: Socket, length: number, partial: string, status = 200): void {
  socket.write(head(status, { ...JSON_TYPE, "content-length": length }));
  socket.write(partial);
}

describe("faults on the wire", () => {
  before(async () => {
    server = await startFaultServer();
  });
  after(() => server.close());

  describe("the connection fails before a status: ServiceNetworkError, retried until attempts run out", () => {
    it("reset before the headers", async () => {
      const outcome = await call("reset-before-headers", (socket) => reset(socket), { retry });
      assertNetworkError(outcome, 3);
      assert.equal(outcome.responses, 0);
    });

    it("closed before the headers (no answer at all)", async () => {
      const outcome = await call("closed-before-headers", (socket) => socket.destroy(), { retry });
      assertNetworkError(outcome, 3);
      assert.equal(outcome.responses, 0);
    });

    it("a reply that is not HTTP", async () => {
      const outcome = await call("not-http", (socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n\r\n"), {
        retry,
      });
      assertNetworkError(outcome, 3);
      assert.equal(outcome.responses, 0);
    });

    it("without a retry policy, one attempt", async () => {
      const outcome = await call("reset-no-retry", (socket) => reset(socket));
      assertNetworkError(outcome, 1);
    });

    it("recovers: two resets, then an answer → data after 3 attempts", async () => {
      const outcome = await call("reset-reset-ok", (socket, _request, count) => {
        if (count > 2) return ok(socket);
        reset(socket);
      }, { retry });
      assert.equal(outcome.error, undefined, String(outcome.error));
      assert.deepEqual(outcome.data, { hello: "world" });
      assert.equal(outcome.attempts, 3);
    });
  });

  describe("a 2xx body that fails after the status arrived: ServiceResponseError, never retried by default (the server may have run a mutation)", () => {
    const CASES: ReadonlyArray<[string, Fault]> = [
      ["reset in the middle of the body", (socket) => {
        partialBody(socket, 1_000, '{"data":{"hel');
        server.track(socket, setTimeout(() => reset(socket), 50));
      }],
      ["body cut short: Content-Length larger than what is sent, then the connection closes", (socket) => {
        partialBody(socket, 1_000, '{"data":{"hel');
        socket.end();
      }],
      ["a gzip-encoded body that does not decode", (socket) => {
        answer(socket, 200, "this is not gzip", { "content-encoding": "gzip" });
      }],
      ["a chunked body that ends without its last chunk", (socket) => {
        socket.write(head(200, { ...JSON_TYPE, "transfer-encoding": "chunked" }));
        socket.end('5\r\n{"dat\r\n');
      }],
    ];
    for (const [index, [name, fault]] of CASES.entries()) {
      it(name, async () => {
        const outcome = await call(`after-status-${index}`, fault, { retry });
        const { error } = outcome;
        assert.ok(error instanceof ServiceResponseError, `expected ServiceResponseError, got ${error}`);
        assert.equal(error.code, "BAD_RESPONSE");
        assert.equal(error.status, 200);
        assert.equal(outcome.attempts, 1, "one attempt: the mutation is never run twice");
        assert.equal(outcome.responses, 1);
      });
    }

    it("a shouldRetry that chooses to retry it is followed", async () => {
      const outcome = await call("after-status-retried", (socket, _request, count) => {
        if (count > 1) return ok(socket);
        partialBody(socket, 1_000, '{"data":{"hel');
        socket.end();
      }, { retry: { ...retry, shouldRetry: (err) => err instanceof ServiceResponseError } });
      assert.deepEqual(outcome.data, { hello: "world" });
      assert.equal(outcome.attempts, 2);
    });
  });

  describe("a non-2xx status whose body is cut short: the status stands", () => {
    const CASES: ReadonlyArray<[number, string, string, number]> = [
      [401, '{"errors":[{"mess', "not retried", 1],
      [503, "<html>", "retried as any 503", 3],
    ];
    for (const [status, partial, retried, attempts] of CASES) {
      it(`a ${status} whose body is cut short: ServiceHttpError ${status} without a body, ${retried}`, async () => {
        const outcome = await call(`cut-short-${status}`, (socket) => {
          partialBody(socket, 1_000, partial, status);
          socket.end();
        }, { retry });
        const { error } = outcome;
        assert.ok(error instanceof ServiceHttpError, `expected ServiceHttpError, got ${error}`);
        assert.equal(error.status, status);
        assert.equal(error.body, undefined);
        assert.deepEqual(error.errors, []);
        assert.equal(outcome.attempts, attempts);
      });
    }
  });

  describe("the server stalls: the timeout ends the call, which is not retried, and the client closes the socket", () => {
    it("never answers", async () => {
      const outcome = await call("never-answers", () => {}, { retry }, 200);
      const { error } = outcome;
      assert.ok(error instanceof ServiceAbortError, String(error));
      assert.equal(error.code, "ABORTED");
      assert.equal(error.reason, "timeout");
      assert.equal(outcome.attempts, 1);
      assert.equal(outcome.responses, 0);
      assert.ok(outcome.ms >= 150 && outcome.ms < 2_000, `ended after ${outcome.ms} ms`);
    });

    it("headers, then a body that trickles forever: the timeout bounds the body read", async () => {
      const outcome = await call(
        "trickle",
        (socket) => {
          socket.write(head(200, { ...JSON_TYPE, "transfer-encoding": "chunked" }));
          socket.write('12\r\n{"data":{"hello":"\r\n');
          server.track(socket, setInterval(() => socket.write("1\r\nx\r\n"), 20));
        },
        { retry },
        200,
      );
      const { error } = outcome;
      assert.ok(error instanceof ServiceAbortError, String(error));
      assert.equal(error.code, "ABORTED");
      assert.equal(error.reason, "timeout");
      assert.equal(outcome.attempts, 1);
      assert.equal(outcome.responses, 1, "the headers arrived: the timeout fired during the body read");
      assert.ok(outcome.ms < 2_000, `ended after ${outcome.ms} ms`);
    });
  });

  describe("large and encoded responses", () => {
    it("a 50 MB response parses and resolves", async () => {
      const title = "x".repeat(1_000);
      const count = 50 * 1_024;
      const body = new TextEncoder().encode(
        `{"data":{"posts":[${Array.from({ length: count }, (_, i) => `{"id":"${i}","title":"${title}"}`)}]}}`,
      );
      assert.ok(body.length > 50 * 1_024 * 1_024, `the body is ${body.length} bytes`);
      const outcome = await call("fifty-mb", (socket) => answer(socket, 200, body), {
        maxResponseBytes: 64 * 1_024 * 1_024,
      }, 20_000);
      assert.equal(outcome.error, undefined, String(outcome.error));
      const { posts } = outcome.data as { posts: Array<{ id: string; title: string }> };
      assert.equal(posts.length, count);
      assert.deepEqual(posts.at(-1), { id: String(count - 1), title });
      assert.equal(outcome.attempts, 1);
    });

    it("past maxResponseBytes (16 MiB by default), the read ends: ServiceResponseError, not retried", async () => {
      const body = new Uint8Array(17 * 1_024 * 1_024).fill(0x20);
      // Not even a shouldRetry that retries everything is asked: the body would be as large again.
      const outcome = await call("seventeen-mb", (socket) => answer(socket, 200, body), {
        retry: { ...retry, shouldRetry: () => true },
      }, 20_000);
      const { error } = outcome;
      assert.ok(error instanceof ServiceResponseError, String(error));
      assert.equal(error.message, "Unexpected response (HTTP 200): the body is larger than maxResponseBytes");
      assert.equal(outcome.attempts, 1);
    });

    it("a character split across two chunks of the body is decoded whole", async () => {
      const bytes = new TextEncoder().encode('{"data":{"hello":"café ✓"}}');
      const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of "é"
      const outcome = await call("split-character", (socket) => {
        socket.write(head(200, { ...JSON_TYPE, "content-length": bytes.length }));
        socket.write(bytes.subarray(0, cut));
        server.track(socket, setTimeout(() => socket.end(bytes.subarray(cut)), 30));
      });
      assert.deepEqual(outcome.data, { hello: "café ✓" });
    });

    it("a Content-Length above maxResponseBytes fails before the body is read", async () => {
      const outcome = await call("declared-too-large", (socket) => {
        socket.write(head(200, { ...JSON_TYPE, "content-length": "100000000" }));
        socket.write("{");
      }, { retry, maxResponseBytes: 1_000 });
      assert.ok(outcome.error instanceof ServiceResponseError, String(outcome.error));
      assert.equal(outcome.attempts, 1);
      assert.ok(outcome.ms < 2_000, `ended after ${outcome.ms} ms`);
    });

    it("a small gzip body that inflates past maxResponseBytes is counted as it inflates, and refused", async () => {
      const inflated = new Uint8Array(64 * 1_024 * 1_024).fill(0x20);
      const small = gzipSync(inflated);
      assert.ok(small.length < 1_024 * 1_024, `${small.length} bytes on the wire`);
      const outcome = await call(
        "gzip-bomb",
        (socket) => answer(socket, 200, small, { "content-encoding": "gzip" }),
        { retry, maxResponseBytes: 1_024 * 1_024 },
        20_000,
      );
      assert.ok(outcome.error instanceof ServiceResponseError, String(outcome.error));
      assert.match(outcome.error.message, /larger than maxResponseBytes/);
      assert.equal(outcome.attempts, 1);
    });

    it("a 503 past maxResponseBytes stays a ServiceHttpError, without its body, retried as any 503", async () => {
      const body = new Uint8Array(4_096).fill(0x20);
      const outcome = await call("large-503", (socket) => answer(socket, 503, body), {
        retry,
        maxResponseBytes: 1_000,
      });
      assert.ok(outcome.error instanceof ServiceHttpError, String(outcome.error));
      assert.equal(outcome.error.body, undefined);
      assert.equal(outcome.attempts, 3);
    });

    const CODINGS: ReadonlyArray<[string, (data: Uint8Array) => Uint8Array]> = [
      ["gzip", gzipSync],
      ["br", brotliCompressSync],
      ["deflate", deflateSync],
    ];
    for (const [coding, encode] of CODINGS) {
      it(`a ${coding}-encoded response (sent when the runtime advertises ${coding}) decodes`, async () => {
        const json = new TextEncoder().encode(JSON.stringify({ data: { hello: "world" } }));
        let advertised = false;
        const outcome = await call(`encoded-${coding}`, (socket, request) => {
          const accepted = (request.headers["accept-encoding"] ?? "").split(",").map((c) => c.trim());
          advertised = accepted.includes(coding);
          answer(
            socket,
            200,
            advertised ? encode(json) : json,
            advertised ? { "content-encoding": coding } : {},
          );
        });
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.deepEqual(outcome.data, { hello: "world" });
        assert.equal(outcome.attempts, 1);
        if (coding === "gzip") assert.ok(advertised, "every runtime's fetch asks for gzip");
      });
    }
  });

  describe("a redirect to another origin is never followed: credentials never reach it", () => {
    // Policy: fetch runs with `redirect: "manual"`, so a 3xx is a ServiceHttpError carrying the status
    // and `location` (a browser hides it behind an opaque response: status 0). 307 is in response_test.
    for (const status of [301, 302, 303, 308]) {
      it(`HTTP ${status} → ServiceHttpError ${status}, not retried, the other origin gets no connection`, async () => {
        const other = await startFaultServer();
        try {
          const location = `${other.origin}/graphql`;
          const outcome = await call(
            `redirect-${status}`,
            (socket) => answer(socket, status, "", { location }),
            { retry },
          );
          const { error } = outcome;
          assert.ok(error instanceof ServiceHttpError, String(error));
          assert.equal(error.code, "HTTP_ERROR");
          assert.equal(error.status, status);
          assert.equal(error.headers.get("location"), location);
          assert.equal(outcome.attempts, 1);
          assert.equal(other.accepted, 0, "the other origin received no connection");
        } finally {
          await other.close();
        }
      });
    }
  });

  describe("a token getter returning a value no header can carry: rejected before sending, not retried", () => {
    // CR, LF and NUL are in options_test.ts. Other control characters passed the client's check:
    // Deno and Node then failed inside fetch (a network error, retried, the getter called again);
    // Bun sent them on the wire.
    const VALUES: ReadonlyArray<[string, string]> = [
      ["SOH (0x01)", "\x01"],
      ["DEL (0x7f)", "\x7f"],
      ["ESC (an ANSI colour)", "\x1b[31m"],
    ];
    for (const [name, suffix] of VALUES) {
      it(`a token with ${name}: ServiceAuthError, the getter called once, nothing sent`, async () => {
        let gets = 0;
        const outcome = await call(`control-${suffix.charCodeAt(0)}`, ok, {
          retry,
          auth: { type: "apiKey", apiKey: () => (gets++, `${API_KEY}${suffix}`) },
        });
        const { error } = outcome;
        assert.ok(error instanceof ServiceAuthError, `expected ServiceAuthError, got ${error}`);
        assert.equal(error.code, "AUTH_ERROR");
        assert.match(error.message, /a character it cannot hold/);
        assert.ok(!error.message.includes(API_KEY));
        assert.equal(gets, 1);
        assert.equal(outcome.attempts, 0);
      });
    }
  });

  describe("one caller signal shared by many calls in flight", () => {
    it("50 calls in flight keep at most 10 abort listeners on it (Node warns past 10)", async () => {
      const held: Socket[] = [];
      let arrived!: () => void;
      const allArrived = new Promise<void>((resolve) => (arrived = resolve));
      server.on("held", (socket) => {
        held.push(socket);
        if (held.length === 50) arrived();
      });
      const controller = new AbortController();
      const { signal } = controller;
      let listeners = 0;
      let most = 0;
      const add = signal.addEventListener.bind(signal);
      const remove = signal.removeEventListener.bind(signal);
      const live = new Set<unknown>();
      signal.addEventListener =
        ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
          if (type === "abort" && !live.has(listener)) live.add(listener), most = Math.max(most, ++listeners);
          add(type, listener, options);
        }) as typeof signal.addEventListener;
      signal.removeEventListener = ((type: string, listener: EventListener) => {
        if (type === "abort" && live.delete(listener)) listeners--;
        remove(type, listener);
      }) as typeof signal.removeEventListener;
      const warnings: string[] = [];
      const onWarning = (warning: Error) => void warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        const client = new ServiceClient({ url: server.url("held"), auth });
        const calls = Array.from(
          { length: 50 },
          () => client.request("{ hello }", undefined, { signal, timeoutMs: 5_000 }),
        );
        await allArrived;
        for (const socket of held) ok(socket);
        const results = await Promise.all(calls);
        assert.equal(results.length, 50);
        assert.ok(most <= 10, `at most 10 listeners at once on the shared signal, saw ${most}`);
        assert.equal(listeners, 0, "none left once the calls settled");
        await new Promise((resolve) => setTimeout(resolve, 0));
        assert.deepEqual(warnings.filter((name) => name === "MaxListenersExceededWarning"), []);
        await server.settled();
      } finally {
        process.off("warning", onWarning);
      }
    });
  });
});
