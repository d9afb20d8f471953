/**
 * A call under fake timers, as a test of the caller's code runs it (Vitest's `useFakeTimers`, Jest's,
 * Sinon's): the timers and `performance.now()` are replaced, and the test advances them while it lets
 * only promise jobs run. The parts a call loads on first use (the printer, the iam signer, the retry
 * waits, the introspection query) must then be there without a turn of the event loop, or the fake
 * timeout fires before they arrive. The npm build for Node and Bun loads them with the file; Deno runs
 * the source, where they load with `import()` (what a browser needs), so this file runs on Node and Bun
 * only. Each case is the first call of its kind in this file: Node runs each test file in a process of
 * its own.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "graphql";
import { ServiceClient } from "../mod.ts";
import { CREDENTIALS, REGION } from "./_fixtures.ts";

const URL = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";

/** Fake timers and clock, until `restore()`; `run()` fires every timer in time order, running promise jobs between them. */
function fakeTimers() {
  const real = { setTimeout, clearTimeout, now: Object.getOwnPropertyDescriptor(performance, "now") };
  let now = 0, id = 0;
  const timers = new Map<number, { at: number; handler: () => void }>();
  globalThis.setTimeout = ((handler: () => void, ms = 0) => {
    timers.set(++id, { at: now + ms, handler });
    return id;
  }) as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((handle: number) => timers.delete(handle)) as typeof clearTimeout;
  Object.defineProperty(performance, "now", { value: () => now, configurable: true, writable: true });
  const jobs = async () => {
    for (let n = 0; n < 1_000; n++) await Promise.resolve();
  };
  return {
    async run() {
      await jobs();
      for (let next; (next = [...timers].sort((a, b) => a[1].at - b[1].at)[0]);) {
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].handler();
        await jobs();
      }
    },
    restore() {
      globalThis.setTimeout = real.setTimeout;
      globalThis.clearTimeout = real.clearTimeout;
      if (real.now) Object.defineProperty(performance, "now", real.now);
      else delete (performance as { now?: unknown }).now;
    },
  };
}

/** A `fetch` that answers each call with the next of `statuses` (200 with `data` at the end). */
function answering(...statuses: number[]) {
  const calls: RequestInit[] = [];
  const fetch = (_url: string, init?: RequestInit) => {
    calls.push(init!);
    const status = statuses.shift() ?? 200;
    return Promise.resolve(
      status == 200 ? Response.json({ data: { hello: "world" } }) : new Response("busy", { status }),
    );
  };
  return { fetch, calls };
}

describe("under fake timers, a call's first use of a lazily loaded part", {
  skip: "Deno" in globalThis && "Deno runs the source, whose lazy parts load with import()",
}, () => {
  for (
    const [name, auth, document, retry] of [
      [
        "a document node (the printer)",
        { type: "apiKey", apiKey: "da2-example" },
        parse("query { hello }"),
        1,
      ],
      [
        "an iam client (the signer)",
        { type: "iam", region: REGION, credentials: CREDENTIALS },
        "{ hello }",
        1,
      ],
      ["a retry (its waits)", { type: "apiKey", apiKey: "da2-example" }, "{ hello }", 2],
    ] as const
  ) {
    it(`${name} resolves before the fake timeout fires`, async () => {
      const clock = fakeTimers();
      try {
        const { fetch, calls } = answering(...(retry > 1 ? [503] : []));
        const client = new ServiceClient({
          url: URL,
          auth,
          fetch,
          timeoutMs: 30_000,
          retry: { attempts: retry, baseDelayMs: 100, maxDelayMs: 100 },
        });
        const pending = client.request(document).then((data) => data, (err: Error) => err);
        await clock.run();
        assert.deepEqual(await pending, { hello: "world" });
        assert.equal(calls.length, retry);
      } finally {
        clock.restore();
      }
    });
  }

  it("introspect() (its query) resolves before the fake timeout fires", async () => {
    const clock = fakeTimers();
    try {
      const { fetch } = answering();
      const client = new ServiceClient({ url: URL, auth: { type: "apiKey", apiKey: "da2-example" }, fetch });
      const pending = client.introspect({ timeoutMs: 30_000 }).then((data) => data, (err: Error) => err);
      await clock.run();
      assert.deepEqual(await pending, { hello: "world" });
    } finally {
      clock.restore();
    }
  });
});
