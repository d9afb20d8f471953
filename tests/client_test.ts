import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "graphql";
import { type AuthOptions, ServiceClient, ServiceGraphQLError, ServiceHttpError } from "../mod.ts";
import { type Endpoint, send, startEndpoint } from "./_server.ts";
import {
  API_KEY,
  AUTH_MODES,
  CREDENTIALS,
  LAMBDA_TOKEN,
  OIDC_JWT,
  REGION,
  USERPOOL_JWT,
} from "./_fixtures.ts";
import { rejection } from "./_fixtures.ts";
import type { Dispatcher } from "undici";
import process from "node:process";
import { spawnSync } from "node:child_process";
import { isProxy, reactive, ref, shallowReactive } from "@vue/reactivity";

let endpoint: Endpoint;

function lastRequest() {
  const request = endpoint.requests.at(-1);
  assert.ok(request, "the endpoint received a request");
  return request;
}

const MODES = AUTH_MODES;

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("client", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("wire request", () => {
    it("POSTs JSON {query, variables, operationName} with content-type application/json; charset=UTF-8", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const data = await client.request<{ echo: string }, { m: string }>(
        "query Echo($m: String!) { echo(message: $m) }",
        { m: "héllo ✓" },
        { operationName: "Echo" },
      );
      assert.deepEqual(data, { echo: "héllo ✓" });
      const request = lastRequest();
      assert.equal(request.method, "POST");
      assert.equal(request.path, "/graphql");
      assert.equal(request.headers["content-type"], "application/json; charset=UTF-8");
      assert.deepEqual(JSON.parse(request.body), {
        query: "query Echo($m: String!) { echo(message: $m) }",
        variables: { m: "héllo ✓" },
        operationName: "Echo",
      });
    });

    it("sends the variables as they were when the method was called, whatever the caller does with its object then", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const ECHO = "query Echo($m: String!) { echo(message: $m) }";
      // One object reused in a loop, as a form's state is reset once submitted.
      const variables: Record<string, unknown> = {};
      const calls = ["first", "second", "third"].map((m) => {
        variables.m = m;
        return client.request<{ echo: string }>(ECHO, variables);
      });
      variables.m = "";
      variables.self = variables; // and even one that no longer serializes
      assert.deepEqual((await Promise.all(calls)).map(({ echo }) => echo), ["first", "second", "third"]);
      // A document node waits for the printer before its first request: the variables do not.
      const node = client.request<{ echo: string }>(parse(ECHO), { m: "node" });
      const late: Record<string, unknown> = { m: "before" };
      const waiting = client.request<{ echo: string }>(parse(ECHO), late);
      late.m = "after";
      assert.deepEqual([(await node).echo, (await waiting).echo], ["node", "before"]);
    });

    it("omits variables and operationName when absent", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      await client.request("{ hello }");
      assert.equal(lastRequest().body, '{"query":"{ hello }"}');
    });

    it("variables null are sent as no variables", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      await client.request("{ hello }", null as never);
      assert.equal(lastRequest().body, '{"query":"{ hello }"}');
    });

    it("a caller's operationName wins over the one of a document node's single operation", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      await client.request(parse("query Named { hello }"), undefined, { operationName: "Other" }).catch(
        () => {},
      );
      assert.equal(JSON.parse(lastRequest().body).operationName, "Other");
    });

    it("accepts a URL object for url", async () => {
      const client = new ServiceClient({
        url: new URL(endpoint.url),
        auth: { type: "apiKey", apiKey: API_KEY },
      });
      assert.deepEqual(await client.request("{ hello }"), { hello: "world" });
    });
  });

  describe("auth modes", () => {
    for (const [mode, auth] of MODES) {
      it(`${mode}: the endpoint accepts the request and the header is exactly as the service expects`, async () => {
        const client = new ServiceClient({ url: endpoint.url, auth });
        assert.deepEqual(await client.request("{ whoami }"), { whoami: mode });
        const headers = lastRequest().headers;
        switch (mode) {
          case "apiKey":
            assert.equal(headers["x-api-key"], API_KEY);
            assert.equal(headers["authorization"], undefined);
            break;
          case "userpool":
            assert.equal(headers["authorization"], USERPOOL_JWT);
            break;
          case "oidc":
            assert.equal(headers["authorization"], OIDC_JWT);
            break;
          case "lambda":
            assert.equal(headers["authorization"], LAMBDA_TOKEN);
            break;
          case "iam":
            assert.match(
              headers["authorization"]!,
              /^AWS4-HMAC-SHA256 Credential=AKIDSENTINELEXAMPLE\/\d{8}\/us-east-1\/appsync\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
            );
            assert.match(headers["x-amz-date"]!, /^\d{8}T\d{6}Z$/);
            assert.equal(headers["x-amz-security-token"], CREDENTIALS.sessionToken);
            break;
        }
      });
    }

    it("an API with several auth modes: one client per mode, used side by side, sends each request with its own credential only", async () => {
      const clients = MODES.map(([mode, auth]) =>
        [mode, new ServiceClient({ url: endpoint.url, auth })] as const
      );
      const before = endpoint.requests.length;
      const rounds = 3;
      const answers = await Promise.all(
        Array.from(
          { length: rounds },
          (_, round) =>
            clients.map(([mode, client]) =>
              client.request<{ whoami: string; echo: string }, { tag: string }>(
                "query Tagged($tag: String!) { whoami echo(message: $tag) }",
                { tag: `${mode}#${round}` },
              )
            ),
        ).flat(),
      );
      assert.deepEqual(
        answers.map((data) => data.whoami + " " + data.echo),
        Array.from({ length: rounds }, (_, round) => MODES.map(([mode]) => `${mode} ${mode}#${round}`))
          .flat(),
      );
      const received = endpoint.requests.slice(before);
      assert.equal(received.length, rounds * MODES.length);
      const credential: Record<string, string | undefined> = {
        userpool: USERPOOL_JWT,
        oidc: OIDC_JWT,
        lambda: LAMBDA_TOKEN,
      };
      for (const request of received) {
        const mode = (JSON.parse(request.body).variables.tag as string).split("#")[0]!;
        const { headers } = request;
        assert.equal(headers["x-api-key"], mode === "apiKey" ? API_KEY : undefined, mode);
        assert.equal("x-amz-date" in headers, mode === "iam", mode);
        assert.equal("x-amz-security-token" in headers, mode === "iam", mode);
        if (mode === "apiKey") assert.equal(headers["authorization"], undefined);
        else if (mode === "iam") assert.match(headers["authorization"]!, /^AWS4-HMAC-SHA256 Credential=/);
        else assert.equal(headers["authorization"], credential[mode], mode);
      }
    });

    it("two iam clients side by side with different secrets never sign with each other's key", async () => {
      const good = new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      const wrong = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "iam",
          region: REGION,
          credentials: { ...CREDENTIALS, secretAccessKey: "not-the-secret" },
        },
      });
      for (const order of [[good, wrong], [wrong, good]]) {
        const outcomes = await Promise.allSettled(order.map((client) => client.request("{ whoami }")));
        const byClient = new Map(order.map((client, i) => [client, outcomes[i]!]));
        assert.deepEqual(byClient.get(good), { status: "fulfilled", value: { whoami: "iam" } });
        const refused = byClient.get(wrong);
        assert.equal(refused?.status, "rejected");
        assert.ok(refused.reason instanceof ServiceHttpError && refused.reason.status === 403);
      }
    });

    it("iam signs the URL's query: the endpoint, verifying with smithy, accepts it and refuses another", async () => {
      const url = `${endpoint.url}?filter=a+b&note=%20x%2B&filter=c`;
      const client = new ServiceClient({
        url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
      assert.equal(lastRequest().query, "filter=a+b&note=%20x%2B&filter=c");
      // The same signature under another query: the endpoint checks the query it received.
      const signed = lastRequest().headers;
      const replay = await fetch(`${endpoint.url}?filter=a%20b&note=%20x%2B&filter=c`, {
        method: "POST",
        headers: Object.fromEntries(
          Object.entries(signed).filter(([name]) => !/^(host|content-length)$/.test(name)),
        ),
        body: lastRequest().body,
      });
      assert.equal(replay.status, 403);
      await replay.body?.cancel();
    });

    it("iam without a session token sends no x-amz-security-token", async () => {
      const { accessKeyId, secretAccessKey } = CREDENTIALS;
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: { accessKeyId, secretAccessKey } },
      });
      assert.deepEqual(await client.request("{ whoami }"), { whoami: "iam" });
      assert.equal(lastRequest().headers["x-amz-security-token"], undefined);
      // An empty one (an unset environment variable read as "") counts as none, given or returned.
      for (
        const credentials of [
          { ...CREDENTIALS, sessionToken: "" },
          () => ({ ...CREDENTIALS, sessionToken: "" }),
        ]
      ) {
        const empty = new ServiceClient({
          url: endpoint.url,
          auth: { type: "iam", region: REGION, credentials },
        });
        assert.deepEqual(await empty.request("{ whoami }"), { whoami: "iam" });
        assert.equal(lastRequest().headers["x-amz-security-token"], undefined);
      }
    });

    it("tokens are never prefixed with Bearer (the endpoint refuses a prefixed one with 401)", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "userpool", jwtToken: `Bearer ${USERPOOL_JWT}` },
      });
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 401);
      assert.equal(err.errors[0]?.errorType, "UnauthorizedException");
    });

    it("a key with Latin-1 characters, which a header can carry, is sent as it is", async () => {
      const key = "da2-cl\u00e9-\u00ff";
      endpoint.apiKeys.add(key);
      try {
        for (const apiKey of [key, () => key]) {
          const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey } });
          assert.deepEqual(await client.request("{ hello }"), { hello: "world" });
          assert.equal(endpoint.requests.at(-1)!.headers["x-api-key"], key);
        }
      } finally {
        endpoint.apiKeys.delete(key);
      }
    });

    it("a wrong API key gives ServiceHttpError 401 with the parsed errors", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: "da2-wrong" } });
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof ServiceHttpError);
      assert.equal(err.status, 401);
      assert.equal(err.code, "HTTP_ERROR");
      assert.deepEqual(err.body, {
        errors: [{
          errorType: "UnauthorizedException",
          message: "You are not authorized to make this call.",
        }],
      });
      assert.equal(err.message, "HTTP 401");
    });

    it("an API key getter is called on every request, so rotation takes effect on the next one", async () => {
      let key = API_KEY;
      let calls = 0;
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: () => (calls++, key) },
      });
      await client.request("{ hello }");
      endpoint.apiKeys.add("da2-rotated");
      key = "da2-rotated";
      await client.request("{ hello }");
      endpoint.apiKeys.delete("da2-rotated");
      assert.equal(calls, 2);
      assert.equal(lastRequest().headers["x-api-key"], "da2-rotated");
    });

    it("a key given as a value is read again on every request: a property getter, or the auth object changed", async () => {
      let key: string | undefined;
      let gets = 0;
      const auth = {
        type: "apiKey" as const,
        get apiKey() {
          gets++;
          return key as string;
        },
      };
      // Not read at construction: the key may not be loaded yet.
      const client = new ServiceClient({ url: endpoint.url, auth });
      assert.equal(gets, 0);
      key = API_KEY;
      endpoint.apiKeys.add("da2-rotated");
      try {
        await client.request("{ hello }");
        key = "da2-rotated";
        await client.request("{ hello }");
        assert.equal(lastRequest().headers["x-api-key"], "da2-rotated");
        assert.equal(gets, 2, "read once per request");
        const plain = { type: "apiKey" as const, apiKey: API_KEY };
        const other = new ServiceClient({ url: endpoint.url, auth: plain });
        await other.request("{ hello }");
        assert.equal(lastRequest().headers["x-api-key"], API_KEY);
        plain.apiKey = "da2-rotated";
        await other.request("{ hello }");
        assert.equal(lastRequest().headers["x-api-key"], "da2-rotated");
      } finally {
        endpoint.apiKeys.delete("da2-rotated");
      }
    });

    it("a type changed after construction is read again: a known one is used, an unknown one refused with a code", async () => {
      const auth: Record<string, string> = { type: "apiKey", apiKey: API_KEY };
      const client = new ServiceClient({ url: endpoint.url, auth: auth as unknown as AuthOptions });
      const before = endpoint.requests.length;
      auth.type = "lambda";
      auth.authorizationToken = LAMBDA_TOKEN;
      await client.request("{ hello }");
      assert.equal(lastRequest().headers.authorization, LAMBDA_TOKEN);
      assert.equal(lastRequest().headers["x-api-key"], undefined);
      auth.type = "API_KEY";
      const err = await rejection(client.request("{ hello }"));
      assert.ok(err instanceof TypeError, String(err));
      assert.equal((err as { code?: string }).code, "INVALID_ARGUMENT");
      assert.match(
        err.message,
        /^Invalid auth\.type: expected one of apiKey, .*"API_KEY"; write `type: "apiKey"`/,
      );
      assert.equal(endpoint.requests.length, before + 1, "nothing sent with an unknown type");
    });

    it("getters a class inherits (a token store, iam credentials) are read per request, not at construction", async () => {
      let token: string | undefined = undefined;
      let reads = 0;
      class SessionAuth {
        readonly type = "userpool";
        get jwtToken(): string {
          reads++;
          return token as string;
        }
      }
      const client = new ServiceClient({ url: endpoint.url, auth: new SessionAuth() });
      assert.equal(reads, 0);
      token = USERPOOL_JWT;
      await client.request("{ hello }");
      assert.equal(lastRequest().headers.authorization, USERPOOL_JWT);
      assert.equal(reads, 1);

      let credentialReads = 0;
      const iam = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "iam",
          region: REGION,
          get credentials() {
            credentialReads++;
            return CREDENTIALS;
          },
        },
      });
      assert.equal(credentialReads, 0);
      await iam.request("{ hello }");
      assert.match(lastRequest().headers.authorization ?? "", /^AWS4-HMAC-SHA256 Credential=/);
      assert.equal(credentialReads, 1);
    });

    it("every request hands fetch a headers object of its own: a wrapper's change does not carry over", async () => {
      const seen: Array<string | undefined> = [];
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "apiKey", apiKey: API_KEY },
        fetch: (input, init) => {
          const headers = init!.headers as Record<string, string>;
          seen.push(headers["traceparent"]);
          headers["traceparent"] = "00-sampled-01"; // a tracing wrapper writing into the init it got
          return fetch(input, init);
        },
      });
      for (let i = 0; i < 3; i++) await client.request("{ hello }");
      assert.deepEqual(seen, [undefined, undefined, undefined]);
    });

    for (const [mode, auth] of MODES.filter(([m]) => m !== "apiKey" && m !== "iam")) {
      it(`${mode}: an async token function is awaited on every request (silent refresh)`, async () => {
        const field = mode === "lambda" ? "authorizationToken" : "jwtToken";
        const value = (auth as unknown as Record<string, string>)[field];
        let calls = 0;
        const client = new ServiceClient({
          url: endpoint.url,
          auth: {
            ...auth,
            [field]: async () => (calls++, await Promise.resolve(value as string)),
          } as AuthOptions,
        });
        await client.request("{ whoami }");
        await client.request("{ whoami }");
        assert.equal(calls, 2);
      });
    }

    it("iam: a credentials provider is called per request (sync and async)", async () => {
      let calls = 0;
      const client = new ServiceClient({
        url: endpoint.url,
        auth: {
          type: "iam",
          region: REGION,
          credentials: () => (calls++, Promise.resolve({ ...CREDENTIALS })),
        },
      });
      await client.request("{ hello }");
      await client.request("{ hello }");
      assert.equal(calls, 2);
    });

    it("iam with crypto.subtle gone signs on node:crypto (Deno 2, Node, Bun), and again once it is back", async () => {
      const client = new ServiceClient({
        url: endpoint.url,
        auth: { type: "iam", region: REGION, credentials: CREDENTIALS },
      });
      await client.request("{ hello }"); // the iam module is loaded
      // The signer of the source on Deno 2, and of the npm build on Node and Bun, is node:crypto, which
      // needs no crypto.subtle. (Where nothing can sign: the child process of the next test.)
      const { signingProblem } = await import("../src/iam.ts");
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, "crypto");
      const before = endpoint.requests.length;
      Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true, writable: true });
      try {
        assert.equal(signingProblem(), "", "this runtime signs on node:crypto");
        assert.deepEqual(
          await client.request("{ hello }"),
          { hello: "world" },
          "node:crypto signs without it",
        );
        assert.equal(endpoint.requests.length, before + 1);
        assert.match(lastRequest().headers.authorization ?? "", /^AWS4-HMAC-SHA256 Credential=/);
      } finally {
        if (descriptor) Object.defineProperty(globalThis, "crypto", descriptor);
        else delete (globalThis as { crypto?: unknown }).crypto;
      }
      assert.deepEqual(await client.request("{ hello }"), { hello: "world" }, "signs again once it is back");
    });

    // Nothing can sign nowhere the tests run in-process: Deno signs on `node:crypto`, which it hands
    // out without an import, and so does the npm build on Node and Bun.
    // A child process of this runtime loads the build a page gets with neither (Deno: the source with
    // `process.getBuiltinModule` out of sight; Node and Bun: the npm package's web build), and then
    // empties `crypto`, as a browser does on a plain http page.
    it("iam where nothing can sign (a page over plain http): a typed ServiceAuthError, fetch never called", {
      skip: !process.execPath && "no process.execPath to start this runtime again",
    }, () => {
      const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
      const module = new URL(deno ? "../mod.ts" : "../web/mod.js", import.meta.url).href;
      const code = `if (globalThis.process) globalThis.process.getBuiltinModule = undefined;
        Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true, writable: true });
        const { ServiceClient } = await import(${JSON.stringify(module)});
        let calls = 0;
        const client = new ServiceClient({
          url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
          auth: { type: "iam", region: "us-east-1", credentials: ${JSON.stringify(CREDENTIALS)} },
          fetch: () => { calls++; return Promise.resolve(Response.json({ data: {} })); },
        });
        const err = await client.request("{ hello }").then(() => undefined, (e) => e);
        console.log(JSON.stringify([err?.name, err?.code, err?.message, calls, String(err?.message).includes(${
        JSON.stringify(CREDENTIALS.secretAccessKey)
      })]));`;
      const args = deno
        ? ["eval", "--no-lock", "--no-check", code]
        : (process.versions as { bun?: string }).bun
        ? ["-e", code]
        : ["--input-type=module", "-e", code];
      const child = spawnSync(process.execPath, args, {
        env: { ...process.env, NODE_OPTIONS: "" },
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(child.status, 0, child.stderr);
      const [name, code_, message, calls, leaked] = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
      assert.equal(name, "ServiceAuthError");
      assert.equal(code_, "AUTH_ERROR");
      assert.match(
        message,
        /^Cannot authenticate: credentials cannot be signed: this runtime has no Web Crypto/,
      );
      assert.equal(calls, 0, "nothing was sent");
      assert.equal(leaked, false, "the message holds no secret");
    });
  });

  describe("a method taken off its client, or called on a Proxy of it", () => {
    it("rejects with INVALID_ARGUMENT, never a synchronous or untyped error, and sends nothing", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const before = endpoint.requests.length;
      const { request, requestRaw, query, mutate, introspect } = client;
      // A Proxy of the client (Vue's `reactive()`, a spy) calls the methods with itself as `this`.
      const proxy = new Proxy(client, {});
      for (
        const call of [
          // @ts-expect-error TS2684: the types refuse it too (`this: ServiceClient`)
          () => request("{ hello }"),
          // @ts-expect-error TS2684: the types refuse it too (`this: ServiceClient`)
          () => requestRaw("{ hello }"),
          // @ts-expect-error TS2684: the types refuse it too (`this: ServiceClient`)
          () => query("{ hello }"),
          // @ts-expect-error TS2684: the types refuse it too (`this: ServiceClient`)
          () => mutate("{ hello }"),
          // @ts-expect-error TS2684: the types refuse it too (`this: ServiceClient`)
          () => introspect(),
          () => proxy.request("{ hello }"),
        ]
      ) {
        let pending: Promise<unknown> | undefined;
        assert.doesNotThrow(() => pending = call());
        const err = await rejection(pending!);
        assert.ok(err instanceof TypeError, String(err));
        assert.equal((err as { code?: string }).code, "INVALID_ARGUMENT");
        assert.match(err.message, /^Called without its client: a method taken off it, or a Proxy of it$/);
      }
      assert.equal(endpoint.requests.length, before);
      // Bound, it works.
      assert.deepEqual(await request.call(client, "{ hello }"), { hello: "world" });
    });
  });

  describe("held in Vue's reactive state", () => {
    it("reactive(), ref() and a store's state leave the client as it is, so its methods work", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const state = reactive({ client, nested: { client } });
      const store = shallowReactive({ client });
      for (
        const held of [state.client, state.nested.client, ref(client).value, reactive(client), store.client]
      ) {
        assert.equal(held, client);
        assert.equal(isProxy(held), false);
        assert.deepEqual(await held.request("{ hello }"), { hello: "world" });
      }
      // The flag Vue reads is the prototype's: the client itself has no key of its own.
      assert.deepEqual(Object.keys(client), []);
    });
  });

  describe("a fetch option", () => {
    it("is called with the URL as the client normalised it, and no signal when the call has none", async () => {
      const calls: Array<[unknown, RequestInit]> = [];
      const client = new ServiceClient({
        url: endpoint.url.replace("http://", "HTTP://"),
        auth: { type: "apiKey", apiKey: API_KEY },
        fetch: (input, init) => (calls.push([input, init!]), fetch(input, init)),
      });
      await client.request("{ hello }");
      assert.equal(calls[0]![0], new URL(endpoint.url).href);
      assert.ok(!("signal" in calls[0]![1]), "no signal when the call has neither a timeout nor a signal");
    });

    it("that returns a Response itself, not a Promise, works with a timeout, a signal or retries too", async () => {
      const answer = () => new Response(JSON.stringify({ data: { hello: "stub" } }), { status: 200 });
      for (
        const extra of [{}, { timeoutMs: 1_000 }, { signal: new AbortController().signal }, {
          retry: { attempts: 2 },
        }]
      ) {
        const client = new ServiceClient({
          url: endpoint.url,
          auth: { type: "apiKey", apiKey: API_KEY },
          fetch: answer as never,
          ...extra,
        });
        assert.deepEqual(await client.request("{ hello }"), { hello: "stub" }, JSON.stringify(extra));
      }
    });

    // undici 7 (the dev dependency) needs Node 20.18.1 or later (Deno reports a later Node). Bun
    // answers `import("undici")` with a built-in stand-in of its own, whose agents dispatch nothing.
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const undiciLoads = major > 20 || major === 20 && minor >= 18;
    const undiciSkip = process.versions.bun
      ? "Bun replaces the undici package with a built-in stand-in without dispatchers"
      : !undiciLoads && "undici 7 needs Node 20.18.1+ (Node 18 has no global File)";
    it("undici's fetch with a dispatcher of its own (a proxy's, an agent's) takes what the client hands it", {
      skip: undiciSkip,
    }, async () => {
      const { Agent, fetch: undiciFetch } = await import("undici");
      // The usual reason to pass `fetch` on Node: a dispatcher, here one that counts what it sends.
      let dispatched = 0;
      class CountingAgent extends Agent {
        override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
          dispatched++;
          return super.dispatch(options, handler);
        }
      }
      const dispatcher = new CountingAgent();
      try {
        for (const [mode, auth] of AUTH_MODES) {
          // Without a timeout the init's signal is null; with one, an AbortSignal. Both must be taken.
          for (const timeoutMs of [undefined, 5_000]) {
            const client = new ServiceClient({
              url: endpoint.url,
              auth,
              fetch: (input, init) => undiciFetch(input, { ...init, dispatcher }),
              ...(timeoutMs ? { timeoutMs } : {}),
            });
            assert.deepEqual(await client.request("{ hello }"), { hello: "world" }, `${mode}, ${timeoutMs}`);
          }
        }
        assert.equal(dispatched, AUTH_MODES.length * 2);
        // An error response's headers (undici's own Headers) are copied onto the ServiceHttpError.
        endpoint.route(
          "undici-busy",
          (_request, res) => send(res, 503, { message: "busy" }, { "retry-after": "7", "set-cookie": "a=b" }),
        );
        const err = await rejection(
          new ServiceClient({
            url: endpoint.urlFor("undici-busy"),
            auth: AUTH_MODES[0]![1],
            fetch: (input, init) => undiciFetch(input, { ...init, dispatcher }),
          }).request("{ hello }"),
        );
        assert.ok(err instanceof ServiceHttpError, String(err));
        assert.equal(err.headers.get("retry-after"), "7");
        assert.equal(err.headers.get("set-cookie"), null);
      } finally {
        await dispatcher.close();
      }
    });
  });

  describe("responses", () => {
    const client = () => new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });

    it("2xx with data and no errors resolves the data", async () => {
      const data = await client().request<{ post: { title: string; author: { name: string } } }>(
        '{ post(id: "1") { title author { name } } }',
      );
      assert.deepEqual(data, { post: { title: "Hello", author: { name: "Ada" } } });
    });

    it("partial data with errors: request throws ServiceGraphQLError carrying errors and the partial data", async () => {
      const err = await rejection(client().request("{ hello secret }"));
      assert.ok(err instanceof ServiceGraphQLError);
      assert.equal(err.code, "GRAPHQL_ERROR");
      assert.equal(err.errors.length, 1);
      assert.equal(err.errors[0]!.errorType, "Unauthorized");
      assert.deepEqual(err.errors[0]!.path, ["secret"]);
      assert.deepEqual(err.data, { hello: "world", secret: null });
      // The message names the server's first error, as peers' messages do: an uncaught one says what went wrong.
      assert.equal(err.message, "Unauthorized: Not Authorized to access secret on type Query");
    });

    it("a GraphQL error's message: errorType and message of the first, cut at 200 characters, and how many more", () => {
      const long = "x".repeat(300);
      const err = new ServiceGraphQLError([{ message: long }, { message: "b" }, { message: "c" }]);
      assert.equal(err.message, "x".repeat(200) + " (and 2 more)");
      assert.equal(new ServiceGraphQLError([{ message: "boom" }]).message, "boom");
      // Made by hand from JavaScript with no errors, or an error without a message: a message still.
      assert.equal(new ServiceGraphQLError([]).message, "GraphQL request failed");
      assert.equal(new ServiceGraphQLError([{} as never]).message, "undefined");
    });

    it("a GraphQL error's message never holds a value of the request's variables, even where the server quotes it", async () => {
      const err = await rejection(
        client().request("query Q($v: Int) { posts(limit: $v) { id } }", { v: "hunter2-secret" } as never),
      );
      assert.ok(err instanceof ServiceGraphQLError, String(err));
      assert.match(err.errors[0]!.message, /hunter2-secret/, "the server quoted it");
      assert.doesNotMatch(err.message, /hunter2/);
      assert.match(err.message, /…/);
      // Short values (a flag, a count) are left: cutting them would cut the server's words apart.
      const short = new ServiceGraphQLError([{ message: "Limit 10 is too high for ab" }], null, null, {
        n: 10,
        s: "ab",
      });
      assert.equal(short.message, "Limit 10 is too high for ab");
    });

    it("requestRaw returns {data, errors} for the same response without throwing", async () => {
      const result = await client().requestRaw<{ hello: string; secret: string | null }>("{ hello secret }");
      assert.deepEqual(result.data, { hello: "world", secret: null });
      assert.equal(result.errors?.[0]?.message, "Not Authorized to access secret on type Query");
    });

    it("requestRaw returns extensions when the server sends them", async () => {
      endpoint.route("ext", (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: { hello: "world" }, extensions: { cost: 3 } }));
      });
      const c = new ServiceClient({ url: endpoint.urlFor("ext"), auth: { type: "apiKey", apiKey: API_KEY } });
      assert.deepEqual(await c.requestRaw("{ hello }"), {
        data: { hello: "world" },
        extensions: { cost: 3 },
      });
    });

    it("request's ServiceGraphQLError keeps the extensions the server sent next to the errors", async () => {
      endpoint.route("ext-errors", (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          data: { hello: "world", secret: null },
          errors: [{ message: "Denied", errorType: "Unauthorized" }],
          extensions: { cost: 3 },
        }));
      });
      const c = new ServiceClient({
        url: endpoint.urlFor("ext-errors"),
        auth: { type: "apiKey", apiKey: API_KEY },
      });
      const err = await rejection(c.request("{ hello secret }"));
      assert.ok(err instanceof ServiceGraphQLError, String(err));
      assert.deepEqual(err.extensions, { cost: 3 });
      assert.deepEqual(err.data, { hello: "world", secret: null });
    });

    it("errors with data null: request throws; requestRaw returns data null", async () => {
      const err = await rejection(client().request("{ nope }"));
      assert.ok(err instanceof ServiceGraphQLError);
      assert.equal(err.data, null);
      const raw = await client().requestRaw("{ nope }");
      assert.equal(raw.data, null);
      assert.match(raw.errors![0]!.message, /nope/);
    });

    it("an empty errors array counts as no errors", async () => {
      endpoint.route("empty-errors", (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: { hello: "world" }, errors: [] }));
      });
      const c = new ServiceClient({
        url: endpoint.urlFor("empty-errors"),
        auth: { type: "apiKey", apiKey: API_KEY },
      });
      assert.deepEqual(await c.request("{ hello }"), { hello: "world" });
      // requestRaw agrees: the README's narrowing idiom (`if (result.errors)`) reads no failure.
      const raw = await c.requestRaw("{ hello }");
      assert.equal(raw.errors, undefined);
      assert.ok(!("errors" in raw));
    });

    it("query and mutate are aliases of request", async () => {
      const c = client();
      assert.deepEqual(await c.query("{ hello }"), { hello: "world" });
      const data = await c.mutate<{ addPost: { title: string } }, { t: string }>(
        "mutation Add($t: String!) { addPost(title: $t) { title } }",
        { t: "New" },
      );
      assert.deepEqual(data, { addPost: { title: "New" } });
    });

    it("a parsed DocumentNode (with loc) is printed from its definitions, with its single operation's name", async () => {
      const source = "# a comment\nquery Hello {\n  hello\n}";
      await client().request(parse(source));
      assert.deepEqual(JSON.parse(lastRequest().body), {
        query: "query Hello{hello}",
        operationName: "Hello",
      });
    });

    it("a DocumentNode without loc is printed, and the result runs on the endpoint", async () => {
      const document = parse('query P { post(id: "2") { title content } }', { noLocation: true });
      const data = await client().request(document);
      assert.deepEqual(data, { post: { title: "Héllo wörld ✓", content: null } });
      const sent = JSON.parse(lastRequest().body);
      assert.equal(sent.operationName, "P");
      assert.deepEqual(parse(sent.query, { noLocation: true }), document);
    });

    it("a DocumentNode with one anonymous operation is sent without an operationName", async () => {
      const data = await client().request(parse("{ hello }", { noLocation: true }));
      assert.deepEqual(data, { hello: "world" });
      assert.equal(JSON.parse(lastRequest().body).operationName, undefined);
    });

    it("a document with several operations sends no operationName unless the caller names one", async () => {
      const document = parse("query A { hello } query B { whoami }");
      const raw = await client().requestRaw(document);
      assert.equal(JSON.parse(lastRequest().body).operationName, undefined);
      assert.ok(raw.errors?.length, "the endpoint asks for an operation name");
      assert.deepEqual(await client().request(document, undefined, { operationName: "B" }), {
        whoami: "apiKey",
      });
    });

    it("a codegen TypedDocumentString (a String object) is sent as its text", async () => {
      class TypedDocumentString<TResult, TVariables> extends String {
        declare __apiType?: (variables: TVariables) => TResult;
        constructor(private value: string) {
          super(value);
        }
        override toString(): string {
          return this.value;
        }
      }
      const doc = new TypedDocumentString<{ echo: string }, { m: string }>(
        "query E($m: String!) { echo(message: $m) }",
      );
      const data = await client().request(doc, { m: "typed" });
      assert.equal(data.echo, "typed");
    });
  });
});
