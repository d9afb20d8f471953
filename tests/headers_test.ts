import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SignatureV4 } from "@smithy/signature-v4";
import { Hash } from "@smithy/hash-node";
import { ServiceClient } from "../mod.ts";
import type { ServerResponse } from "node:http";
import { type Endpoint, send, startEndpoint } from "./_server.ts";
import { API_KEY, CREDENTIALS, REGION, rejection } from "./_fixtures.ts";

let endpoint: Endpoint;

const last = () => endpoint.requests.at(-1)!;

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("headers", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("caller headers", () => {
    it("client headers, then request headers, then the auth header: request wins over client", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        headers: { "X-Trace": "client", "x-app": "demo" },
      });
      await client.request("{ hello }", undefined, { headers: new Headers({ "x-trace": "request" }) });
      const { headers } = last();
      assert.equal(headers["x-trace"], "request");
      assert.equal(headers["x-app"], "demo");
      assert.equal(headers["x-api-key"], API_KEY);
      assert.equal(headers["content-type"], "application/json; charset=UTF-8");
    });

    it("a Headers of another implementation (undici's, a polyfill's) is read as headers; a Map is refused", async () => {
      // Not a global Headers, but tagged and iterable as one: what `new (require("undici").Headers)()` is.
      class ForeignHeaders {
        get [Symbol.toStringTag]() {
          return "Headers";
        }
        *[Symbol.iterator]() {
          yield ["x-trace", "foreign"];
        }
      }
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        headers: new ForeignHeaders() as unknown as Headers,
      });
      await client.request("{ hello }");
      assert.equal(last().headers["x-trace"], "foreign");
      // whatwg-fetch's Headers (the browser polyfill, and cross-fetch's in browsers) has no tag: its names
      // and values sit in an own field, `map`, and it iterates through its prototype.
      function PolyfillHeaders(this: { map: Record<string, string> }, init: Record<string, string>) {
        this.map = {};
        for (const name in init) this.map[name.toLowerCase()] = init[name]!;
      }
      PolyfillHeaders.prototype[Symbol.iterator] = function* (this: { map: Record<string, string> }) {
        yield* Object.entries(this.map);
      };
      const polyfill = new (PolyfillHeaders as unknown as new (init: object) => Headers)({
        "X-Trace": "poly",
      });
      await client.request("{ hello }", undefined, { headers: polyfill });
      assert.equal(last().headers["x-trace"], "poly");
      assert.equal(last().headers["map"], undefined, "its own field is not a header");
      // A Map has no own enumerable keys: read as a record, its headers would vanish without a word.
      const map = new Map([["x-trace", "t-1"]]) as unknown as Record<string, string>;
      assert.throws(
        () =>
          new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY }, headers: map }),
        {
          name: "TypeError",
          message: "Invalid headers: expected an object or Headers, current value is a Map",
        },
      );
      await assert.rejects(
        client.request("{ hello }", undefined, { headers: map }),
        { message: "Invalid request headers: expected an object or Headers, current value is a Map" },
      );
    });

    it("each request sends its own headers, whatever the requests before it sent", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        headers: { "x-app": "demo" },
      });
      await client.request("{ hello }");
      assert.equal(last().headers["x-trace"], undefined);
      await client.request("{ hello }", undefined, { headers: { "x-trace": "second" } });
      assert.equal(last().headers["x-trace"], "second");
      assert.equal(last().headers["x-app"], "demo");
      await client.request("{ hello }");
      assert.equal(last().headers["x-trace"], undefined);
      assert.equal(last().headers["x-api-key"], API_KEY);
    });

    for (
      const name of [
        "content-type",
        "Authorization",
        "x-api-key",
        "host",
        "X-Amz-Date",
        "x-amz-security-token",
        // Framing: on Node each of these made every request fail with a network error, then retried.
        "Content-Length",
        "expect",
        "Keep-Alive",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
      ]
    ) {
      it(`reserved header ${name} is refused with a clear error, not silently overridden`, () => {
        assert.throws(
          () =>
            new ServiceClient({
              url: endpoint.url,
              auth: { type: "apiKey", apiKey: API_KEY },
              headers: { [name]: "x" },
            }),
          new RegExp(`\`${name.toLowerCase()}\` is set by the client`),
        );
      });
    }

    it("iam: caller headers are signed (the endpoint recomputes the signature with smithy and accepts it)", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        headers: { "x-app": "demo" },
      });
      const data = await client.request("{ whoami }", undefined, { headers: { "x-request-id": "r-42" } });
      assert.deepEqual(data, { whoami: "iam" });
      const { headers } = last();
      const signed = /SignedHeaders=([^,]+)/.exec(headers["authorization"]!)![1]!.split(";");
      assert.deepEqual(signed, [
        "content-type",
        "host",
        "x-amz-date",
        "x-amz-security-token",
        "x-app",
        "x-request-id",
      ]);
    });

    it("iam: our headers equal @smithy/signature-v4's for the same request, caller headers included", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        headers: { "x-app": "demo" },
      });
      await client.request("{ hello }", undefined, { headers: { "x-request-id": "r-43" } });
      const sent = last();
      const date = sent.headers["x-amz-date"]!;
      const signer = new SignatureV4({
        service: "appsync",
        region: REGION,
        credentials: CREDENTIALS,
        sha256: Hash.bind(null, "sha256"),
        applyChecksum: false,
      });
      const url = new URL(endpoint.url);
      const expected = await signer.sign({
        method: "POST",
        protocol: "http:",
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query: {},
        headers: {
          "content-type": "application/json; charset=UTF-8",
          host: url.host,
          "x-app": "demo",
          "x-request-id": "r-43",
        },
        body: sent.body,
      }, {
        signingDate: new Date(
          date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
        ),
      });
      assert.equal(sent.headers["authorization"], expected.headers["authorization"]);
      assert.equal(sent.headers["x-amz-security-token"], expected.headers["x-amz-security-token"]);
    });
  });

  describe("clock skew (iam)", () => {
    it("a signature rejected for time is re-signed with the server's clock and resent once, without a retry policy", async () => {
      await withSkewedEndpoint(20 * 60_000, undefined, async (client, skewed) => {
        assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
        assert.equal(skewed.requests.length, 2, "one refused, one accepted");
        // The offset is remembered: the next request is accepted at once.
        await client.request("{ whoami }");
        assert.equal(skewed.requests.length, 3);
      });
    });

    it("a clock far behind the server is corrected too (signature not yet current)", async () => {
      await withSkewedEndpoint(-20 * 60_000, undefined, async (client, skewed) => {
        assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
        assert.equal(skewed.requests.length, 2);
      });
    });

    it("a signature refused for another reason is not resent", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "iam",
          region: REGION,
          credentials: { ...CREDENTIALS, secretAccessKey: "wrong-secret" },
        },
      });
      const before = endpoint.requests.length;
      const err = await rejection(client.request("{ whoami }"));
      assert.equal(err.status, 403);
      assert.equal(err.errors[0]!.errorType, "InvalidSignatureException");
      assert.equal(endpoint.requests.length - before, 1);
    });

    it("where Date cannot be read (a browser page, under CORS), the server's time is read from AWS's message", async () => {
      await withSkewedEndpoint(-20 * 60_000, withoutDate, async (client, skewed) => {
        assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
        assert.equal(skewed.requests.length, 2, "one refused, one accepted");
      });
    });

    it("a refusal for time with neither a readable Date nor a time in its message is thrown as it is", async () => {
      endpoint.route("expired-no-time", (_request, response) => {
        response.writeHead(403, { "content-type": "application/json" });
        response.end(JSON.stringify({
          errors: [{ errorType: "InvalidSignatureException", message: "Signature expired" }],
        }));
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("expired-no-time"),
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        fetch: withoutDate,
      });
      const err = await rejection(client.request("{ whoami }"));
      assert.equal(err.status, 403);
      assert.equal(endpoint.requests.filter((r) => r.path === "/expired-no-time/graphql").length, 1);
    });

    for (
      const [year, date] of [
        ["275760", "Sat, 13 Sep 275760 00:00:00 GMT"],
        ["9999, its last second", "Fri, 31 Dec 9999 23:59:59 GMT"],
        ["1960", "Fri, 01 Jan 1960 00:00:00 GMT"],
        ["1970", "Thu, 01 Jan 1970 00:00:01 GMT"],
        ["2001, from text Date.parse reads leniently", "garbage 3"],
      ] as const
    ) {
      it(`a Date no server can have (year ${year}) is not learnt: the refusal is thrown, later requests still sign`, async () => {
        let answered = 0;
        endpoint.route(`expired-absurd-date-${year.slice(0, 4)}`, (_request, response) => {
          if (answered++ > 0) return void response.end('{"data":{"whoami":"iam"}}');
          response.writeHead(403, { "content-type": "application/json", date });
          response.end(JSON.stringify({
            errors: [{ errorType: "InvalidSignatureException", message: "Signature expired" }],
          }));
        });
        const client = new ServiceClient({
          url: endpoint.urlFor(`expired-absurd-date-${year.slice(0, 4)}`),
          auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        });
        const err = await rejection(client.request("{ whoami }"));
        assert.equal(err.status, 403);
        assert.equal(answered, 1, "not resent");
        assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
        assert.match(last().headers["x-amz-date"]!, /^\d{8}T\d{6}Z$/);
        assert.ok(Math.abs(amzDateMs(last().headers["x-amz-date"]!) - Date.now()) < 60_000);
      });
    }

    // AWS's clock is an hour ahead of ours, and its Date disagrees with the time its message names.
    const DISAGREEING: ReadonlyArray<[string, string, (named: number) => string]> = [
      ["far off (year 9998)", "9998", () => "Fri, 01 Jan 9998 00:00:00 GMT"],
      ["more than 5 minutes off", "six-minutes", (named) => new Date(named + 6 * 60_000).toUTCString()],
    ];
    for (const [what, route, date] of DISAGREEING) {
      it(`a Date ${what} from the time AWS names is not believed: the refusal is thrown`, async () => {
        let answered = 0;
        endpoint.route(`expired-disagreeing-${route}`, (_request, response) => {
          if (answered++ > 0) return void response.end('{"data":{"whoami":"iam"}}');
          const named = Date.now() + 60 * 60_000;
          const stamp = new Date(named).toISOString().replace(/[-:]|\.\d+/g, "");
          response.writeHead(403, { "content-type": "application/json", date: date(named) });
          response.end(JSON.stringify({
            errors: [{
              errorType: "InvalidSignatureException",
              message: `Signature expired: 20200101T000000Z is now earlier than ${stamp} (${stamp} - 5 min.)`,
            }],
          }));
        });
        const client = new ServiceClient({
          url: endpoint.urlFor(`expired-disagreeing-${route}`),
          auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        });
        const err = await rejection(client.request("{ whoami }"));
        assert.equal(err.status, 403);
        assert.equal(answered, 1, "not resent");
        assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
        assert.ok(
          Math.abs(amzDateMs(last().headers["x-amz-date"]!) - Date.now()) < 60_000,
          "signed at our time",
        );
      });
    }

    it("a Date no server can have gives way to the server's time in AWS's message", async () => {
      await withSkewedEndpoint(
        -20 * 60_000,
        withDate("Thu, 01 Jan 1970 00:00:01 GMT"),
        async (client, skewed) => {
          assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
          assert.equal(skewed.requests.length, 2, "one refused, one accepted");
          const resent = amzDateMs(skewed.requests[1]!.headers["x-amz-date"]!);
          assert.ok(Math.abs(resent - (Date.now() - 20 * 60_000)) < 60_000, "signed at the server's time");
        },
      );
    });

    it("a refusal for time that comes as a 400, worded in its second error, is corrected too", async () => {
      endpoint.route("expired-400", (_request, response, count, pass) => {
        if (count > 1) return pass(20 * 60_000);
        response.writeHead(400, {
          "content-type": "application/json",
          date: new Date(Date.now() + 20 * 60_000).toUTCString(),
        });
        return void response.end(JSON.stringify({
          errors: [
            { errorType: "BadRequestException", message: "Request refused" },
            {
              errorType: "InvalidSignatureException",
              message: "Signature expired: 20240506T070809Z is now earlier",
            },
          ],
        }));
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("expired-400"),
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
      assert.equal(endpoint.requests.filter((r) => r.path === "/expired-400/graphql").length, 2);
    });

    it("a client of another mode is not resent on a refusal for time, even once the iam code is loaded", async () => {
      // An iam request first, so that the iam chunk (where clock skew is handled) is loaded.
      await new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      })
        .request("{ whoami }");
      endpoint.route("expired-api-key", (_request, response) => {
        response.writeHead(403, {
          "content-type": "application/json",
          date: new Date(Date.now() + 20 * 60_000).toUTCString(),
        });
        response.end(JSON.stringify({
          errors: [{ errorType: "InvalidSignatureException", message: "Signature expired" }],
        }));
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("expired-api-key"),
        auth: { type: "apiKey", apiKey: API_KEY },
        retry: { attempts: 3, baseDelayMs: 1 },
      });
      const err = await rejection(client.request("{ hello }"));
      assert.equal(err.status, 403);
      assert.equal(endpoint.requests.filter((r) => r.path === "/expired-api-key/graphql").length, 1);
    });

    it("a refusal for time is resent once only: a server that keeps refusing gets two requests, and its 403 is thrown", async () => {
      const refuse = (response: ServerResponse) => {
        response.writeHead(403, {
          "content-type": "application/json",
          date: new Date(Date.now() + 20 * 60_000).toUTCString(),
        });
        response.end(JSON.stringify({
          errors: [{ errorType: "InvalidSignatureException", message: "Signature expired" }],
        }));
      };
      endpoint.route("expired-always", (_request, response, count) => {
        // A guard, so that a client resending without end cannot hang the suite.
        if (count > 5) return void response.end('{"data":{"whoami":"looped"}}');
        refuse(response);
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("expired-always"),
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      const err = await rejection(client.request("{ whoami }"));
      assert.equal(err.status, 403);
      assert.equal(endpoint.requests.filter((r) => r.path === "/expired-always/graphql").length, 2);
    });

    it("the resend after a refusal for time does not use up an attempt of the retry policy", async () => {
      // Refused for time, then a 503, then data: the 503 is retried although `attempts` is 2.
      endpoint.route("expired-then-503", (_request, response, count, pass) => {
        if (count === 1) {
          response.writeHead(403, {
            "content-type": "application/json",
            date: new Date(Date.now() + 20 * 60_000).toUTCString(),
          });
          return void response.end(JSON.stringify({
            errors: [{ errorType: "InvalidSignatureException", message: "Signature expired" }],
          }));
        }
        if (count === 2) return void send(response, 503, { errors: [{ message: "busy" }] });
        return pass(20 * 60_000);
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("expired-then-503"),
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
        retry: { attempts: 2, baseDelayMs: 1 },
      });
      assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
      assert.equal(endpoint.requests.filter((r) => r.path === "/expired-then-503/graphql").length, 3);
    });

    it("a 403 whose errors hold null is still a ServiceHttpError", async () => {
      endpoint.route("null-errors", (_request, response) => {
        response.writeHead(403, { "content-type": "application/json" });
        response.end('{"errors":[null]}');
      });
      const client = new ServiceClient({
        url: endpoint.urlFor("null-errors"),
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      const err = await rejection(client.request("{ whoami }"));
      assert.equal(err.code, "HTTP_ERROR");
      assert.equal(err.status, 403);
    });
  });

  it("iam: a region changed to what no header can carry is refused before sending, as at construction", async () => {
    const auth = { type: "iam" as const, region: REGION, credentials: CREDENTIALS };
    const client = new ServiceClient({ url: endpoint.url, auth });
    await client.request("{ whoami }");
    const before = endpoint.requests.length;
    for (const region of [`${REGION}\r\nx-injected: 1`, "", 42]) {
      auth.region = region as string;
      const err = await rejection(client.request("{ whoami }"));
      assert.ok(err instanceof TypeError, String(err));
      assert.equal((err as TypeError & { code?: string }).code, "INVALID_ARGUMENT");
      assert.match(err.message, /^Invalid auth\.region: /);
      assert.ok(
        !err.message.includes(CREDENTIALS.accessKeyId) && !/Signature|[0-9a-f]{64}/.test(String(err.cause)),
      );
    }
    assert.equal(endpoint.requests.length, before, "nothing was sent");
  });

  it("iam: a session token with spaces around it is signed as fetch sends it, trimmed", async () => {
    const client = new ServiceClient({
      url: endpoint.url,
      auth: {
        type: "iam",
        region: REGION,
        credentials: { ...CREDENTIALS, sessionToken: ` \t${CREDENTIALS.sessionToken} ` },
      },
    });
    assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
    assert.equal(last().headers["x-amz-security-token"], CREDENTIALS.sessionToken);
  });
});

