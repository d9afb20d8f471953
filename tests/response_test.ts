import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceClient, ServiceGraphQLError, ServiceHttpError, ServiceResponseError } from "../mod.ts";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY, CREDENTIALS, REGION } from "./_fixtures.ts";
import { rejection } from "./_fixtures.ts";
import { spawnSync } from "node:child_process";
import process from "node:process";

let endpoint: Endpoint;

/** A route answering `status` with a raw body. */
function raw(
  name: string,
  status: number,
  body: string,
  type = "application/json",
  headers: Record<string, string> = {},
) {
  endpoint.route(name, (_req, res) => {
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(body);
  });
  return new ServiceClient({
    url: endpoint.urlFor(name),
    auth: { type: "apiKey", apiKey: API_KEY },
    retry: { attempts: 2, baseDelayMs: 1 },
  });
}

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("responses", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("responses that are not GraphQL responses", () => {
    const BAD_2XX: ReadonlyArray<[string, string, RegExp, unknown]> = [
      ["invalid JSON", "{not json", /body is not JSON/, "{not json"],
      ["an empty body", "", /body is not JSON/, ""],
      ["JSON null", "null", /body is not a JSON object/, null],
      ["a JSON array", "[1,2]", /body is not a JSON object/, [1, 2]],
      ["a JSON string", '"ok"', /body is not a JSON object/, "ok"],
      [
        '{"errorMessage": …} (a syntax error answer)',
        '{"errorMessage":"Syntax Error: Unexpected Name"}',
        /neither data nor errors/,
        {
          errorMessage: "Syntax Error: Unexpected Name",
        },
      ],
      ["errors that is not an array", '{"errors":"bad"}', /errors is not an array/, { errors: "bad" }],
      ["no data and an empty errors array", '{"errors":[]}', /neither data nor errors/, { errors: [] }],
      ["null data and no errors", '{"data":null}', /neither data nor errors/, { data: null }],
      ["an error that is null", '{"errors":[null]}', /errors is not an array of errors/, { errors: [null] }],
      [
        "data next to an error that is a string",
        '{"data":{"hello":"world"},"errors":["boom"]}',
        /errors is not an array of errors/,
        { data: { hello: "world" }, errors: ["boom"] },
      ],
      [
        "an error without a message",
        '{"errors":[{"errorType":"X"}]}',
        /errors is not an array of errors/,
        { errors: [{ errorType: "X" }] },
      ],
      [
        "an error whose message is not a string",
        '{"errors":[{"message":5}]}',
        /errors is not an array of errors/,
        { errors: [{ message: 5 }] },
      ],
      [
        "an errorType that is not a string",
        '{"data":null,"errors":[{"message":"m","errorType":42}]}',
        /errors is not an array of errors/,
        { data: null, errors: [{ message: "m", errorType: 42 }] },
      ],
      [
        "a path that is a string",
        '{"data":null,"errors":[{"message":"m","path":"x"}]}',
        /errors is not an array of errors/,
        { data: null, errors: [{ message: "m", path: "x" }] },
      ],
      [
        "a path holding an object",
        '{"data":null,"errors":[{"message":"m","path":[{}]}]}',
        /errors is not an array of errors/,
        { data: null, errors: [{ message: "m", path: [{}] }] },
      ],
      [
        "locations whose line is a string",
        '{"data":null,"errors":[{"message":"m","locations":[{"line":"1","column":2}]}]}',
        /errors is not an array of errors/,
        { data: null, errors: [{ message: "m", locations: [{ line: "1", column: 2 }] }] },
      ],
      ["data that is a string", '{"data":"hello"}', /data or extensions is not an object/, { data: "hello" }],
      ["data that is an array", '{"data":[1]}', /data or extensions is not an object/, { data: [1] }],
      [
        "extensions that is a number",
        '{"data":{"hello":"world"},"extensions":42}',
        /data or extensions is not an object/,
        { data: { hello: "world" }, extensions: 42 },
      ],
      [
        "extensions that is an array, next to errors",
        '{"errors":[{"message":"x"}],"extensions":["x"]}',
        /data or extensions is not an object/,
        { errors: [{ message: "x" }], extensions: ["x"] },
      ],
      [
        "null data and an empty errors array",
        '{"data":null,"errors":[]}',
        /neither data nor errors/,
        { data: null, errors: [] },
      ],
    ];
    for (const [name, body, message, parsed] of BAD_2XX) {
      it(`200 with ${name} → ServiceResponseError (BAD_RESPONSE), not retried`, async () => {
        const route = `bad-${name.replace(/\W+/g, "-")}`;
        const err = await rejection(raw(route, 200, body).request("{ hello }"));
        assert.ok(err instanceof ServiceResponseError, String(err));
        assert.equal(err.code, "BAD_RESPONSE");
        assert.equal(err.status, 200);
        assert.match(err.message, message);
        assert.deepEqual(err.body, parsed);
        assert.equal(endpoint.requests.filter((r) => r.path === `/${route}/graphql`).length, 1);
      });
    }

    it("an HTML 502 from a proxy → ServiceHttpError 502 with the text body, retried", async () => {
      const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
      const err = await rejection(raw("html-502", 502, html, "text/html").request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 502);
      assert.equal(err.statusText, "Bad Gateway");
      assert.equal(err.body, html);
      assert.deepEqual(err.errors, []);
      assert.equal(err.message, "HTTP 502", "the reason phrase is the server's text: not in the message");
      assert.equal(endpoint.requests.filter((r) => r.path === "/html-502/graphql").length, 2);
    });

    it('"errors": null next to data counts as no errors, and is left out of the raw result', async () => {
      const client = raw("errors-null", 200, '{"data":{"hello":"world"},"errors":null}');
      assert.deepEqual(await client.request("{ hello }"), { hello: "world" });
      const result = await client.requestRaw("{ hello }");
      assert.deepEqual(result, { data: { hello: "world" } });
      assert.ok(!("errors" in result));
    });

    it('"extensions": null counts as none, and is left out of the raw result and the GraphQL error', async () => {
      const client = raw("extensions-null", 200, '{"data":{"hello":"world"},"extensions":null}');
      const result = await client.requestRaw("{ hello }");
      assert.deepEqual(result, { data: { hello: "world" } });
      assert.ok(!("extensions" in result));
      const failed = raw("extensions-null-errors", 200, '{"errors":[{"message":"x"}],"extensions":null}');
      const err = await rejection(failed.request("{ hello }"));
      assert.ok(err instanceof ServiceGraphQLError, String(err));
      assert.equal(err.extensions, undefined);
    });

    it("ServiceHttpError.errors keeps only the items with a message; body keeps them all", async () => {
      const body =
        '{"errors":[null,"boom",{"errorType":"X"},{"message":"Bad request","errorType":"BadRequest"}]}';
      const err = await rejection(raw("errors-mixed-400", 400, body).request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError, String(err));
      assert.deepEqual(err.errors, [{ message: "Bad request", errorType: "BadRequest" }]);
      assert.deepEqual(err.body, JSON.parse(body));
    });

    it("the unwrapped {errorType, message} 401 shape is exposed on errors too", async () => {
      const body =
        '{"errorType":"UnauthorizedException","message":"Valid authorization header not provided."}';
      const err = await rejection(raw("unwrapped-401", 401, body).request("{ hello }"));
      assert.equal(err.errors[0].errorType, "UnauthorizedException");
    });

    it("ServiceHttpError keeps statusText and a copy of the headers without set-cookie", async () => {
      const err = await rejection(
        raw("cookie-403", 403, "{}", "application/json", {
          "set-cookie": "session=abc",
          "x-amzn-requestid": "r-1",
        })
          .request("{ hello }"),
      );
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.statusText, "Forbidden");
      assert.equal(err.headers.get("x-amzn-requestid"), "r-1");
      assert.equal(err.headers.get("set-cookie"), null);
    });

    it("errorType, path and locations as the service sends them (null, or well formed) are taken as they are", async () => {
      const body =
        '{"data":null,"errors":[{"message":"m","errorType":null,"path":["a",0],"locations":[{"line":1,"column":2}]},' +
        '{"message":"n","path":null,"locations":null}]}';
      const result = await raw("well-formed-errors", 200, body).requestRaw("{ hello }");
      assert.deepEqual(result.errors, JSON.parse(body).errors);
    });

    it("a fetch option that follows a redirect: the response is refused (ServiceResponseError), not retried", async () => {
      const other = await startEndpoint();
      try {
        endpoint.route("redirect-followed", (_req, res) => {
          res.writeHead(307, { location: other.url });
          res.end();
        });
        let calls = 0;
        const client = new ServiceClient({
          url: endpoint.urlFor("redirect-followed"),
          auth: { type: "apiKey", apiKey: API_KEY },
          // Even a shouldRetry that retries everything is not asked.
          retry: { attempts: 3, baseDelayMs: 1, shouldRetry: () => true },
          fetch: (input, init) => (calls++, fetch(input, { ...init, redirect: "follow" })),
        });
        const err = await rejection(client.request("{ hello }"));
        assert.ok(err instanceof ServiceResponseError, String(err));
        assert.match(err.message, /redirect/);
        assert.equal(calls, 1, "not retried: a retry would send the credentials there again");
        // What the client cannot prevent: a fetch that follows has already sent the request there.
        assert.equal(other.requests.length, 1);
      } finally {
        await other.close();
      }
    });

    it("a fetch option that follows a redirect to another path of the same origin: refused the same way", async () => {
      endpoint.route(
        "hop",
        (_req, res) => void res.writeHead(307, { location: endpoint.urlFor("landed") }).end(),
      );
      endpoint.route("landed", (_req, _res, _count, pass) => pass());
      const client = new ServiceClient({
        url: endpoint.urlFor("hop"),
        auth: { type: "apiKey", apiKey: API_KEY },
        fetch: (input, init) => fetch(input, { ...init, redirect: "follow" }),
      });
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceResponseError, String(err));
      assert.equal(err.message, "Unexpected response (HTTP 200): it comes from a redirect");
    });

    it("iam: a followed redirect that ends on a 403 is refused the same way (no clock-skew check of it)", async () => {
      const other = await startEndpoint();
      try {
        other.route("forbidden", (_req, res) => {
          res.writeHead(403, { "content-type": "application/json", date: new Date().toUTCString() });
          res.end(
            JSON.stringify({ errors: [{ errorType: "BadRequestException", message: "Signature expired" }] }),
          );
        });
        endpoint.route("redirect-to-403", (_req, res) => {
          res.writeHead(307, { location: other.urlFor("forbidden") });
          res.end();
        });
        const client = new ServiceClient({
          url: endpoint.urlFor("redirect-to-403"),
          auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
          fetch: (input, init) => fetch(input, { ...init, redirect: "follow" }),
        });
        const err = await rejection(client.request("{ hello }"));
        assert.ok(err instanceof ServiceResponseError, String(err));
        assert.equal(err.status, 403);
        assert.equal(other.requests.length, 1, "sent once: neither re-signed nor retried");
      } finally {
        await other.close();
      }
    });

    it("a response with no redirected field whose url is on another origin (a fetch that follows and does not say) is refused", async () => {
      let body: unknown;
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        // An XMLHttpRequest polyfill's response: it followed, and has `url` but no `redirected`.
        fetch: () => {
          const response = Response.json({ data: { hello: "elsewhere" } });
          body = response.body;
          return Promise.resolve({
            ok: true,
            status: 200,
            statusText: "OK",
            url: "https://elsewhere.example/graphql",
            headers: response.headers,
            body: response.body,
            text: () => response.text(),
          } as unknown as Response);
        },
      });
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceResponseError, String(err));
      assert.equal(err.message, "Unexpected response (HTTP 200): it comes from a redirect");
      assert.equal(err.body, undefined);
      assert.equal((body as ReadableStream).locked, false, "its body is cancelled, not read");
    });

    it("a response marked redirected whose url is the endpoint's (Bun 1.0 marks every manual fetch so) is answered", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        fetch: () => {
          const response = Response.json({ data: { hello: "world" } });
          return Promise.resolve({
            ok: true,
            status: 200,
            statusText: "OK",
            url: endpoint.url,
            redirected: true,
            headers: response.headers,
            body: response.body,
            text: () => response.text(),
          } as unknown as Response);
        },
      });
      assert.deepEqual(await client.request("{ hello }"), { hello: "world" });
    });

    it("a fetch option that sends to another origin on purpose (a proxy), and says it followed no redirect, is answered", async () => {
      const proxy = await startEndpoint();
      try {
        proxy.route(
          "forwarded",
          (_req, res) =>
            void res.writeHead(200, { "content-type": "application/json" }).end(
              '{"data":{"hello":"via proxy"}}',
            ),
        );
        const client = new ServiceClient({
          url: endpoint.url,
          auth: { type: "apiKey", apiKey: API_KEY },
          fetch: (_input, init) => fetch(proxy.urlFor("forwarded"), init),
        });
        assert.deepEqual(await client.request("{ hello }"), { hello: "via proxy" });
        assert.equal(proxy.requests.length, 1);
        assert.equal(proxy.requests[0]!.headers["x-api-key"], API_KEY);
      } finally {
        await proxy.close();
      }
    });

    it("a redirect is never followed (credentials stay on the configured origin): ServiceHttpError 3xx", async () => {
      const other = await startEndpoint();
      try {
        endpoint.route("redirect", (_req, res) => {
          res.writeHead(307, { location: other.url });
          res.end();
        });
        const client = new ServiceClient({
          url: endpoint.urlFor("redirect"),
          auth: { type: "apiKey", apiKey: API_KEY },
        });
        const err = await rejection(client.request("{ hello }"));
        assert.ok(err instanceof ServiceHttpError);
        assert.equal(err.status, 307);
        assert.equal(err.headers.get("location"), other.url);
        assert.equal(other.requests.length, 0, "the other origin received nothing");
      } finally {
        await other.close();
      }
    });
  });

  describe("bodies refused unread", () => {
    /** A client whose fetch answers with what `respond` makes. */
    const answering = (respond: () => Response, maxResponseBytes?: number) =>
      new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        fetch: () => Promise.resolve(respond()),
        ...(maxResponseBytes ? { maxResponseBytes } : {}),
      });
    /** A response of `text` whose Content-Length says `length` (a stream: no runtime sets its own). */
    const declaring = (length: number, text = '{"data":{"hello":"world"}}') => () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(text));
            controller.close();
          },
        }),
        { headers: { "content-type": "application/json", "content-length": String(length) } },
      );

    it("the default maxResponseBytes is 16 MiB: a Content-Length of 16 MiB is read, one byte more is refused", async () => {
      const limit = 16 * 1_024 * 1_024;
      assert.deepEqual(await answering(declaring(limit)).request("{ hello }"), { hello: "world" });
      const err = await rejection(answering(declaring(limit + 1)).request("{ hello }"));
      assert.ok(err instanceof ServiceResponseError, String(err));
      assert.equal(err.message, "Unexpected response (HTTP 200): the body is larger than maxResponseBytes");
    });

    it("a body refused unread whose cancel() rejects leaves no unhandled rejection", async () => {
      let cancels = 0;
      const refusing = () =>
        new Response(
          new ReadableStream({
            cancel() {
              cancels++;
              throw new Error("this body cannot be cancelled");
            },
          }),
          { headers: { "content-length": "100" } },
        );
      const err = await rejection(answering(refusing, 10).request("{ hello }"));
      assert.ok(err instanceof ServiceResponseError, String(err));
      assert.match(err.message, /larger than maxResponseBytes/);
      // Long enough for a rejection nobody handles to be reported, and to fail this test.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(cancels, 1);
    });
  });

  // Jest's jsdom environment has no TextDecoder: importing the client there must not throw, and a
  // body read as text needs none. A child process of this runtime loads what Jest loads (Deno: the
  // source; Node and Bun: the CommonJS build) with TextDecoder gone.
  it("the client loads, and reads a body as text, where the runtime has no TextDecoder", {
    skip: !process.execPath && "no process.execPath to start this runtime again",
  }, () => {
    const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
    const module = deno
      ? new URL("../mod.ts", import.meta.url).href
      : new URL("../cjs/mod.cjs", import.meta.url).pathname;
    const code = `delete globalThis.TextDecoder;
      (async () => {
        const { ServiceClient } = ${deno ? "await import" : "require"}(${JSON.stringify(module)});
        const client = new ServiceClient({
          url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
          auth: { type: "apiKey", apiKey: "da2-example" },
          fetch: () => Promise.resolve({ ok: true, status: 200, headers: { get: () => null }, text: async () => '{"data":{"hello":"world"}}' }),
        });
        console.log(JSON.stringify([typeof globalThis.TextDecoder, await client.request("{ hello }")]));
      })();`;
    const child = spawnSync(
      process.execPath,
      deno ? ["eval", "--no-lock", "--no-check", code] : ["-e", code],
      {
        env: { ...process.env, NODE_OPTIONS: "" },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim().split("\n").at(-1)!), ["undefined", { hello: "world" }]);
  });
});
