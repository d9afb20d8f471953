import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAuthError, ServiceClient } from "../mod.ts";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY, CREDENTIALS, SECRETS } from "./_fixtures.ts";
import { rejection } from "./_fixtures.ts";
import { expectOptions } from "../src/validate.ts";

const URL_ = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";
const apiKey = { type: "apiKey", apiKey: API_KEY };
const iam = { type: "iam", region: "us-east-1", credentials: CREDENTIALS };

type Case = [string, unknown, ErrorConstructor | RangeErrorConstructor, RegExp];

/** [case, options, error class, message pattern] — every construction mistake a JavaScript caller can make. */
const CONSTRUCTION: ReadonlyArray<Case> = [
  [
    "options missing",
    undefined,
    TypeError,
    /Invalid options: expected an object, current value is undefined/,
  ],
  ["options null", null, TypeError, /current value is null/],
  ["url missing", { auth: apiKey }, TypeError, /Invalid url: .*current value is undefined/],
  [
    "url relative",
    { url: "/graphql", auth: apiKey },
    TypeError,
    /Invalid url: expected an absolute http\(s\) URL without credentials, current value is a string$/,
  ],
  [
    "url garbage",
    { url: "not a url", auth: apiKey },
    TypeError,
    /URL without credentials, current value is a string$/,
  ],
  ["url empty", { url: "", auth: apiKey }, TypeError, /current value is an empty string$/],
  [
    "url a number: described, never quoted",
    { url: 42, auth: apiKey },
    TypeError,
    /Invalid url: .*current value is a number$/,
  ],
  [
    "url ftp:",
    { url: "ftp://example.com/graphql", auth: apiKey },
    TypeError,
    /absolute http\(s\) URL without credentials, current value is a string$/,
  ],
  [
    "url with credentials",
    { url: "https://u:p@example.com/graphql", auth: apiKey },
    TypeError,
    /^Invalid url: expected an absolute http\(s\) URL without credentials, current value is a string$/,
  ],
  [
    "url with a user name only",
    { url: "https://u@example.com/graphql", auth: apiKey },
    TypeError,
    /^Invalid url: expected an absolute http\(s\) URL without credentials, current value is a string$/,
  ],
  [
    "url with a password only",
    { url: "https://:p@example.com/graphql", auth: apiKey },
    TypeError,
    /^Invalid url: expected an absolute http\(s\) URL without credentials, current value is a string$/,
  ],
  [
    "url an object that only prints as a URL",
    { url: { toString: () => "https://example.com/graphql" }, auth: apiKey },
    TypeError,
    /Invalid url: expected an absolute http\(s\) URL without credentials, current value is an object$/,
  ],
  // A URL is never quoted: it may hold a password or a key (a password with `?` or `#` once slipped
  // through a redaction), and a URL option set by mistake to a key would be quoted whole.
  ...[
    "wss://admin:hunter2@example.com/graphql?key=da2-in-the-query#frag",
    "https://proxyuser:hunter2?x@api.example.com/graphql",
    "https://proxyuser:hunter2#x@api.example.com/graphql",
    "admin:hunter2@api.example.com/graphql",
    "http:\\\\admin:hunter2@example.com:99999/graphql",
    "ftp://admin:pa/ss@example.com/graphql",
    "da2-hunter2hunter2hunter2",
    "hunter2".repeat(40),
  ].map((url): Case => [
    `url never quoted: ${url.slice(0, 50)}`,
    { url, auth: apiKey },
    TypeError,
    /^Invalid url: expected an absolute http\(s\) URL without credentials, current value is (a string|an object)$/,
  ]),
  ["auth missing", { url: URL_ }, TypeError, /Invalid auth: expected an object, current value is undefined/],
  [
    "auth a string",
    { url: URL_, auth: "apiKey" },
    TypeError,
    /Invalid auth: expected an object, current value is a string/,
  ],
  ["auth an array", { url: URL_, auth: [] }, TypeError, /current value is an array/],
  [
    "auth.type unknown",
    { url: URL_, auth: { type: "API_KEY", apiKey: "k" } },
    TypeError,
    /Invalid auth.type: .*"API_KEY"/,
  ],
  ["auth.type missing", { url: URL_, auth: { apiKey: "k" } }, TypeError, /Invalid auth.type: .*undefined/],
  [
    "auth.type cognito (1.x name)",
    { url: URL_, auth: { type: "cognito", jwtToken: "t" } },
    TypeError,
    /"cognito"/,
  ],
  ["apiKey missing", { url: URL_, auth: { type: "apiKey" } }, TypeError, /Invalid auth.apiKey: .*undefined/],
  [
    "apiKey empty",
    { url: URL_, auth: { type: "apiKey", apiKey: "" } },
    TypeError,
    /auth.apiKey: .*an empty string/,
  ],
  [
    "apiKey a number",
    { url: URL_, auth: { type: "apiKey", apiKey: 123 } },
    TypeError,
    /auth.apiKey: .*current value is a number$/, // a key is described by its type only, even a number
  ],
  [
    "apiKey with jwtToken",
    { url: URL_, auth: { type: "apiKey", apiKey: "k", jwtToken: "t" } },
    TypeError,
    /Unknown option `jwtToken`/,
  ],
  ["userpool jwtToken missing", { url: URL_, auth: { type: "userpool" } }, TypeError, /auth.jwtToken/],
  [
    "userpool jwtToken empty",
    { url: URL_, auth: { type: "userpool", jwtToken: "" } },
    TypeError,
    /auth.jwtToken/,
  ],
  [
    "userpool jwtToken an object",
    { url: URL_, auth: { type: "userpool", jwtToken: {} } },
    TypeError,
    /auth.jwtToken: .*an object/,
  ],
  [
    "userpool with apiKey",
    { url: URL_, auth: { type: "userpool", jwtToken: "t", apiKey: "k" } },
    TypeError,
    /Unknown option `apiKey` in auth/,
  ],
  ["oidc jwtToken missing", { url: URL_, auth: { type: "oidc" } }, TypeError, /auth.jwtToken/],
  [
    "oidc with authorizationToken",
    { url: URL_, auth: { type: "oidc", jwtToken: "t", authorizationToken: "x" } },
    TypeError,
    /Unknown option `authorizationToken`/,
  ],
  ["lambda token missing", { url: URL_, auth: { type: "lambda" } }, TypeError, /auth.authorizationToken/],
  [
    "lambda token a boolean",
    { url: URL_, auth: { type: "lambda", authorizationToken: true } },
    TypeError,
    /current value is a boolean$/,
  ],
  [
    "lambda with jwtToken",
    { url: URL_, auth: { type: "lambda", authorizationToken: "x", jwtToken: "t" } },
    TypeError,
    /Unknown option `jwtToken`/,
  ],
  [
    "iam region missing",
    { url: URL_, auth: { type: "iam", credentials: CREDENTIALS } },
    TypeError,
    /auth.region/,
  ],
  [
    "iam region empty",
    { url: URL_, auth: { ...iam, region: "" } },
    TypeError,
    /auth.region: .*an empty string/,
  ],
  [
    "iam credentials missing",
    { url: URL_, auth: { type: "iam", region: "us-east-1" } },
    TypeError,
    /auth.credentials/,
  ],
  [
    "iam accessKeyId empty",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, accessKeyId: "" } } },
    TypeError,
    /auth.credentials.accessKeyId: expected a non-empty string/,
  ],
  [
    "iam secretAccessKey missing",
    { url: URL_, auth: { ...iam, credentials: { accessKeyId: "AKID" } } },
    TypeError,
    /auth.credentials.secretAccessKey: expected a non-empty string, current value is undefined/,
  ],
  [
    "iam region with a line break (it goes into the Authorization header)",
    { url: URL_, auth: { ...iam, region: "us-east-1\nx" } },
    TypeError,
    /Invalid auth.region: expected a region such as us-east-1, current value is a string with a character it cannot hold$/,
  ],
  [
    "iam region with a trailing space (from an environment variable): it goes into the credential scope",
    { url: URL_, auth: { ...iam, region: "us-east-1 " } },
    TypeError,
    /Invalid auth.region: expected a region such as us-east-1, current value is a string with a character it cannot hold$/,
  ],
  [
    "iam region with a slash (it would add a part to the credential scope)",
    { url: URL_, auth: { ...iam, region: "us/east-1" } },
    TypeError,
    /Invalid auth.region: expected a region such as us-east-1/,
  ],
  [
    "iam secretAccessKey a number: described by its type",
    { url: URL_, auth: { ...iam, credentials: { accessKeyId: "AKID", secretAccessKey: 12345678 } } },
    TypeError,
    /auth.credentials.secretAccessKey: expected a non-empty string, current value is a number$/,
  ],
  [
    "iam sessionToken a number: described by its type, never quoted",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, sessionToken: 123456789 } } },
    TypeError,
    /auth.credentials.sessionToken: expected a non-empty string, current value is a number$/,
  ],
  [
    "iam credentials typo",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, SecretAccessKey: "x" } } },
    TypeError,
    /Unknown option `SecretAccessKey`.*did you mean `secretAccessKey`/,
  ],
  ["iam with apiKey", { url: URL_, auth: { ...iam, apiKey: "k" } }, TypeError, /Unknown option `apiKey`/],
  [
    "apiKey with region (a field of iam)",
    { url: URL_, auth: { type: "apiKey", apiKey: "k", region: "us-east-1" } },
    TypeError,
    /Unknown option `region` in auth/,
  ],
  [
    "auth.type an Object.prototype key",
    { url: URL_, auth: { type: "toString", apiKey: "k" } },
    TypeError,
    /Invalid auth.type: expected one of apiKey, userpool, oidc, lambda, iam, current value is "toString"$/,
  ],
  [
    "auth.type a long string: described, not quoted",
    { url: URL_, auth: { type: "x".repeat(100), apiKey: "k" } },
    TypeError,
    /^Invalid auth.type: expected one of apiKey, userpool, oidc, lambda, iam, current value is a string$/,
  ],
  [
    "auth.type holding a key (two settings swapped): never quoted",
    { url: URL_, auth: { type: API_KEY, apiKey: "apiKey" } },
    TypeError,
    /^Invalid auth.type: expected one of apiKey, userpool, oidc, lambda, iam, current value is a string$/,
  ],
  [
    "auth.type a word as long as a token (a key put in the wrong field): described, never quoted",
    { url: URL_, auth: { type: "tok_live_4f9a8b7c6d5e4f3a2b1c", apiKey: "k" } },
    TypeError,
    /^Invalid auth.type: expected one of apiKey, userpool, oidc, lambda, iam, current value is a string$/,
  ],
  [
    "auth.type a long name of an older client: quoted, with its new name",
    { url: URL_, auth: { type: "AMAZON_COGNITO_USER_POOLS", jwtToken: "t" } },
    TypeError,
    /current value is "AMAZON_COGNITO_USER_POOLS"; write `type: "userpool"`/,
  ],
  [
    "auth.type of an older client: the new name, and where to read about it",
    { url: URL_, auth: { type: "API_KEY", apiKey: "k" } },
    TypeError,
    /^Invalid auth.type: .*current value is "API_KEY"; write `type: "apiKey"` \(renamed: see docs\/migration.md\)$/,
  ],
  [
    "0.x options (`mode`, `apiUrl` in auth): the new shape",
    { url: URL_, auth: { mode: "API_KEY_MODE", apiUrl: URL_, apiKey: "k" } },
    TypeError,
    /^Invalid auth.type: .*current value is undefined; write `type: "apiKey"` \(renamed: see docs\/migration.md\)/,
  ],
  [
    "0.x options as they were (`apiUrl` in auth, no url): the migration hint first",
    { auth: { mode: "API_KEY_MODE", apiUrl: URL_, apiKey: "k" } },
    TypeError,
    /^Invalid auth.type: .*current value is undefined; write `type: "apiKey"` \(renamed: see docs\/migration.md\)$/,
  ],
  [
    "0.x `apiUrl` among the client's options: its new name",
    { apiUrl: URL_, url: URL_, auth: apiKey },
    TypeError,
    /^Unknown option `apiUrl` in options: did you mean `url` beside `auth`\? \(renamed: see docs\/migration.md\)$/,
  ],
  [
    "0.x `apiUrl` left in auth once its type is fixed: where the new name goes, not `auth.url`",
    { url: URL_, auth: { type: "apiKey", apiUrl: URL_, apiKey: "k" } },
    TypeError,
    /^Unknown option `apiUrl` in auth: did you mean `url` beside `auth`\? \(renamed: see docs\/migration.md\)$/,
  ],
  [
    "0.x `mode` among the client's options: the new name inside auth, not a `type` beside it",
    { url: URL_, auth: apiKey, mode: "API_KEY_MODE" },
    TypeError,
    /^Unknown option `mode` in options: did you mean `auth.type`\? \(renamed: see docs\/migration.md\)$/,
  ],
  [
    "an unknown key with no close match: the known keys listed",
    { url: URL_, auth: apiKey, endpoint: URL_ },
    TypeError,
    /^Unknown option `endpoint` in options: expected one of auth, url, fetch, signal, timeoutMs, maxResponseBytes, headers, retry$/,
  ],
  [
    "a blank API key is an empty one",
    { url: URL_, auth: { type: "apiKey", apiKey: " \t " } },
    TypeError,
    /^Invalid auth.apiKey: expected a non-empty string or a function, current value is an empty string$/,
  ],
  [
    "a blank session token is an empty one, and so is a blank secret",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, secretAccessKey: "   " } } },
    TypeError,
    /auth.credentials.secretAccessKey: expected a non-empty string, current value is an empty string$/,
  ],
  [
    "connection: upgrade (fails every request on Node)",
    { url: URL_, auth: apiKey, headers: { connection: "upgrade" } },
    TypeError,
    /^Invalid headers: `connection` is set by the client or by fetch$/,
  ],
  [
    "maxResponseBytes 0",
    { url: URL_, auth: apiKey, maxResponseBytes: 0 },
    RangeError,
    /^Invalid maxResponseBytes: expected an integer from 1 to 2147483647, current value is 0$/,
  ],
  [
    "iam accessKeyId with a line break (it goes into the Authorization header)",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, accessKeyId: "AKID\r\nx-injected: 1" } } },
    TypeError,
    /^Invalid auth.credentials.accessKeyId: expected a non-empty string, current value is a string with a character it cannot hold$/,
  ],
  [
    "iam accessKeyId with a trailing space (it would break the Authorization header's Credential)",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, accessKeyId: "AKID " } } },
    TypeError,
    /^Invalid auth.credentials.accessKeyId: expected a non-empty string, current value is a string with a character it cannot hold$/,
  ],
  [
    "iam sessionToken with a line break",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, sessionToken: "token\nx" } } },
    TypeError,
    /^Invalid auth.credentials.sessionToken: expected a non-empty string, current value is a string with a character it cannot hold$/,
  ],
  [
    "an API key with a trailing line break (a key read from a file): refused here, not at each request",
    { url: URL_, auth: { type: "apiKey", apiKey: `${API_KEY}\n` } },
    TypeError,
    /^Invalid auth.apiKey: expected a non-empty string or a function, current value is a string with a character it cannot hold$/,
  ],
  [
    "a JWT with a non-Latin-1 character",
    { url: URL_, auth: { type: "userpool", jwtToken: "eyJ.✓" } },
    TypeError,
    /^Invalid auth.jwtToken: expected a non-empty string or a function, current value is a string with a character/,
  ],
  [
    "a lambda token with NUL",
    { url: URL_, auth: { type: "lambda", authorizationToken: "token\0" } },
    TypeError,
    /^Invalid auth.authorizationToken: expected a non-empty string or a function, current value is a string with a character/,
  ],
  [
    "retry not an object",
    { url: URL_, auth: apiKey, retry: 3 },
    TypeError,
    /Invalid retry: expected an object, current value is 3/,
  ],
  [
    "retry.attempts 0",
    { url: URL_, auth: apiKey, retry: { attempts: 0 } },
    RangeError,
    /retry.attempts: expected an integer from 1 to 100, current value is 0/,
  ],
  [
    "retry.attempts negative",
    { url: URL_, auth: apiKey, retry: { attempts: -1 } },
    RangeError,
    /current value is -1/,
  ],
  [
    "retry.attempts fractional",
    { url: URL_, auth: apiKey, retry: { attempts: 1.5 } },
    RangeError,
    /current value is 1.5/,
  ],
  [
    "retry.attempts NaN",
    { url: URL_, auth: apiKey, retry: { attempts: NaN } },
    RangeError,
    /retry.attempts: expected an integer from 1 to 100, current value is NaN/,
  ],
  [
    "retry.attempts Infinity",
    { url: URL_, auth: apiKey, retry: { attempts: Infinity } },
    RangeError,
    /current value is Infinity/,
  ],
  [
    "retry.attempts null (as a JSON config holds it): not read as the default",
    { url: URL_, auth: apiKey, retry: { attempts: null } },
    TypeError,
    /retry.attempts: expected an integer from 1 to 100, current value is null/,
  ],
  [
    "retry.attempts a string",
    { url: URL_, auth: apiKey, retry: { attempts: "3" } },
    TypeError,
    /current value is a string/,
  ],
  [
    "retry.baseDelayMs negative",
    { url: URL_, auth: apiKey, retry: { baseDelayMs: -5 } },
    RangeError,
    /retry.baseDelayMs/,
  ],
  [
    "retry.maxDelayMs Infinity",
    { url: URL_, auth: apiKey, retry: { maxDelayMs: Infinity } },
    RangeError,
    /retry.maxDelayMs/,
  ],
  [
    "retry.maxDelayMs past the longest timer (2,147,483,647 ms)",
    { url: URL_, auth: apiKey, retry: { maxDelayMs: 2_147_483_648 } },
    RangeError,
    /retry.maxDelayMs: expected an integer from 0 to 2147483647, current value is 2147483648/,
  ],
  [
    "retry maxDelayMs one below baseDelayMs",
    { url: URL_, auth: apiKey, retry: { baseDelayMs: 100, maxDelayMs: 99 } },
    RangeError,
    /at least retry.baseDelayMs \(100\), current value is 99/,
  ],
  [
    "retry maxDelayMs < baseDelayMs",
    { url: URL_, auth: apiKey, retry: { baseDelayMs: 500, maxDelayMs: 100 } },
    RangeError,
    /at least retry.baseDelayMs \(500\), current value is 100/,
  ],
  [
    "retry.shouldRetry not a function",
    { url: URL_, auth: apiKey, retry: { shouldRetry: true } },
    TypeError,
    /retry.shouldRetry: expected a function, current value is true/,
  ],
  [
    "retry typo",
    { url: URL_, auth: apiKey, retry: { retries: 3 } },
    TypeError,
    /Unknown option `retries` in retry/,
  ],
  [
    "fetch not a function",
    { url: URL_, auth: apiKey, fetch: "fetch" },
    TypeError,
    /Invalid fetch: expected a function, current value is a string/,
  ],
  ["timeoutMs 0", { url: URL_, auth: apiKey, timeoutMs: 0 }, RangeError, /timeoutMs: .*current value is 0/],
  [
    "timeoutMs a bigint: quoted, as a number is",
    { url: URL_, auth: apiKey, timeoutMs: 10n },
    TypeError,
    /Invalid timeoutMs: expected an integer from 1 to 2147483647, current value is 10$/,
  ],
  [
    "timeoutMs huge",
    { url: URL_, auth: apiKey, timeoutMs: 2 ** 31 },
    RangeError,
    /from 1 to 2147483647, current value is 2147483648/,
  ],
  [
    "signal not a signal",
    { url: URL_, auth: apiKey, signal: {} },
    TypeError,
    /Invalid signal: expected an AbortSignal/,
  ],
  [
    "headers reserved",
    { url: URL_, auth: apiKey, headers: { Authorization: "x" } },
    TypeError,
    /`authorization` is set by the client/,
  ],
  [
    "headers not an object",
    { url: URL_, auth: apiKey, headers: "x-a: b" },
    TypeError,
    /Invalid headers: expected an object or Headers/,
  ],
  [
    "option typo: timeout",
    { url: URL_, auth: apiKey, timeout: 100 },
    TypeError,
    /Unknown option `timeout` in options: did you mean `timeoutMs`\?/,
  ],
  [
    "option typo: endpoint",
    { url: URL_, auth: apiKey, endpoint: URL_ },
    TypeError,
    /Unknown option `endpoint`/,
  ],
  [
    "fetch null (refused as signal, headers and timeoutMs are)",
    { url: URL_, auth: apiKey, fetch: null },
    TypeError,
    /^Invalid fetch: expected a function, current value is null$/,
  ],
  [
    "signal whose listener methods are not functions",
    { url: URL_, auth: apiKey, signal: { aborted: false, addEventListener: 1, removeEventListener: 1 } },
    TypeError,
    /^Invalid signal: expected an AbortSignal, current value is an object$/,
  ],
  [
    "headers with a control character Headers takes but fetch refuses when sending",
    { url: URL_, auth: apiKey, headers: { "x-trace": "abc\x01def" } },
    TypeError,
    /^Invalid headers: `x-trace` has a character it cannot hold$/,
  ],
  [
    "headers with DEL, given as Headers",
    { url: URL_, auth: apiKey, headers: new Headers({ "x-trace": "abc\x7f" }) },
    TypeError,
    /^Invalid headers: `x-trace` has a character it cannot hold/,
  ],
  [
    "iam credentials with a key spelt as STS spells it",
    { url: URL_, auth: { ...iam, credentials: { ...CREDENTIALS, SessionToken: "token" } } },
    TypeError,
    /^Unknown option `SessionToken` in auth.credentials: did you mean `sessionToken`\?$/,
  ],
];

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("options", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("construction rejects bad options with a clear TypeError/RangeError (code INVALID_ARGUMENT)", () => {
    for (const [name, options, ErrorClass, message] of CONSTRUCTION) {
      it(name, () => {
        assert.throws(
          () => new ServiceClient(options as never),
          (err: Error) => {
            assert.equal(err.constructor, ErrorClass, `${err.constructor.name}: ${err.message}`);
            assert.match(err.message, message);
            assert.equal((err as { code?: string }).code, "INVALID_ARGUMENT");
            for (const secret of SECRETS) {
              assert.ok(!err.message.includes(secret), "no secret in the message");
            }
            return true;
          },
        );
      });
    }

    it("the table holds at least 40 cases", () => assert.ok(CONSTRUCTION.length >= 40));

    it("iam credentials as the AWS SDKs and their providers return them are taken as they are", async () => {
      const credentials = {
        ...CREDENTIALS,
        expiration: new Date(Date.now() + 3_600_000),
        credentialScope: "us-east-1",
        accountId: "123456789012",
        $source: { CREDENTIALS_ENV_VARS: "g" },
        identityId: "us-east-1:0000", // the Cognito identity provider's
        expired: false, // the v2 SDK's
        expireTime: new Date(Date.now() + 3_600_000),
        refreshCallbacks: [],
      };
      const client = new ServiceClient({ url: endpoint.url, auth: { ...iam, credentials } as never });
      assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
    });

    it("a runtime without fetch and no fetch option is refused at construction", () => {
      const original = Object.getOwnPropertyDescriptor(globalThis, "fetch")!;
      // deno-lint-ignore no-explicit-any
      delete (globalThis as any).fetch;
      try {
        assert.throws(
          () => new ServiceClient({ url: URL_, auth: { type: "apiKey", apiKey: "k" } }),
          {
            code: "INVALID_ARGUMENT",
            message:
              "Invalid fetch: expected a function (this runtime has no global fetch), current value is undefined",
          },
        );
        assert.throws(
          () => new ServiceClient({ url: URL_, auth: { type: "apiKey", apiKey: "k" }, fetch: 42 as never }),
          {
            message: "Invalid fetch: expected a function, current value is 42",
          },
        );
        assert.doesNotThrow(() =>
          new ServiceClient({
            url: URL_,
            auth: { type: "apiKey", apiKey: "k" },
            fetch: () => Promise.reject(),
          })
        );
      } finally {
        Object.defineProperty(globalThis, "fetch", original);
      }
    });

    it("without a fetch option, the global fetch is looked up at each request: a mock installed later is used", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const original = globalThis.fetch;
      let mocked = 0;
      globalThis.fetch = (input, init) => (mocked++, original(input, init));
      try {
        assert.deepEqual(await client.request("{ hello }"), { hello: "world" });
        assert.equal(mocked, 1);
      } finally {
        globalThis.fetch = original;
      }
    });
  });

  it("an option, auth field or header set to undefined counts as absent, as in the types", async () => {
    const client = new ServiceClient({
      url: endpoint.url,
      auth: { type: "apiKey", apiKey: API_KEY, jwtToken: undefined },
      headers: { "x-trace": undefined, "x-kept": "1" },
      timeout: undefined,
    } as never);
    const before = endpoint.requests.length;
    assert.deepEqual(
      await client.request(
        "{ hello }",
        undefined,
        { headers: { "x-request": undefined }, sig: undefined } as never,
      ),
      { hello: "world" },
    );
    const { headers } = endpoint.requests[before]!;
    assert.equal(headers["x-kept"], "1");
    assert.equal("x-trace" in headers || "x-request" in headers, false);
  });

  it("variables that are class instances or null-prototype objects are sent as their fields", async () => {
    class Input {
      id = "1";
      tags = ["a"];
    }
    const bare = Object.assign(Object.create(null), { id: "2" });
    const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
    for (const [variables, sent] of [[new Input(), { id: "1", tags: ["a"] }], [bare, { id: "2" }]]) {
      const before = endpoint.requests.length;
      await client.requestRaw("{ hello }", variables as never);
      assert.deepEqual(JSON.parse(endpoint.requests[before]!.body).variables, sent);
    }
  });

  it("a request header with a control character is refused before anything is sent", async () => {
    const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
    const before = endpoint.requests.length;
    const err = await rejection(client.request("{ hello }", undefined, { headers: { "x-trace": "a\x1fb" } }));
    assert.equal(err.code, "INVALID_ARGUMENT");
    assert.match(err.message, /^Invalid request headers: `x-trace` has a character it cannot hold/);
    assert.equal(endpoint.requests.length, before);
  });

  let endpoint: Endpoint;
  /** An iam client of the local endpoint whose credentials come from `provider`. */
  const iamClient = (provider: () => object) =>
    new ServiceClient({
      url: endpoint.url,
      auth: { type: "iam", region: "us-east-1", credentials: provider as () => typeof CREDENTIALS },
    });

  describe("an unknown key is named, with the known key it resembles", () => {
    const KNOWN = ["signal", "timeoutMs", "operationName", "headers"];
    const CASES: ReadonlyArray<[string, string | undefined]> = [
      ["timeout", "timeoutMs"], // a prefix of a known key
      ["TimeoutMS", "timeoutMs"], // whatever the case
      ["timeoutMsec", "timeoutMs"], // a known key with more after it
      ["sig", "signal"], // a short prefix
      ["opName", undefined], // letters left out: no hint, the known keys are listed
      ["sgl", undefined], // too short to be a known key with letters left out
      ["imeoutMs", undefined], // letters left out, but not the first one kept
      ["variables", undefined],
    ];
    for (const [typed, hint] of CASES) {
      it(`${typed}: ${hint ? `did you mean \`${hint}\`?` : "no suggestion"}`, () => {
        assert.throws(() => expectOptions({ [typed]: 1 }, "request options", KNOWN), (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.equal(
            error.message,
            `Unknown option \`${typed}\` in request options: ${
              hint ? `did you mean \`${hint}\`?` : "expected one of signal, timeoutMs, operationName, headers"
            }`,
          );
          return true;
        });
      });
    }
  });

  describe("per-request bad input rejects before sending", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cyclicSelections: { kind: string; selections: unknown[] } = {
      kind: "SelectionSet",
      selections: [],
    };
    cyclicSelections.selections.push({ kind: "InlineFragment", selectionSet: cyclicSelections });
    const CASES: ReadonlyArray<[string, unknown, unknown, unknown, RegExp]> = [
      ["document a number", 42, undefined, undefined, /Invalid document: .*current value is 42/],
      ["document null", null, undefined, undefined, /Invalid document: .*null/],
      ["document an unrelated object", { query: "{ hello }" }, undefined, undefined, /Invalid document/],
      [
        "document empty",
        "",
        undefined,
        undefined,
        /^Invalid document: expected a GraphQL string or document node, current value is an empty string$/,
      ],
      [
        "document blank",
        "  \n ",
        undefined,
        undefined,
        /^Invalid document: expected a GraphQL string or document node, current value is an empty string$/,
      ],
      [
        "document an empty String object",
        new String(""),
        undefined,
        undefined,
        /^Invalid document: expected a GraphQL string or document node, current value is an empty string$/,
      ],
      [
        "document node with no definitions field",
        { kind: "Document" },
        undefined,
        undefined,
        /Invalid document: expected/,
      ],
      [
        "document node without definitions",
        { kind: "Document", definitions: [] },
        undefined,
        undefined,
        /^Invalid document: expected a GraphQL string or document node, current value is an empty string$/,
      ],
      [
        "document node whose definitions hold null",
        { kind: "Document", definitions: [null] },
        undefined,
        undefined,
        /^Invalid document: expected a GraphQL string or document node, current value is an empty string$/,
      ],
      [
        "document node that holds itself",
        {
          kind: "Document",
          definitions: [{ kind: "OperationDefinition", operation: "query", selectionSet: cyclicSelections }],
        },
        undefined,
        undefined,
        /^Cannot print the document$/,
      ],
      [
        "variables a string",
        "{ hello }",
        "x",
        undefined,
        /Invalid variables: expected an object, current value is a string/,
      ],
      [
        "variables an array",
        "{ hello }",
        [1],
        undefined,
        /Invalid variables: expected an object, current value is an array/,
      ],
      // Variables may hold a PIN or a card number: a number is described by its type, never shown.
      [
        "variables a number",
        "{ hello }",
        482913,
        undefined,
        /^Invalid variables: expected an object, current value is a number$/,
      ],
      // Objects JSON would not send as the object they are (a Map as {}, a Date as a string).
      [
        "variables a Map",
        "{ hello }",
        new Map([["id", "1"]]),
        undefined,
        /^Invalid variables: expected a plain object, current value is a Map$/,
      ],
      ["variables a Date", "{ hello }", new Date(0), undefined, /current value is a Date$/],
      ["variables a boxed string", "{ hello }", new String("x"), undefined, /current value is a String$/],
      ["variables a boxed number", "{ hello }", new Number(5), undefined, /current value is a Number$/],
      [
        "variables with a toJSON",
        "{ hello }",
        { toJSON: () => "s" },
        undefined,
        /current value is an object with a toJSON method$/,
      ],
      ["variables with a BigInt", "{ hello }", { n: 1n }, undefined, /not serializable to JSON/],
      ["variables with a cycle", "{ hello }", cycle, undefined, /not serializable to JSON/],
      ["options not an object", "{ hello }", undefined, 5, /Invalid request options/],
      ["timeoutMs 0", "{ hello }", undefined, { timeoutMs: 0 }, /request timeoutMs/],
      ["timeoutMs negative", "{ hello }", undefined, { timeoutMs: -1 }, /request timeoutMs/],
      ["timeoutMs NaN", "{ hello }", undefined, { timeoutMs: NaN }, /request timeoutMs: .*NaN/],
      [
        "timeoutMs Infinity",
        "{ hello }",
        undefined,
        { timeoutMs: Infinity },
        /request timeoutMs: .*Infinity/,
      ],
      ["timeoutMs huge", "{ hello }", undefined, { timeoutMs: 1e12 }, /request timeoutMs/],
      ["signal not an AbortSignal", "{ hello }", undefined, { signal: "stop" }, /Invalid request signal/],
      [
        "signal without addEventListener",
        "{ hello }",
        undefined,
        { signal: { aborted: false, removeEventListener() {} } },
        /Invalid request signal: expected an AbortSignal/,
      ],
      [
        "signal whose aborted is not a boolean",
        "{ hello }",
        undefined,
        { signal: { aborted: "no", addEventListener() {}, removeEventListener() {} } },
        /Invalid request signal: expected an AbortSignal/,
      ],
      [
        "signal without removeEventListener (it would fail after the request ran)",
        "{ hello }",
        undefined,
        { signal: { aborted: false, addEventListener() {} } },
        /Invalid request signal: expected an AbortSignal/,
      ],
      ["operationName empty", "{ hello }", undefined, { operationName: "" }, /Invalid operationName/],
      [
        "headers reserved",
        "{ hello }",
        undefined,
        { headers: { "x-api-key": "k" } },
        /`x-api-key` is set by the client/,
      ],
      [
        "headers with CR/LF",
        "{ hello }",
        undefined,
        { headers: { "x-a": "a\r\nb" } },
        /not a valid HTTP header/,
      ],
      [
        "option typo: timeout",
        "{ hello }",
        undefined,
        { timeout: 5 },
        /Unknown option `timeout` in request options: did you mean `timeoutMs`\?/,
      ],
      ["option typo: variables", "{ hello }", undefined, { variables: {} }, /Unknown option `variables`/],
    ];
    for (const [name, document, variables, options, message] of CASES) {
      it(name, async () => {
        let calls = 0;
        const client = new ServiceClient({
          url: endpoint.url,
          auth: { type: "apiKey", apiKey: API_KEY },
          retry: { attempts: 3, baseDelayMs: 1 },
          fetch: (input, init) => (calls++, fetch(input, init)),
        });
        const err = await client.request(document as string, variables as never, options as never).catch((
          e,
        ) => e);
        assert.ok(err instanceof TypeError || err instanceof RangeError, String(err));
        assert.ok("code" in err);
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, message);
        assert.equal(calls, 0, "nothing was sent");
      });
    }

    it("variables JSON cannot serialize keep JSON.stringify's error as the cause", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const err = await rejection(client.request("{ hello }", { n: 1n }));
      assert.equal(err.code, "INVALID_ARGUMENT");
      assert.ok(err.cause instanceof TypeError, String(err.cause));
    });
  });

  describe("auth getters that fail", () => {
    const GETTERS: ReadonlyArray<[string, () => unknown, RegExp]> = [
      ["throws", () => {
        throw new Error("token store offline");
      }, /Cannot authenticate: apiKey getter threw/],
      ["rejects", () => Promise.reject(new Error("refresh failed")), /getter threw/],
      ["returns an empty string", () => "", /is an empty string/],
      ["returns a blank string", () => "\t ", /is an empty string/],
      ["returns a number", () => 7, /is a number/],
      ["returns undefined", () => undefined, /is undefined/],
      ["returns CR/LF", () => `${API_KEY}\r\nx-injected: 1`, /is a string with a character it cannot hold/],
      ["returns a non-Latin-1 character", () => "key-✓", /is a string with a character it cannot hold/],
    ];
    for (const [name, getter, message] of GETTERS) {
      // The same case with a property getter (`get apiKey()`), which is read per attempt as a function
      // is called, and never at construction. (A property getter returning a Promise is not awaited.)
      for (const form of name === "rejects" ? ["function"] : ["function", "property getter"]) {
        it(`a ${form} that ${name} gives ServiceAuthError (AUTH_ERROR), is not retried, sends nothing`, async () => {
          let calls = 0;
          let gets = 0;
          const auth = form === "function"
            ? { type: "apiKey" as const, apiKey: () => (gets++, getter()) as string }
            : {
              type: "apiKey" as const,
              get apiKey() {
                return (gets++, getter()) as string;
              },
            };
          const client = new ServiceClient({
            url: endpoint.url,
            auth,
            retry: { attempts: 3, baseDelayMs: 1 },
            fetch: (input, init) => (calls++, fetch(input, init)),
          });
          assert.equal(gets, 0, "not called at construction");
          const err = await rejection(client.request("{ hello }"));
          assert.ok(err instanceof ServiceAuthError, String(err));
          assert.equal(err.code, "AUTH_ERROR");
          assert.match(err.message, message);
          assert.ok(!err.message.includes(API_KEY));
          assert.equal(calls, 0);
          assert.equal(gets, 1);
        });
      }
    }

    it("the getter's error is the cause", async () => {
      const cause = new Error("offline");
      const client = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "userpool",
          jwtToken: () => {
            throw cause;
          },
        },
      });
      const err = await rejection(client.request("{ hello }"));
      assert.equal(err.cause, cause);
    });

    it("an iam provider whose credentials' own getter throws gives ServiceAuthError with that error as cause", async () => {
      const before = endpoint.requests.length;
      const locked = new Error("vault locked");
      const client = iamClient(() => ({
        ...CREDENTIALS,
        get sessionToken(): string {
          throw locked;
        },
      }));
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceAuthError);
      assert.equal(err.message, "Cannot authenticate: credentials could not be read");
      assert.equal(err.cause, locked);
      assert.equal(endpoint.requests.length, before);
    });

    it("an iam provider returning STS's `SessionToken` gives ServiceAuthError, nothing sent (it would sign without it)", async () => {
      const before = endpoint.requests.length;
      const client = iamClient(() => ({
        accessKeyId: CREDENTIALS.accessKeyId,
        secretAccessKey: CREDENTIALS.secretAccessKey,
        SessionToken: "token",
      }));
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceAuthError);
      assert.equal(err.message, "Cannot authenticate: credentials has a misspelt key");
      assert.match(String((err.cause as Error).message), /`SessionToken`.*did you mean `sessionToken`/);
      assert.equal(endpoint.requests.length, before);
    });

    it("an iam provider returning an empty secret gives ServiceAuthError without any key in the message", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "iam",
          region: "us-east-1",
          credentials: () => ({ ...CREDENTIALS, secretAccessKey: "" }),
        },
      });
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceAuthError);
      assert.match(err.message, /credentials.secretAccessKey is an empty string/);
      assert.ok(!err.message.includes(CREDENTIALS.accessKeyId));
    });
  });
});
