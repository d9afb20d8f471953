/**
 * Responses as other fetches shape them, each built from a real response of the local endpoint: a
 * browser's cross-origin response (its `content-encoding` hidden by CORS, `type` "cors"),
 * node-fetch's (a Node stream as the body), and a `fetch` option that resolves no response at all.
 * The browser case also runs in headless Chromium against a real cross-origin endpoint
 * (scripts/runtimes/checks/checks.ts).
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import {
  type FetchResponse,
  ServiceClient,
  type ServiceClientOptions,
  ServiceResponseError,
} from "../mod.ts";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY, rejection } from "./_fixtures.ts";

let endpoint: Endpoint;

/** 800 check marks: 2,421 bytes of JSON, 821 characters of text. */
const CHECKMARKS = JSON.stringify({ data: { hello: "✓".repeat(800) } });
const BYTES = new TextEncoder().encode(CHECKMARKS).length;

function client(fetch: ServiceClientOptions["fetch"], maxResponseBytes?: number) {
  return new ServiceClient({
    url: endpoint.urlFor("gzip"),
    auth: { type: "apiKey", apiKey: API_KEY },
    retry: { attempts: 2, baseDelayMs: 1 },
    fetch,
    ...(maxResponseBytes ? { maxResponseBytes } : {}),
  });
}