/** Runs `check` with an iam client (of `fetch`, when given) of an endpoint whose clock is `offsetMs` off ours. */
async function withSkewedEndpoint(
  offsetMs: number,
  fetch: typeof globalThis.fetch | undefined,
  check: (client: ServiceClient, skewed: Endpoint) => Promise<void>,
): Promise<void> {
  const skewed = await startEndpoint({ clockOffsetMs: offsetMs });
  try {
    const auth = { type: "iam", region: REGION, credentials: CREDENTIALS } as const;
    await check(new ServiceClient({ url: skewed.url, auth, ...(fetch ? { fetch } : {}) }), skewed);
  } finally {
    await skewed.close();
  }
}

/** The time an `x-amz-date` (`20240102T030405Z`) stands for, in milliseconds. */
const amzDateMs = (amzDate: string) =>
  Date.parse(amzDate.replace(/(....)(..)(..)T(..)(..)/, "$1-$2-$3T$4:$5:"));

/** fetch, with the response's Date replaced by `date`, or removed. */
const withDate = (date?: string): typeof fetch => async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(response.headers);
  if (date) headers.set("date", date);
  else headers.delete("date");
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
};
/** fetch, with the response's Date removed, as a browser hides it from a cross-origin page that CORS does not let read it. */
const withoutDate = withDate();
