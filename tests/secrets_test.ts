/**
 * Secrets and variables never leak through an error. For every kind of error the client throws —
 * construction and per-request input errors, auth getter and credentials errors, HTTP errors (401
 * and 403 with bodies), GraphQL errors, aborts, network errors, bad responses, a throwing
 * `shouldRetry` — none of `message`, `stack`, `String(err)`, `JSON.stringify(err)`,
 * `util.inspect(err, { depth: Infinity })` or, on Deno, `Deno.inspect` holds the API key, a JWT,
 * the lambda token, the secret key, the session token, a SigV4 signature that was sent, or the
 * request's variables.
 *
 * The hard cases are servers that echo: GraphQL validation errors quote variable values, AWS's
 * `InvalidSignatureException` quotes the canonical request (with `x-amz-security-token`), and a
 * misconfigured proxy may dump the request headers. That data stays readable on the error's
 * properties (`body`, `errors`, `data`) for a caller who asks, but must not be printed by logging
 * the error.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type AuthOptions,
  ServiceAbortError,
  ServiceAuthError,
  ServiceClient,
  type ServiceClientOptions,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "../mod.ts";
import { type Endpoint, send, startEndpoint } from "./_server.ts";
import {
  API_KEY,
  AUTH_MODES,
  type Caught,
  CREDENTIALS,
  LAMBDA_TOKEN,
  OIDC_JWT,
  REGION,
  rejection,
  SECRETS,
  USERPOOL_JWT,
} from "./_fixtures.ts";

/** A key the endpoint refuses: sent on the wire, so a secret all the same. */
const WRONG_KEY = "da2-wrongsentinelkey000000000";
/** A lambda token the endpoint refuses. */
const WRONG_TOKEN = "lambda-wrongsentinel-token-0000";
/** A wrong secret key: the endpoint answers 403 InvalidSignatureException. */
const WRONG_SECRET = "wrongSENTINELsecretKEY/0000000000000000000";
/** The value of the request's variable, in every request of this file. */
const VARIABLE = "variable-sentinel-7c1e9a";
const VARIABLES = { v: VARIABLE };

const NAMED_NEEDLES: ReadonlyArray<[string, string]> = [
  ["the API key", API_KEY],
  ["the user pool JWT", USERPOOL_JWT],
  ["the OIDC JWT", OIDC_JWT],
  ["the lambda token", LAMBDA_TOKEN],
  ["the secret access key", CREDENTIALS.secretAccessKey],
  ["the session token", CREDENTIALS.sessionToken],
  ["a wrong API key", WRONG_KEY],
  ["a wrong lambda token", WRONG_TOKEN],
  ["a wrong secret key", WRONG_SECRET],
  ["a variable value", VARIABLE],
];

let endpoint: Endpoint;

/** Every SigV4 signature the endpoint has received so far. */
function signaturesSent(): string[] {
  return endpoint.requests.flatMap((request) => {
    const match = /Signature=([0-9a-f]{64})/.exec(request.headers["authorization"] ?? "");
    return match ? [match[1]!] : [];
  });
}

const denoInspect = (globalThis as { Deno?: { inspect(value: unknown, options: object): string } }).Deno
  ?.inspect;

/** The ways an error reaches a log. */
function renderings(err: Caught): Record<string, string> {
  const views: Record<string, string> = {
    message: err.message,
    stack: String(err.stack),
    "String(err)": String(err),
    "JSON.stringify(err)": JSON.stringify(err),
    "util.inspect(err, { depth: Infinity })": inspect(err, { depth: Infinity }),
    "util.inspect({ err }) (nested, as loggers do)": inspect({ err }, { depth: Infinity }),
    "util.inspect(err, { showHidden: true })": inspect(err, { depth: Infinity, showHidden: true }),
    // What Node prints for an uncaught error (its crash report skips custom inspect hooks).
    "util.inspect(err, { customInspect: false })": inspect(err, { depth: Infinity, customInspect: false }),
  };
  if (denoInspect) views["Deno.inspect(err, { depth: Infinity })"] = denoInspect(err, { depth: Infinity });
  return views;
}

/** Fails naming the rendering and the kind of secret, never printing the secret itself. */
function assertNoLeak(err: Caught): void {
  const needles: Array<[string, string]> = [
    ...NAMED_NEEDLES,
    ...signaturesSent().map((signature): [string, string] => ["a SigV4 signature that was sent", signature]),
  ];
  assert.equal(NAMED_NEEDLES.length - 4, SECRETS.length, "every fixture secret is checked");
  const leaks: string[] = [];
  for (const [view, text] of Object.entries(renderings(err))) {
    for (const [name, needle] of needles) if (text.includes(needle)) leaks.push(`${view} contains ${name}`);
  }
  assert.deepEqual(leaks, [], `${err.name} (${err.code}) leaks:\n  ${leaks.join("\n  ")}`);
}

