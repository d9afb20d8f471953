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

  describe("a browser's cross-origin response: content-encoding hidden, content-length the compressed one", () => {
    /** The runtime's response as a browser's CORS filter leaves it. */
    const corsFetch: ServiceClientOptions["fetch"] = async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete("content-encoding");
      const filtered = new Response(response.body, { status: response.status, headers });
      return Object.defineProperty(filtered, "type", { value: "cors" });
    };

    it("the body is counted as it inflates: over maxResponseBytes it is refused", async () => {
      const err = await rejection(client(corsFetch, 1_000).request("{ hello }"));
      assert.ok(err instanceof ServiceResponseError, String(err));
      assert.equal(err.message, "Unexpected response (HTTP 200): the body is larger than maxResponseBytes");
    });

    it("within maxResponseBytes it resolves", async () => {
      assert.equal(BYTES, 2_421);
      const data = await client(corsFetch, BYTES).request<{ hello: string }>("{ hello }");
      assert.equal(data.hello, "✓".repeat(800));
    });
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
        return shaped as unknown as FetchResponse;
      };
    const SHAPES: ReadonlyArray<[string, Record<string, string>]> = [
      ["gzip (content-encoding shown)", { "content-type": "application/json", "content-encoding": "gzip" }],
      ["chunked (no content-length)", { "content-type": "application/json" }],
    ];

    for (const [name, headers] of SHAPES) {
      it(`${name}: read through text()`, async () => {
        const data = await client(nodeFetch(headers)).request<{ hello: string }>("{ hello }");
        assert.equal(data.hello, "✓".repeat(800));
      });

      it(`${name}: maxResponseBytes still refuses a larger text`, async () => {
        const err = await rejection(client(nodeFetch(headers), 800).request("{ hello }"));
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