describe("responses of other fetches", () => {
  before(async () => {
    endpoint = await startEndpoint();
    // gzip with the compressed length, as a CDN or the service sends a large answer.
    endpoint.route("plain", (_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": BYTES });
      response.end(CHECKMARKS);
    });
    endpoint.route("gzip", (_request, response) => {
      const body = gzipSync(CHECKMARKS);
      response.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": body.length,
      });
      response.end(body);
    });
  });
  after(() => endpoint.close());

  describe("content-encoding hidden, content-length the compressed one: the inflated bytes count", () => {
    /** The runtime's response with its `content-encoding` dropped, and the `type` given. */
    const hiding = (type: string): ServiceClientOptions["fetch"] => async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete("content-encoding");
      const filtered = new Response(response.body, { status: response.status, headers });
      return Object.defineProperty(filtered, "type", { value: type });
    };
    const SHAPES: ReadonlyArray<[string, string]> = [
      ["a browser's cross-origin response (CORS hides the header; counted as it inflates)", "cors"],
      ["Bun 1.0's response (it drops the header; read whole, then its bytes counted)", "default"],
    ];

    for (const [name, type] of SHAPES) {
      it(`${name}: over maxResponseBytes in bytes, within it in characters, it is refused`, async () => {
        const err = await rejection(client(hiding(type), 1_000).request("{ hello }"));
        assert.ok(err instanceof ServiceResponseError, String(err));
        assert.equal(err.message, "Unexpected response (HTTP 200): the body is larger than maxResponseBytes");
      });

      it(`${name}: within maxResponseBytes it resolves`, async () => {
        assert.equal(BYTES, 2_421);
        const data = await client(hiding(type), BYTES).request<{ hello: string }>("{ hello }");
        assert.equal(data.hello, "✓".repeat(800));
      });
    }
  });

  it("a browser's cross-origin body is read no further than the limit (a bomb is not inflated whole), then cancelled", async () => {
    let pulled = 0;
    let cancelled = 0;
    const chunk = new TextEncoder().encode(" ".repeat(1_024));
    // What a small gzip body inflates to, 1 MiB, behind the length of the compressed one.
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => void (++pulled > 1_024 ? controller.close() : controller.enqueue(chunk)),
      cancel: () => void cancelled++,
    });
    const bomb: ServiceClientOptions["fetch"] = () => {
      const response = new Response(body, { headers: { "content-length": "1000" } });
      return Promise.resolve(Object.defineProperty(response, "type", { value: "cors" }));
    };
    const err = await rejection(client(bomb, 4_096).request("{ hello }"));
    assert.ok(err instanceof ServiceResponseError, String(err));
    assert.match(err.message, /larger than maxResponseBytes$/);
    assert.ok(pulled < 10, `${pulled} chunks of 1 KiB were read for a limit of 4 KiB`);
    // Cancelled, so that its connection is let go rather than left holding the rest.
    assert.equal(cancelled, 1, "the body was not cancelled");
  });

  it("a body of exactly maxResponseBytes resolves, read whole (its length) or counted as it inflates", async () => {
    const plain = new ServiceClient({
      url: endpoint.urlFor("plain"),
      auth: { type: "apiKey", apiKey: API_KEY },
      maxResponseBytes: BYTES,
    });
    assert.equal((await plain.request<{ hello: string }>("{ hello }")).hello.length, 800);
    assert.equal((await client(undefined, BYTES).request<{ hello: string }>("{ hello }")).hello.length, 800);
  });

  it("a body that says it is compressed is counted as it inflates, whatever its length says", async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode(" ".repeat(1_024));
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => void (++pulled > 1_024 ? controller.close() : controller.enqueue(chunk)),
    });
    const compressed: ServiceClientOptions["fetch"] = () =>
      Promise.resolve(
        new Response(body, { headers: { "content-length": "1000", "content-encoding": "gzip" } }),
      );
    const err = await rejection(client(compressed, 4_096).request("{ hello }"));
    assert.ok(err instanceof ServiceResponseError, String(err));
    assert.ok(pulled < 10, `${pulled} chunks of 1 KiB were read for a limit of 4 KiB`);
  });

  describe("node-fetch's response: the body is a Node stream, with no reader", () => {
    /** The runtime's response in node-fetch's shape; `text()` is what node-fetch reads it with. */
    const nodeFetch =
      (headers: Record<string, string>): ServiceClientOptions["fetch"] => async (input, init) => {
        const response = await fetch(input, init);
        const text = await response.text();
        const shaped = {
          ok: response.ok,
          status: response.status,
          statusText: response.statusText,
          url: response.url,
          redirected: false,
          headers: new Headers(headers),
          body: Readable.from([text]),
          text: () => Promise.resolve(text),
        };
        return shaped satisfies FetchResponse;
      };
    const SHAPES: ReadonlyArray<[string, Record<string, string>]> = [
      ["gzip (content-encoding shown)", { "content-type": "application/json", "content-encoding": "gzip" }],
      ["chunked (no content-length)", { "content-type": "application/json" }],
      // Above the limit, the stream is left to node-fetch: it has no `cancel` to call.
      ["with its content-length", { "content-type": "application/json", "content-length": "2421" }],
    ];

    for (const [name, headers] of SHAPES) {
      it(`${name}: read through text()`, async () => {
        const data = await client(nodeFetch(headers)).request<{ hello: string }>("{ hello }");
        assert.equal(data.hello, "✓".repeat(800));
      });

      it(`${name}: maxResponseBytes still refuses a larger body`, async () => {
        // 821 characters, 2,421 bytes: the bytes count.
        const err = await rejection(client(nodeFetch(headers), 1_000).request("{ hello }"));
        assert.ok(err instanceof ServiceResponseError, String(err));
        assert.match(err.message, /larger than maxResponseBytes$/);
      });
    }
  });

  it("a fetch option that resolves no response: a TypeError naming it, INVALID_ARGUMENT, sent once", async () => {
    let calls = 0;
    // A tracing wrapper that forgot to return the response: the request went out all the same.
    const forgetful = (async (input: string, init: RequestInit) => {
      calls++;
      await fetch(input, init).then((response) => response.body?.cancel());
    }) as unknown as ServiceClientOptions["fetch"];
    const err = await rejection(client(forgetful).request("{ hello }"));
    assert.ok(err instanceof TypeError, String(err));
    assert.equal((err as TypeError & { code?: string }).code, "INVALID_ARGUMENT");
    assert.equal(err.message, "Invalid fetch result: expected a Response, current value is undefined");
    assert.equal(calls, 1, "not retried: the request was sent");
  });
});