/** Runs `fn` and returns what it threw or rejected with. */
async function caught(fn: () => unknown): Promise<Caught> {
  return await rejection((async () => await fn())());
}

const URL_ = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";

const MODES = AUTH_MODES;

function client(route: string | undefined, auth: AuthOptions, extra: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({ url: route ? endpoint.urlFor(route) : endpoint.url, auth, ...extra });
}

/** Every error class (or code) a scenario produced: the last test checks that all were seen. */
const seen = new Set<string>();

/** A TypeError or RangeError with the INVALID_ARGUMENT code (asserted without narrowing `err`). */
function assertInvalidArgument(err: Caught): void {
  assert.equal(err.code, "INVALID_ARGUMENT", String(err));
  assert.ok(err.constructor === TypeError || err.constructor === RangeError, err.constructor.name);
}

/** Asserts the class and code, records them, and checks every rendering for leaks. */
function check(err: Caught, expected: new (...args: never[]) => Error, code: string): void {
  assert.ok(err instanceof expected, `expected ${expected.name}, got ${err?.name}: ${err?.message}`);
  assert.equal(err.code, code);
  seen.add(`${expected.name}/${code}`);
  assertNoLeak(err);
}

describe("no secret or variable in any error", () => {
  before(async () => {
    endpoint = await startEndpoint();
    // A proxy that echoes the request body (with the variables) in a 400.
    endpoint.route("echo-body-400", (request, res) =>
      send(res, 400, {
        errors: [{ errorType: "BadRequestException", message: `Invalid request body: ${request.body}` }],
      }));
    // AWS's InvalidSignatureException quotes the canonical request, session token included.
    endpoint.route("canonical-403", (request, res) =>
      send(res, 403, {
        errors: [{
          errorType: "InvalidSignatureException",
          message: "The request signature we calculated does not match the signature you provided. " +
            "Check your AWS Secret Access Key and signing method.\n\n" +
            "The Canonical String for this request should have been\n'POST\n/graphql\n\n" +
            `host:${request.headers["host"]}\nx-amz-date:${request.headers["x-amz-date"]}\n` +
            `x-amz-security-token:${request.headers["x-amz-security-token"] ?? ""}\n'`,
        }],
      }));
    // A misconfigured proxy's HTML error page that dumps the request headers.
    endpoint.route("dump-headers-502", (request, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(`<html><body><h1>502</h1><pre>${JSON.stringify(request.headers)}</pre></body></html>`);
    });
    // A 200 that is not a GraphQL response and quotes the query and variables.
    endpoint.route(
      "error-message-200",
      (request, res) => send(res, 200, { errorMessage: `Syntax Error: could not read ${request.body}` }),
    );
    // A 200 whose body is not JSON and quotes the request.
    endpoint.route("not-json-200", (request, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`debug: ${request.body}`);
    });
    // A server whose reason phrase and a header echo the request's headers and body (Deno's fetch
    // reads its own phrase; Node's and Bun's read the server's).
    endpoint.route("echo-reason-401", (request, res) => {
      const echoed = `${JSON.stringify(request.headers)} ${request.body}`;
      res.writeHead(401, `Refused ${echoed}`, { "content-type": "text/plain", "x-echo": echoed });
      res.end("no");
    });
    // A resolver whose error quotes the request's headers: the key, token or signature among them.
    endpoint.route("echo-headers-graphql", (request, res) =>
      send(res, 200, {
        data: null,
        errors: [{ errorType: "Unauthorized", message: `Refused ${JSON.stringify(request.headers)}` }],
      }));
    endpoint.route("hang", () => new Promise<void>(() => {}));
  });
  after(() => endpoint.close());

  describe("construction errors (TypeError/RangeError, INVALID_ARGUMENT) with secrets in the options", () => {
    const apiKey = { type: "apiKey", apiKey: API_KEY };
    const iam = { type: "iam", region: REGION, credentials: CREDENTIALS };
    const CASES: ReadonlyArray<[string, unknown]> = [
      ["auth.type unknown, key given", { url: URL_, auth: { type: "API_KEY", apiKey: API_KEY } }],
      ["auth.type missing, JWT given", { url: URL_, auth: { jwtToken: USERPOOL_JWT } }],
      ["apiKey mixed with jwtToken", { url: URL_, auth: { ...apiKey, jwtToken: USERPOOL_JWT } }],
      ["userpool mixed with apiKey", {
        url: URL_,
        auth: { type: "userpool", jwtToken: OIDC_JWT, apiKey: API_KEY },
      }],
      ["lambda mixed with jwtToken", {
        url: URL_,
        auth: { type: "lambda", authorizationToken: LAMBDA_TOKEN, jwtToken: OIDC_JWT },
      }],
      ["iam credentials with a typo", {
        url: URL_,
        auth: { ...iam, credentials: { ...CREDENTIALS, SecretAccessKey: CREDENTIALS.secretAccessKey } },
      }],
      ["iam sessionToken of the wrong type", {
        url: URL_,
        auth: { ...iam, credentials: { ...CREDENTIALS, sessionToken: [CREDENTIALS.sessionToken] } },
      }],
      ["iam accessKeyId empty, secrets given", {
        url: URL_,
        auth: { ...iam, credentials: { ...CREDENTIALS, accessKeyId: "" } },
      }],
      ["iam region missing", { url: URL_, auth: { type: "iam", credentials: CREDENTIALS } }],
      ["a header reserved for auth, holding a JWT", {
        url: URL_,
        auth: apiKey,
        headers: { Authorization: USERPOOL_JWT },
      }],
      ["a header value with CR/LF, holding a token", {
        url: URL_,
        auth: apiKey,
        headers: { "x-token": `${LAMBDA_TOKEN}\r\nx-injected: 1` },
      }],
      ["url with credentials", { url: `https://user:${API_KEY}@example.com/graphql`, auth: apiKey }],
      ["retry invalid", { url: URL_, auth: apiKey, retry: { attempts: 0 } }],
      ["fetch not a function", { url: URL_, auth: apiKey, fetch: API_KEY }],
      ["option typo", { url: URL_, auth: apiKey, apikey: API_KEY }],
    ];
    for (const [name, options] of CASES) {
      it(name, async () => {
        const err = await caught(() => new ServiceClient(options as ServiceClientOptions));
        assertInvalidArgument(err);
        seen.add("INVALID_ARGUMENT");
        assertNoLeak(err);
      });
    }
  });

  describe("per-request input errors (INVALID_ARGUMENT), nothing sent", () => {
    const cycle: Record<string, unknown> = { v: VARIABLE };
    cycle.self = cycle;
    const CASES: ReadonlyArray<[string, unknown, unknown]> = [
      ["variables with a BigInt", { v: VARIABLE, n: 1n }, undefined],
      ["variables with a cycle", cycle, undefined],
      ["variables that are a string", VARIABLE, undefined],
      ["a reserved header holding the key", VARIABLES, { headers: { "x-api-key": API_KEY } }],
      ["a header with CR/LF holding the JWT", VARIABLES, {
        headers: { "x-id": `${USERPOOL_JWT}\r\nx-injected: 1` },
      }],
      ["timeoutMs NaN", VARIABLES, { timeoutMs: NaN }],
      ["a signal that is not an AbortSignal", VARIABLES, { signal: { aborted: false } }],
      ["an unknown option holding a variable", VARIABLES, { variables: VARIABLES }],
    ];
    for (const [name, variables, options] of CASES) {
      it(name, async () => {
        const before = endpoint.requests.length;
        const err = await caught(() =>
          client(undefined, MODES[0]![1]).request(
            "query Q($v: String!) { echo(message: $v) }",
            variables as never,
            options as never,
          )
        );
        assertInvalidArgument(err);
        assert.equal(endpoint.requests.length, before, "nothing was sent");
        assertNoLeak(err);
      });
    }
  });

  describe("auth errors (ServiceAuthError): getters that fail or return a value that cannot be sent", () => {
    const GETTERS: ReadonlyArray<[string, AuthOptions]> = [
      ["apiKey getter throws", {
        type: "apiKey",
        apiKey: () => {
          throw new Error("key store offline");
        },
      }],
      ["apiKey getter returns the key with CR/LF", { type: "apiKey", apiKey: () => `${API_KEY}\r\nx-a: 1` }],
      ["userpool getter returns the JWT with a non-Latin-1 character", {
        type: "userpool",
        jwtToken: () => `${USERPOOL_JWT}✓`,
      }],
      ["oidc getter rejects", { type: "oidc", jwtToken: () => Promise.reject(new Error("refresh failed")) }],
      ["lambda getter returns the token with NUL", {
        type: "lambda",
        authorizationToken: () => `${LAMBDA_TOKEN}\0`,
      }],
      ["iam provider throws", {
        type: "iam",
        region: REGION,
        credentials: () => {
          throw new Error("STS unavailable");
        },
      }],
      ["iam provider returns an empty accessKeyId with real secrets", {
        type: "iam",
        region: REGION,
        credentials: () => ({ ...CREDENTIALS, accessKeyId: "" }),
      }],
      ["iam provider returns an access key ID with a trailing space", {
        type: "iam",
        region: REGION,
        credentials: () => ({ ...CREDENTIALS, accessKeyId: `${CREDENTIALS.accessKeyId} ` }),
      }],
      ["iam provider returns a session token with CR/LF", {
        type: "iam",
        region: REGION,
        credentials: () =>
          Promise.resolve({ ...CREDENTIALS, sessionToken: `${CREDENTIALS.sessionToken}\r\n` }),
      }],
      ["iam provider returns a session token of the wrong type", {
        type: "iam",
        region: REGION,
        credentials: () => ({ ...CREDENTIALS, sessionToken: 42 as unknown as string }),
      }],
    ];
    for (const [name, auth] of GETTERS) {
      it(name, async () => {
        const err = await caught(() => client(undefined, auth).request("{ hello }", VARIABLES));
        check(err, ServiceAuthError, "AUTH_ERROR");
      });
    }
  });

  describe("HTTP errors (ServiceHttpError) refused by the endpoint itself", () => {
    const REFUSED: ReadonlyArray<[string, AuthOptions, number]> = [
      ["401 for a wrong API key", { type: "apiKey", apiKey: WRONG_KEY }, 401],
      [
        "401 for a JWT sent with a Bearer prefix",
        { type: "userpool", jwtToken: `Bearer ${USERPOOL_JWT}` },
        401,
      ],
      ["401 for a wrong lambda token", { type: "lambda", authorizationToken: WRONG_TOKEN }, 401],
      ["403 InvalidSignatureException for a wrong secret key", {
        type: "iam",
        region: REGION,
        credentials: { ...CREDENTIALS, secretAccessKey: WRONG_SECRET },
      }, 403],
    ];
    for (const [name, auth, status] of REFUSED) {
      it(name, async () => {
        const err = await caught(() =>
          client(undefined, auth).request("query Q($v: String!) { echo(message: $v) }", VARIABLES)
        );
        check(err, ServiceHttpError, "HTTP_ERROR");
        assert.equal(err.status, status);
        assert.ok(err.errors.length > 0, "the service's errors stay readable on the error");
      });
    }
  });

  describe("servers that echo secrets or variables: the data stays on properties, out of every rendering", () => {
    for (const [mode, auth] of MODES) {
      describe(mode, () => {
        it("400 whose body quotes the request body", async () => {
          const err = await caught(() => client("echo-body-400", auth).request("{ hello }", VARIABLES));
          check(err, ServiceHttpError, "HTTP_ERROR");
          assert.ok(JSON.stringify(err.body).includes(VARIABLE), "err.body still holds what the server said");
        });

        it("403 whose body quotes the canonical request (session token included)", async () => {
          const err = await caught(() => client("canonical-403", auth).request("{ hello }", VARIABLES));
          check(err, ServiceHttpError, "HTTP_ERROR");
          assert.equal(err.errors[0]?.errorType, "InvalidSignatureException");
        });

        it("GraphQL error quoting the request's headers, key or token included (ServiceGraphQLError)", async () => {
          const err = await caught(() =>
            client("echo-headers-graphql", auth).request("{ hello }", VARIABLES)
          );
          check(err, ServiceGraphQLError, "GRAPHQL_ERROR");
          const { headers } = endpoint.requests.at(-1)!;
          const secret = headers["x-api-key"] ?? headers["authorization"]!;
          assert.ok(
            err.errors[0]!.message.includes(secret),
            "the server's message quotes it; err.errors keeps it",
          );
          assert.match(err.message, /^Unauthorized: Refused \{.*"…"/, "the message still names the error");
        });

        it("502 HTML page that dumps the request headers", async () => {
          const err = await caught(() => client("dump-headers-502", auth).request("{ hello }", VARIABLES));
          check(err, ServiceHttpError, "HTTP_ERROR");
          assert.equal(typeof err.body, "string");
        });

        it("401 whose reason phrase and headers echo the request headers and body", async () => {
          const err = await caught(() => client("echo-reason-401", auth).request("{ hello }", VARIABLES));
          check(err, ServiceHttpError, "HTTP_ERROR");
          assert.equal(err.message, "HTTP 401");
          assert.ok(
            err.headers.get("x-echo")!.includes(VARIABLE),
            "err.headers still holds what the server sent",
          );
        });

        it("200 {errorMessage} quoting the request (ServiceResponseError)", async () => {
          const err = await caught(() => client("error-message-200", auth).request("{ hello }", VARIABLES));
          check(err, ServiceResponseError, "BAD_RESPONSE");
          assert.ok(String(err.body.errorMessage).includes(VARIABLE), "err.body still holds it");
        });

        it("200 non-JSON body quoting the request (ServiceResponseError)", async () => {
          const err = await caught(() => client("not-json-200", auth).request("{ hello }", VARIABLES));
          check(err, ServiceResponseError, "BAD_RESPONSE");
        });

        it("GraphQL validation error quoting the variable value (ServiceGraphQLError)", async () => {
          const err = await caught(() =>
            client(undefined, auth).request("query Q($v: Int) { posts(limit: $v) { id } }", VARIABLES)
          );
          // The message names the server's first error, in the server's words, with every value of the
          // request's variables cut out of them: the rest of the checks hold as for every error.
          check(err, ServiceGraphQLError, "GRAPHQL_ERROR");
          assert.ok(
            err.errors[0]!.message.includes(VARIABLE),
            "the server's message quotes it; err.errors keeps it",
          );
          assert.match(err.message, /…/, "the value is cut out where the server quoted it");
        });

        it("GraphQL partial data holding the variable, with a field error (ServiceGraphQLError)", async () => {
          const err = await caught(() =>
            client(undefined, auth).request("query Q($v: String!) { echo(message: $v) secret }", VARIABLES)
          );
          check(err, ServiceGraphQLError, "GRAPHQL_ERROR");
          assert.deepEqual(err.data, { echo: VARIABLE, secret: null });
        });
      });
    }
  });

  describe("variables the caller changes once the request is sent: what was sent is cut out", () => {
    // The app keeps its object and changes it while the request is in flight: a value replaced, and a
    // back-reference that no longer serializes. The error is the service's, with the value sent cut.
    for (const [mode, auth] of MODES) {
      it(mode, async () => {
        const variables: Record<string, unknown> = { v: VARIABLE };
        const changing = client(undefined, auth, {
          fetch: (input, init) => {
            variables.v = "changed-after-sending";
            variables.self = variables;
            return fetch(input, init);
          },
        });
        const err = await caught(() =>
          changing.request("query Q($v: Int) { posts(limit: $v) { id } }", variables)
        );
        check(err, ServiceGraphQLError, "GRAPHQL_ERROR");
        assert.ok(err.errors[0]!.message.includes(VARIABLE), "the server quoted the value sent");
        assert.match(err.message, /…/, "the value sent is cut out where the server quoted it");
      });
    }
  });

  describe("a server that quotes variables in its message: each value is cut out whole", () => {
    const CASES: ReadonlyArray<[string, string, Record<string, string>, string[]]> = [
      [
        "a value JSON escapes (a quote, a backslash, a line break), as the server quotes it escaped",
        "query Q($v: Int) { posts(limit: $v) { id } }",
        { v: 'say "escaped-sentinel" back\\slash\nnext-line' },
        ["escaped-sentinel", "slash", "next-line"],
      ],
      [
        "a value of 3 characters, the shortest that is cut",
        "query Q($v: Int) { posts(limit: $v) { id } }",
        { v: "x_z" },
        ["x_z"],
      ],
      [
        "a value that begins another value: the longer one is cut first",
        "query Q($user: String!, $limit: Int) { echo(message: $user) posts(limit: $limit) { id } }",
        { user: "pre", limit: "pre-fix-sentinel" },
        ["fix-sentinel"],
      ],
    ];
    for (const [name, query, variables, pieces] of CASES) {
      it(name, async () => {
        const err = await caught(() => client(undefined, MODES[0]![1]).request(query, variables));
        assert.ok(err instanceof ServiceGraphQLError, `${err?.name}: ${err?.message}`);
        const quoted = err.errors[0]!.message;
        for (const piece of pieces) {
          assert.ok(quoted.includes(piece), `the server's own message quotes "${piece}"`);
          assert.ok(!err.message.includes(piece), `"${piece}" is cut out of: ${err.message}`);
        }
        assert.match(err.message, /^ValidationError: Variable "\$\w+" got invalid value "…"/);
      });
    }
  });

  describe("aborts, network errors and a throwing shouldRetry", () => {
    for (const [mode, auth] of MODES) {
      it(`${mode}: timeout (ServiceAbortError)`, async () => {
        const err = await caught(() =>
          client("hang", auth).request("{ hello }", VARIABLES, { timeoutMs: 50 })
        );
        check(err, ServiceAbortError, "ABORTED");
        assert.equal(err.reason, "timeout");
      });

      it(`${mode}: connection refused (ServiceNetworkError)`, async () => {
        const closed = await startEndpoint();
        await closed.close();
        const err = await caught(() =>
          new ServiceClient({ url: closed.url, auth }).request("{ hello }", VARIABLES)
        );
        check(err, ServiceNetworkError, "NETWORK_ERROR");
      });
    }

    it("a caller abort (ServiceAbortError, the caller's reason as cause)", async () => {
      const controller = new AbortController();
      const pending = client("hang", MODES[4]![1]).request("{ hello }", VARIABLES, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error("user left")), 30);
      const err = await caught(() => pending);
      check(err, ServiceAbortError, "ABORTED");
      assert.equal(err.reason, "abort");
    });

    it("an already-aborted signal (ServiceAbortError)", async () => {
      const err = await caught(() =>
        client(undefined, MODES[0]![1]).request("{ hello }", VARIABLES, { signal: AbortSignal.abort() })
      );
      check(err, ServiceAbortError, "ABORTED");
    });

    it("a shouldRetry that throws (TypeError, INVALID_ARGUMENT, its error as cause)", async () => {
      const err = await caught(() =>
        client("echo-body-400", MODES[4]![1], {
          retry: {
            attempts: 2,
            baseDelayMs: 1,
            shouldRetry: () => {
              throw new Error("policy bug");
            },
          },
        }).request("{ hello }", VARIABLES)
      );
      assertInvalidArgument(err);
      assert.equal((err.cause as Error).message, "policy bug");
      assertNoLeak(err);
    });
  });

  it("an uncaught error's crash report names it and holds none of the server's data", {
    skip: !process.execPath && "no process.execPath to start this runtime again",
  }, () => {
    // A child process of this runtime throws a ServiceGraphQLError it never catches, as a forgotten
    // `await` does; the runtime prints its own report of it to stderr.
    const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
    const module = deno ? new URL("../mod.ts", import.meta.url).href : "@seed/service-client";
    // The value is written reversed: runtimes quote the line that threw, which must not hold it.
    const reversed = JSON.stringify([...VARIABLE].reverse().join(""));
    const code = `const { ServiceGraphQLError } = await import(${JSON.stringify(module)});
      const v = [...${reversed}].reverse().join("");
      throw new ServiceGraphQLError([{ message: "Variable $v is not allowed" }], { v }, { v });`;
    const args = deno
      ? ["eval", "--no-lock", code]
      : (process.versions as { bun?: string }).bun
      ? ["-e", code]
      : ["--input-type=module", "-e", code];
    // Run where the test file is: inside the npm package, whose name then resolves to itself.
    // Without the runner's NODE_OPTIONS: Node 18's exit preload (scripts/runtimes/node18_exit.cjs)
    // ends the process at its 'exit' event, which Node emits before it prints the report.
    const child = spawnSync(process.execPath, args, {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      env: { ...process.env, NODE_OPTIONS: "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.notEqual(child.status, 0, "the uncaught error ended the process");
    assert.match(child.stderr, /ServiceGraphQLError/, "the report names the error");
    assert.match(
      child.stderr,
      /Variable \$v is not allowed/,
      "and says what went wrong, in the server's words",
    );
    assert.ok(!child.stderr.includes(VARIABLE), "the report holds none of the server's data");
  });

  it("every kind of error was checked", () => {
    assert.deepEqual([...seen].sort(), [
      "INVALID_ARGUMENT",
      "ServiceAbortError/ABORTED",
      "ServiceAuthError/AUTH_ERROR",
      "ServiceGraphQLError/GRAPHQL_ERROR",
      "ServiceHttpError/HTTP_ERROR",
      "ServiceNetworkError/NETWORK_ERROR",
      "ServiceResponseError/BAD_RESPONSE",
    ]);
    assert.ok(signaturesSent().length > 0, "iam requests were signed and their signatures checked");
  });
});
