/**
 * `RealtimeClient` against a local server that follows the service's real-time guide
 * (`_realtime_server.ts`, through `_realtime_harness.ts`): auth in the subprotocol and in the query,
 * the five auth modes, the real-time URL, one socket for several subscriptions, `stop` and the
 * unsubscribe race, refused starts and the 100-subscription limit, `listen()`, frames that are
 * malformed, a WebSocket constructor that throws, the arguments' checks, and secrets kept out of URLs
 * and errors. Timeouts, reconnects and failing getters: `realtime_recovery_test.ts`.
 *
 * Runs under Deno, Bun and Node 22+ with their global `WebSocket`, and under Node 18 and 20 with the
 * `ws` package.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAbortError, ServiceClient, ServiceGraphQLError } from "../mod.ts";
import { type ConnectionState, RealtimeClient, type WebSocketConstructor } from "../src/realtime.ts";
import type { AuthOptions } from "../src/auth.ts";
import {
  API_KEY,
  clientTimers,
  MALFORMED,
  pause,
  realtimeOf,
  RuntimeWebSocket,
  server,
  startsOn,
  useRealtimeServer,
  within,
} from "./_realtime_harness.ts";
import { SignatureV4 } from "@smithy/signature-v4";
import { Hash } from "@smithy/hash-node";

describe("RealtimeClient", () => {
  useRealtimeServer();

  it("subscribes with the API key in the subprotocol, receives data, and break sends stop", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe<{ onPost: { id: string } }>("subscription { onPost { id } }");
    const first = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.equal(connection.path, "/graphql/realtime");
    assert.deepEqual(connection.protocols[0], "graphql-ws");
    assert.match(connection.protocols[1]!, /^header-[A-Za-z0-9_-]+$/);
    assert.deepEqual(connection.header, {
      ...connection.header,
      host: new URL(server.url).host,
      "x-api-key": API_KEY,
    });
    assert.equal(connection.received[0]!.type, "connection_init");
    const start = startsOn(0)[0]!;
    assert.deepEqual(JSON.parse(start.payload.data), { query: "subscription { onPost { id } }" });
    assert.equal(start.payload.extensions.authorization["x-api-key"], API_KEY);
    assert.equal(start.payload.extensions.authorization.host, new URL(server.url).host);

    server.publish({ data: { onPost: { id: "1" } } });
    assert.deepEqual(await within(first, "the first event"), { value: { onPost: { id: "1" } }, done: false });
    server.publish({ data: { onPost: { id: "2" } } });
    for await (const data of events) {
      assert.deepEqual(data, { onPost: { id: "2" } });
      break;
    }
    await server.until(() => connection.received.some((m) => m.type === "stop"), "the stop");
    const stop = connection.received.find((m) => m.type === "stop")!;
    assert.equal(stop.id, start.id);
    assert.equal(connection.live.size, 0);
    assert.deepEqual(await within(events.next(), "the end"), { value: undefined, done: true });
  });

  it("sends a key or token trimmed, as fetch sends it over HTTP (an environment variable's stray space)", async () => {
    const realtime = realtimeOf({ type: "apiKey", apiKey: ` ${API_KEY}\t` });
    realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    assert.equal(server.connections[0]!.header!["x-api-key"], API_KEY);
    assert.equal(startsOn(0)[0]!.payload.extensions.authorization["x-api-key"], API_KEY);
  });

  it("closes the idle socket about a second after the last subscription ends", async () => {
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(undefined, { onStateChange: (state: ConnectionState) => states.push(state) });
    const events = realtime.subscribe("subscription { onPost { id } }");
    const pending = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    assert.equal(realtime.state, "connected");
    await events.return();
    assert.deepEqual(await within(pending, "the end of the waiting read"), { value: undefined, done: true });
    const ended = Date.now();
    await server.until(() => server.connections[0]!.closed, "the close");
    assert.ok(Date.now() - ended >= 900, "closed before the idle delay");
    assert.deepEqual(states, ["connecting", "connected", "closed"]);
  });

  it("keeps the idle socket for a subscription that comes within that second, however slow its start", async () => {
    // Calls: 1 the socket's token, 2 the first start's, 3 the second start's, which takes 1.2 s.
    let calls = 0;
    const auth: AuthOptions = {
      type: "lambda",
      authorizationToken: async () => {
        if (++calls == 3) await pause(1_200);
        return `token-${calls}`;
      },
    };
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(auth, { onStateChange: (state: ConnectionState) => states.push(state) });
    const first = realtime.subscribe("subscription { onPost { id } }");
    first.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the first start");
    await first.return();
    await pause(500);
    const second = realtime.subscribe("subscription { onComment { id } }");
    const next = second.next();
    await server.until(() => startsOn(0).length === 2, "the second start, on the same socket");
    assert.equal(server.connections.length, 1);
    assert.equal(server.connections[0]!.closed, false, "the socket closed under the second subscription");
    server.publish({ data: { n: 1 } });
    assert.deepEqual(await within(next, "the event"), { value: { n: 1 }, done: false });
    assert.deepEqual(states, ["connecting", "connected"]);
  });

  it("puts the credentials in the query with authIn: query, and only there", async () => {
    const realtime = realtimeOf(undefined, { authIn: "query" });
    const events = realtime.subscribe("subscription { onPost { id } }");
    events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.deepEqual(connection.protocols, ["graphql-ws"]);
    assert.match(connection.path, /^\/graphql\/realtime\?header=[^&]+&payload=e30=$/);
    assert.equal(connection.header!["x-api-key"], API_KEY);
  });

  it("authIn: query adds its parameters to a URL that has a query already", async () => {
    const realtime = realtimeOf(undefined, { authIn: "query" }, server.url + "?stage=prod");
    realtime.subscribe("subscription { onPost { id } }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    assert.match(connection.path, /^\/graphql\/realtime\?stage=prod&header=[^&]+&payload=e30=$/);
    assert.equal(connection.header!["x-api-key"], API_KEY);
  });

  it("derives the real-time URL: a standard endpoint's realtime host, else /realtime before the query", async () => {
    const cases = [
      [
        "https://abc123.appsync-api.us-east-1.amazonaws.com/graphql",
        "wss://abc123.appsync-realtime-api.us-east-1.amazonaws.com/graphql",
      ],
      [
        "https://abc123.appsync-api.cn-north-1.amazonaws.com.cn/graphql",
        "wss://abc123.appsync-realtime-api.cn-north-1.amazonaws.com.cn/graphql",
      ],
      // Any case: the client's URL is normalized, so the host is the standard one.
      [
        "HTTPS://ABC123.APPSYNC-API.EU-WEST-1.AMAZONAWS.COM/graphql",
        "wss://abc123.appsync-realtime-api.eu-west-1.amazonaws.com/graphql",
      ],
      [
        "https://ABC123.AppSync-Api.CN-NORTHWEST-1.AmazonAWS.com.CN/graphql",
        "wss://abc123.appsync-realtime-api.cn-northwest-1.amazonaws.com.cn/graphql",
      ],
      [
        "https://abc123.appsync-api.us-east-1.amazonaws.com/graphql?stage=prod",
        "wss://abc123.appsync-realtime-api.us-east-1.amazonaws.com/graphql?stage=prod",
      ],
      ["https://api.example.com/graphql", "wss://api.example.com/graphql/realtime"],
      ["https://api.example.com/graphql?stage=prod", "wss://api.example.com/graphql/realtime?stage=prod"],
      // Custom domains that merely look like the standard host: no such realtime host exists for them.
      ["https://abc.appsync-api.example.com/graphql", "wss://abc.appsync-api.example.com/graphql/realtime"],
      [
        "https://abc.appsync-api.us-east-1.amazonaws.com.example.net/graphql",
        "wss://abc.appsync-api.us-east-1.amazonaws.com.example.net/graphql/realtime",
      ],
      [
        "https://abc.appsync-api.us-east-1.amazonaws.community/graphql",
        "wss://abc.appsync-api.us-east-1.amazonaws.community/graphql/realtime",
      ],
      ["http://127.0.0.1:8080/v1/graphql", "ws://127.0.0.1:8080/v1/graphql/realtime"],
    ];
    for (const [graphql, expected] of cases) {
      // These hosts cannot be reached from a test: a constructor that records the URL, then refuses it.
      const urls: string[] = [];
      const webSocket = function (url: string) {
        urls.push(url);
        throw new SyntaxError("refused by the test");
      } as unknown as WebSocketConstructor;
      const client = new ServiceClient({ url: graphql!, auth: { type: "apiKey", apiKey: API_KEY } });
      const realtime = new RealtimeClient(client, { webSocket });
      await assert.rejects(within(realtime.subscribe("subscription { a }").next(), "the refusal"), {
        code: "INVALID_ARGUMENT",
      });
      assert.deepEqual(urls, [expected], graphql);
    }
  });

  it("never puts credentials in the URL by default, in any mode", async () => {
    const modes: AuthOptions[] = [
      { type: "apiKey", apiKey: API_KEY },
      { type: "userpool", jwtToken: "jwt-user-pool-token" },
      { type: "oidc", jwtToken: () => "jwt-oidc-token" },
      { type: "lambda", authorizationToken: () => Promise.resolve("lambda-token") },
      {
        type: "iam",
        region: "us-east-1",
        credentials: {
          accessKeyId: "AKIDEXAMPLE",
          secretAccessKey: "secret-access-key",
          sessionToken: "session",
        },
      },
    ];
    for (const [index, auth] of modes.entries()) {
      const events = realtimeOf(auth).subscribe("subscription { onPost { id } }");
      events.next();
      await server.until(() => server.connections[index]?.live.size === 1, `the start of ${auth.type}`);
      const connection = server.connections[index]!;
      assert.equal(connection.path, "/graphql/realtime", auth.type);
      const start = startsOn(index)[0]!;
      const { authorization } = start.payload.extensions;
      if (auth.type === "userpool" || auth.type === "oidc" || auth.type === "lambda") {
        const token = auth.type === "lambda"
          ? "lambda-token"
          : `jwt-${auth.type === "oidc" ? "oidc" : "user-pool"}-token`;
        assert.equal(connection.header!.authorization, token);
        assert.equal(authorization.authorization, token);
      }
      if (auth.type === "iam") {
        for (const header of [connection.header!, authorization]) {
          assert.match(
            header.authorization,
            /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/appsync\/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
          );
          assert.equal(header["x-amz-security-token"], "session");
          assert.equal(header.host, new URL(server.url).host);
        }
        // The connection is signed for POST /graphql/connect with body {}, each start for its own data.
        assert.notEqual(connection.header!.authorization, authorization.authorization);
      }
      await events.return();
    }
  });

  for (const query of ["", "?stage=prod"]) {
    it(`iam: signs the connection as POST /graphql/connect${query} with body {}, and each start for its data`, async () => {
      const credentials = {
        accessKeyId: "AKIDEXAMPLE",
        secretAccessKey: "secret-access-key",
        sessionToken: "session",
      };
      const realtime = realtimeOf({ type: "iam", region: "eu-west-1", credentials }, {}, server.url + query);
      const events = realtime.subscribe("subscription On($id: ID) { onPost(id: $id) { id } }", { id: "7" });
      events.next();
      await server.until(() => server.connections[0]?.live.size === 1, "the start");
      assert.equal(server.connections[0]!.path, "/graphql/realtime" + query);
      const graphql = new URL(server.url);
      /** The Authorization header smithy computes for a POST of `body` to `path`, at the header's date. */
      const smithy = async (path: string, body: string, sent: Record<string, string>) => {
        const signer = new SignatureV4({
          service: "appsync",
          region: "eu-west-1",
          credentials,
          sha256: Hash.bind(null, "sha256"),
          applyChecksum: false,
        });
        const date = sent["x-amz-date"]!.replace(
          /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
          "$1-$2-$3T$4:$5:$6Z",
        );
        const signed = await signer.sign({
          method: "POST",
          protocol: graphql.protocol,
          hostname: graphql.hostname,
          port: Number(graphql.port),
          path,
          query: query ? { stage: "prod" } : {},
          headers: {
            accept: sent.accept!,
            "content-encoding": sent["content-encoding"]!,
            "content-type": sent["content-type"]!,
            host: graphql.host,
          },
          body,
        }, { signingDate: new Date(date) });
        return signed.headers.authorization;
      };
      const connect = server.connections[0]!.header!;
      assert.equal(connect.authorization, await smithy("/graphql/connect", "{}", connect));
      const start = startsOn(0)[0]!;
      const authorization = start.payload.extensions.authorization;
      assert.equal(authorization.authorization, await smithy("/graphql", start.payload.data, authorization));
      // Signed with the headers the service's guide gives for its real-time endpoint.
      for (const sent of [connect, authorization]) {
        assert.deepEqual(
          [sent.accept, sent["content-encoding"], sent["content-type"]],
          ["application/json, text/javascript", "amz-1.0", "application/json; charset=UTF-8"],
        );
      }
    });
  }

  it("multiplexes two subscriptions on one socket, each with its own start and id", async () => {
    const realtime = realtimeOf();
    const a = realtime.subscribe<{ n: number }, { x: number }>("subscription A($x: Int) { a(x: $x) }", {
      x: 1,
    });
    const b = realtime.subscribe("subscription B { b }");
    const [nextA, nextB] = [a.next(), b.next()];
    await server.until(() => server.connections[0]?.live.size === 2, "two starts");
    assert.equal(server.connections.length, 1);
    const [startA, startB] = startsOn(0);
    assert.notEqual(startA!.id, startB!.id);
    assert.deepEqual(JSON.parse(startA!.payload.data).variables, { x: 1 });
    server.publish({ data: { n: 7 } });
    assert.deepEqual((await within(nextA, "a's event")).value, { n: 7 });
    assert.deepEqual((await within(nextB, "b's event")).value, { n: 7 });
    await a.return();
    await server.until(() => server.connections[0]!.live.size === 1, "a's stop");
    assert.ok(server.connections[0]!.live.has(startB!.id));
  });

  it("sends stop when the start_ack of an ended subscription arrives, never losing it", async () => {
    server.behaviour.holdStartAcks = true;
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const pending = events.next();
    await server.until(() => startsOn(0).length === 1, "the start");
    await events.return();
    assert.deepEqual(await within(pending, "the end of the waiting read"), { value: undefined, done: true });
    // Another start, sent after return(): once it arrives, any stop sent at return() would have too.
    realtime.subscribe("subscription { other }").next();
    await server.until(() => startsOn(0).length === 2, "the other start");
    assert.equal(server.connections[0]!.received.some((m) => m.type === "stop"), false);
    server.ackHeld();
    await server.until(() => server.connections[0]!.received.some((m) => m.type === "stop"), "the late stop");
    const [first, other] = startsOn(0);
    assert.equal(server.connections[0]!.received.find((m) => m.type === "stop")!.id, first!.id);
    assert.deepEqual([...server.connections[0]!.live.keys()], [other!.id]);
  });

  it("never authorizes or starts a subscription ended before its document was ready", async () => {
    let calls = 0;
    const realtime = realtimeOf({ type: "userpool", jwtToken: () => `jwt-${++calls}` });
    realtime.subscribe("subscription { first }").next();
    await server.until(() => server.connections[0]?.live.size === 1, "the first start");
    assert.equal(calls, 2); // the socket's, the first start's
    // Ended in the same tick, before its document is prepared (a microtask later), on a connected socket.
    const early = realtime.subscribe("subscription { early }");
    await early.return();
    const later = realtime.subscribe("subscription { later }");
    later.next();
    await server.until(() => server.connections[0]!.live.size === 2, "the later start");
    assert.equal(calls, 3, "a getter was called for the ended subscription");
    assert.deepEqual(startsOn(0).map((start) => JSON.parse(start.payload.data).query), [
      "subscription { first }",
      "subscription { later }",
    ]);
  });

  it("never sends the start of a subscription ended while its socket was still connecting", async () => {
    // The socket's token comes after 200 ms: both subscriptions wait for the socket meanwhile.
    let calls = 0;
    const realtime = realtimeOf({
      type: "userpool",
      jwtToken: () => ++calls == 1 ? pause(200).then(() => "jwt-1") : `jwt-${calls}`,
    });
    const early = realtime.subscribe("subscription { early }");
    const ended = early.next();
    const later = realtime.subscribe("subscription { later }");
    later.next();
    await pause(50);
    assert.equal(realtime.state, "connecting");
    assert.equal(server.connections.length, 0, "no socket yet");
    await early.return();
    assert.deepEqual(await within(ended, "the ended one's read"), { value: undefined, done: true });
    await server.until(() => server.connections[0]?.live.size === 1, "the later start");
    await pause(100); // time for a start that should not come
    const starts = server.connections.flatMap((connection) =>
      connection.received.filter((m) => m.type === "start")
    );
    assert.deepEqual(starts.map((start) => JSON.parse(start.payload.data).query), ["subscription { later }"]);
  });

  it("drops the events not read when the caller ends the subscription", async () => {
    const realtime = realtimeOf();
    const unread = realtime.subscribe("subscription { onPost { id } }");
    const first = unread.next();
    const reader = realtime.subscribe("subscription { onPost { id } }");
    await server.until(() => server.connections[0]?.live.size === 2, "both starts");
    for (const n of [1, 2, 3]) server.publish({ data: { n } });
    // Once the other subscription reads a later event, the first one has received 1 to 3 on the same
    // socket: the server wrote them before it.
    for (const n of [1, 2, 3]) {
      assert.deepEqual(await within(reader.next(), `event ${n}`), { value: { n }, done: false });
    }
    server.publish({ data: { n: 4 } });
    assert.deepEqual(await within(reader.next(), "event 4"), { value: { n: 4 }, done: false });
    assert.deepEqual(await within(first, "the first event"), { value: { n: 1 }, done: false });
    await unread.return();
    assert.deepEqual(
      await within(unread.next(), "the end"),
      { value: undefined, done: true },
      "events 2 to 4 dropped",
    );
    await reader.return();
  });

  it("throws a GraphQL error for a refused start, and the other subscriptions go on", async () => {
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException", message: "Not authorized" }] }
        : undefined;
    const realtime = realtimeOf();
    const refused = realtime.subscribe("subscription { secret }");
    const fine = realtime.subscribe("subscription { onPost { id } }");
    const next = fine.next();
    await assert.rejects(within(refused.next(), "the refusal"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError);
      assert.equal(error.errors[0]!.errorType, "UnauthorizedException");
      return true;
    });
    await server.until(() => server.connections[0]?.live.size === 1, "the other start");
    server.publish({ data: { ok: true } });
    assert.deepEqual((await within(next, "the other's event")).value, { ok: true });
    assert.equal(server.connections.length, 1);
  });

  it("gives the 101st subscription on a socket a typed error, and only that one", async () => {
    const realtime = realtimeOf();
    const all = Array.from({ length: 101 }, () => realtime.subscribe("subscription { onPost { id } }"));
    const results = all.map((events) => events.next().then((value) => ({ value }), (error) => ({ error })));
    await server.until(() => startsOn(0).length === 101, "101 starts");
    server.publish({ data: { n: 1 } });
    const settled = await within(Promise.all(results), "101 events or errors");
    const failed = settled.filter((result) => "error" in result);
    assert.equal(failed.length, 1);
    const { error } = failed[0] as { error: ServiceGraphQLError };
    assert.ok(error instanceof ServiceGraphQLError);
    assert.equal(error.errors[0]!.errorType, "MaxSubscriptionsReachedError");
    assert.equal(settled.filter((result) => "value" in result).length, 100);
  });

  const ERROR_SHAPES: ReadonlyArray<[string, unknown, unknown[]]> = [
    ["a list", [{ message: "Denied", path: ["secret"] }], [{ message: "Denied", path: ["secret"] }]],
    [
      "one object, not a list",
      { errorType: "ResolverError", message: "Denied" },
      [{ errorType: "ResolverError", message: "Denied" }],
    ],
  ];
  for (const [shape, sent, errors] of ERROR_SHAPES) {
    it(`throws an event's GraphQL errors (${shape}) with its data, and stops the subscription`, async () => {
      const realtime = realtimeOf();
      const events = realtime.subscribe("subscription { onPost { id secret } }");
      const next = events.next();
      await server.until(() => server.connections[0]?.live.size === 1, "the start");
      server.publish({ data: { onPost: { id: "1", secret: null } }, errors: sent });
      await assert.rejects(within(next, "the event's error"), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.deepEqual(error.errors, errors);
        assert.deepEqual(error.data, { onPost: { id: "1", secret: null } });
        return true;
      });
      await server.until(() => server.connections[0]!.live.size === 0, "the stop");
      assert.deepEqual(await within(events.next(), "the end"), { value: undefined, done: true });
      assert.equal(realtime.state, "connected");
    });
  }

  it("cuts the variables out of the message of a refused start's error and of an event's, as request() does", async () => {
    const SECRET = "alice@example.com-sentinel";
    const quoting = (data: string) => [{
      errorType: "ValidationError",
      message: `Variable 'author' has an invalid value: ${JSON.parse(data).variables.author}`,
    }];
    server.behaviour.refuseStart = (start) =>
      start.id == "1" ? { errors: quoting(start.payload.data) } : undefined;
    const realtime = realtimeOf();
    const document = "subscription S($author: String) { onPost(author: $author) { id } }";
    const refused = realtime.subscribe(document, { author: SECRET }).next();
    const events = realtime.subscribe(document, { author: SECRET });
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the second start");
    const [start] = [...server.connections[0]!.live.values()];
    server.publish({ data: null, errors: quoting(start!.payload.data) });
    for (const pending of [refused, next]) {
      await assert.rejects(within(pending, "the error"), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError);
        assert.ok(error.errors[0]!.message.includes(SECRET), "the service's own words keep it");
        assert.equal(error.message, "ValidationError: Variable 'author' has an invalid value: …");
        return true;
      });
    }
  });

  it("starts with the variables as they were when subscribe was called", async () => {
    const realtime = realtimeOf();
    const variables: Record<string, unknown> = { author: "alice" };
    realtime.subscribe("subscription S($author: String) { onPost(author: $author) { id } }", variables)
      .next();
    variables.author = "bob";
    variables.self = variables;
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const [start] = [...server.connections[0]!.live.values()];
    assert.deepEqual(JSON.parse(start!.payload.data).variables, { author: "alice" });
    realtime.close();
  });

  it("cuts the variables out as they were sent, whatever the app does with its object since", async () => {
    const SECRET = "alice@example.com-sentinel";
    const realtime = realtimeOf();
    const variables: Record<string, unknown> = { author: SECRET };
    const events = realtime.subscribe(
      "subscription S($author: String) { onPost(author: $author) { id } }",
      variables,
    );
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    // A value replaced, and a back-reference that no longer serializes (a store's entry, say).
    variables.author = "bob";
    variables.self = variables;
    server.publish({
      data: null,
      errors: [{
        errorType: "ValidationError",
        message: `Variable 'author' has an invalid value: ${SECRET}`,
      }],
    });
    await assert.rejects(within(next, "the error"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.message, "ValidationError: Variable 'author' has an invalid value: …");
      return true;
    });
    assert.deepEqual(await within(events.next(), "the end"), { value: undefined, done: true });
    await server.until(() => server.connections[0]?.live.size === 0, "the stop");
  });

  it("cuts the key out of the message of a refused start's error", async () => {
    server.behaviour.refuseStart = (start) => ({
      errors: [{
        errorType: "UnauthorizedException",
        message: `Key ${start.payload.extensions.authorization["x-api-key"]}`,
      }],
    });
    const next = realtimeOf().subscribe("subscription { onPost { id } }").next();
    await assert.rejects(within(next, "the refused start"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.errors[0]!.message, `Key ${API_KEY}`, "the service's own words keep it");
      assert.equal(error.message, "UnauthorizedException: Key …");
      return true;
    });
  });

  it("cuts the key or token the socket connected with out of a connection error's message, final or not", async () => {
    // Final: the refusal ends the subscription at once. Not final (a 500): after the fifth socket.
    clientTimers((ms) => ms < 5_000 && ms != 1_000 ? 5 : ms);
    for (const errorCode of [401, 500]) {
      server.behaviour.refuseConnect = (connection) => ({
        errors: [{
          errorCode,
          message: `Key ${connection.header?.["x-api-key"]} at ${connection.header?.host}`,
        }],
      });
      const next = realtimeOf().subscribe("subscription { onPost { id } }").next();
      await assert.rejects(within(next, `the refusal ${errorCode}`), (error: unknown) => {
        assert.ok(error instanceof ServiceGraphQLError, String(error));
        assert.match(
          error.errors[0]!.message,
          new RegExp(`^Key ${API_KEY} at `),
          "the service's own words keep it",
        );
        assert.equal(error.message, "Key … at …");
        return true;
      });
    }
  });

  it("cuts each start's own token out of its error, when every start reads a fresh one", async () => {
    let calls = 0;
    const auth: AuthOptions = { type: "lambda", authorizationToken: () => `token-${++calls}-sentinel` };
    server.behaviour.refuseStart = (start) =>
      start.id == "1"
        ? {
          errors: [{
            errorType: "Unauthorized",
            message: `Refused ${start.payload.extensions.authorization.authorization}`,
          }],
        }
        : undefined;
    const realtime = realtimeOf(auth);
    const first = realtime.subscribe("subscription { a }").next();
    realtime.subscribe("subscription { b }").next().catch(() => {}); // its start reads the next token
    await assert.rejects(within(first, "the refused start"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.match(
        error.errors[0]!.message,
        /^Refused token-\d-sentinel$/,
        "the service's own words keep it",
      );
      assert.equal(error.message, "Unauthorized: Refused …");
      return true;
    });
    assert.equal(calls, 3, "the socket's token, then one per start");
  });

  it("ends a subscription with its signal (a ServiceAbortError), sending stop", async () => {
    const controller = new AbortController();
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }", undefined, {
      signal: controller.signal,
    });
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    controller.abort(new Error("left the page"));
    await assert.rejects(within(next, "the abort"), { code: "ABORTED", reason: "abort" });
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("listen(): calls back with each event and the error that ends it, and its return value sends stop", async () => {
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException", message: "Not authorized" }] }
        : undefined;
    const realtime = realtimeOf();
    const received: unknown[] = [];
    const errors: unknown[] = [];
    let twoEvents: () => void;
    const both = new Promise<void>((resolve) => twoEvents = resolve);
    const stop = realtime.listen<{ n: number }>("subscription { n }", undefined, (data) => {
      if (received.push(data) === 2) twoEvents();
    }, (error) => errors.push(error));
    const refused = new Promise((resolve) =>
      realtime.listen("subscription { secret }", undefined, () => {}, resolve)
    );
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    server.publish({ data: { n: 2 } });
    await within(both, "the two events");
    assert.deepEqual(received, [{ n: 1 }, { n: 2 }]);
    assert.ok(await within(refused, "the refusal") instanceof ServiceGraphQLError);
    stop();
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
    assert.deepEqual(errors, []);
  });

  it("listen(): an error thrown by onData goes to onError and ends the subscription", async () => {
    const realtime = realtimeOf();
    const thrown = new Error("a bug in the callback");
    const caught = new Promise((resolve) =>
      realtime.listen("subscription { n }", undefined, () => {
        throw thrown;
      }, resolve)
    );
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    assert.equal(await within(caught, "the error"), thrown);
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("listen(): an async onData is awaited in order, and its rejection goes to onError and ends it", async () => {
    const realtime = realtimeOf();
    const handled: number[] = [];
    const rejected = new Error("a failed write");
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => releaseFirst = resolve);
    const caught = new Promise((resolve) =>
      realtime.listen<{ n: number }>("subscription { n }", undefined, async ({ n }) => {
        if (n === 1) await firstHeld;
        handled.push(n);
        if (n === 2) throw rejected;
      }, resolve)
    );
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: { n: 1 } });
    server.publish({ data: { n: 2 } });
    // The second event waits for the first handler, which is still pending.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(handled, []);
    releaseFirst();
    assert.equal(await within(caught, "the rejection"), rejected);
    assert.deepEqual(handled, [1, 2]);
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("refuses unknown options and bad arguments with INVALID_ARGUMENT", async () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    assert.throws(
      () => new RealtimeClient(client, { webSocket: RuntimeWebSocket, authin: "query" } as never),
      { code: "INVALID_ARGUMENT", message: /`authin`/ },
    );
    assert.throws(() => new RealtimeClient(client, { webSocket: RuntimeWebSocket, authIn: "url" as never }), {
      code: "INVALID_ARGUMENT",
    });
    assert.throws(
      () => new RealtimeClient(client, { webSocket: RuntimeWebSocket, url: "https://x/graphql" }),
      {
        code: "INVALID_ARGUMENT",
      },
    );
    // Anything but a ServiceClient of this copy: a client of the package's other build says so too.
    assert.throws(() => new RealtimeClient({} as never), {
      code: "INVALID_ARGUMENT",
      message: /a ServiceClient of another copy of the package \(its ESM and CommonJS builds do not mix\)$/,
    });
    assert.throws(() => new RealtimeClient(client, { webSocket: 42 as never }), {
      code: "INVALID_ARGUMENT",
      message: "Invalid webSocket: expected a function, current value is 42",
    });
    assert.throws(
      () => new RealtimeClient(client, { webSocket: RuntimeWebSocket, onStateChange: "log" as never }),
      {
        code: "INVALID_ARGUMENT",
        message: "Invalid onStateChange: expected a function, current value is a string",
      },
    );
    // No callback given as `false` (`{ onStateChange: debug && log }`), as with null or undefined.
    new RealtimeClient(client, { webSocket: RuntimeWebSocket, onStateChange: false }).close();
    const realtime = realtimeOf();
    await assert.rejects(
      within(realtime.subscribe("subscription { a }", undefined, { sginal: 1 } as never).next(), "a refusal"),
      { code: "INVALID_ARGUMENT", message: /`sginal`/ },
    );
    await assert.rejects(within(realtime.subscribe("subscription { a }", [1] as never).next(), "a refusal"), {
      code: "INVALID_ARGUMENT",
    });
    await assert.rejects(within(realtime.subscribe("  ").next(), "the document's refusal"), {
      code: "INVALID_ARGUMENT",
    });
    assert.equal(server.connections.length, 0);
  });

  it("ignores frames that are not objects, and ends a subscription with an event that is not one", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const first = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    const connection = server.connections[0]!;
    for (const text of ["null", "42", '"ka"', "[]", "not JSON", '{"type":"data","id":null}']) {
      connection.sendText(text);
    }
    server.publish({ data: { n: 1 } });
    assert.deepEqual((await within(first, "the event")).value, { n: 1 });
    connection.send({ type: "data", id: startsOn(0)[0]!.id, payload: null });
    await assert.rejects(within(events.next(), "the malformed event's error"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError);
      assert.deepEqual(error.errors, [{ message: MALFORMED }]);
      return true;
    });
    assert.equal(realtime.state, "connected");
  });

  it("ends a subscription with an event whose data is null (and no errors): its type promises data", async () => {
    const realtime = realtimeOf();
    const events = realtime.subscribe("subscription { onPost { id } }");
    const next = events.next();
    await server.until(() => server.connections[0]?.live.size === 1, "the start");
    server.publish({ data: null });
    await assert.rejects(within(next, "the malformed event's error"), (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.deepEqual(error.errors, [{ message: MALFORMED }]);
      return true;
    });
    await server.until(() => server.connections[0]!.live.size === 0, "the stop");
  });

  it("gives errors without a message a typed error: a connection_error's, a start's, an event's", async () => {
    /** Checks a GraphQL error built from an error with `errorType` but no message. */
    const typed = (errorType: string) => (error: unknown) => {
      assert.ok(error instanceof ServiceGraphQLError, String(error));
      assert.equal(error.errors[0]!.errorType, errorType);
      assert.equal(typeof error.errors[0]!.message, "string");
      assert.equal(error.message, `${errorType}: ${MALFORMED}`);
      return true;
    };
    // A final connection_error as the service words it (errorType and errorCode): no reconnect.
    server.behaviour.refuseConnect = () => ({
      errors: [{ errorType: "UnauthorizedException", errorCode: 401 }],
    });
    const refused = realtimeOf();
    const [a, b] = [refused.subscribe("subscription { a }"), refused.subscribe("subscription { b }")];
    await assert.rejects(within(a.next(), "a's refusal"), typed("UnauthorizedException"));
    await assert.rejects(within(b.next(), "b's refusal"), typed("UnauthorizedException"));
    assert.equal(server.connections.length, 1);
    assert.equal(refused.state, "closed");

    delete server.behaviour.refuseConnect;
    server.behaviour.refuseStart = (start) =>
      JSON.parse(start.payload.data).query.includes("secret")
        ? { errors: [{ errorType: "UnauthorizedException" }] }
        : undefined;
    const realtime = realtimeOf();
    const secret = realtime.subscribe("subscription { secret }");
    const fine = realtime.subscribe("subscription { onPost { id } }");
    const next = fine.next();
    await assert.rejects(within(secret.next(), "the refused start"), typed("UnauthorizedException"));
    await server.until(() => server.connections[1]?.live.size === 1, "the other start");
    server.publish({ data: null, errors: [{ errorType: "ResolverError", errorInfo: null }] });
    await assert.rejects(within(next, "the event's error"), typed("ResolverError"));
  });

  it("ends the subscriptions with INVALID_ARGUMENT when the WebSocket constructor throws, once", async () => {
    let calls = 0;
    class Refusing {
      constructor(url: string) {
        calls++;
        // As a runtime words it, the URL quoted: credentials and all with authIn "query".
        throw new SyntaxError(`The URL '${url}' is refused`);
      }
    }
    const realtime = realtimeOf(undefined, { webSocket: Refusing, authIn: "query" });
    const [a, b] = [realtime.subscribe("subscription { a }"), realtime.subscribe("subscription { b }")];
    for (const events of [a, b]) {
      await assert.rejects(within(events.next(), "an error from the iterator"), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.equal((error as { code?: string }).code, "INVALID_ARGUMENT");
        assert.equal(error.message, "new WebSocket() threw SyntaxError");
        const shown = [error.message, error.stack, String(error.cause)].join(" ");
        assert.equal(shown.includes(btoa(API_KEY).slice(0, 12)), false);
        return true;
      });
    }
    assert.equal(calls, 1);
    assert.equal(realtime.state, "closed");
  });

  it("checks the real-time URL, given or derived, when constructed", () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    const refused = (error: unknown) => {
      assert.equal((error as { code?: string }).code, "INVALID_ARGUMENT");
      assert.match((error as Error).message, /^Invalid url: expected a ws: or wss: URL without a fragment/);
      assert.equal((error as Error).message.includes("da2-in-url"), false);
      return true;
    };
    for (
      const url of [
        "ws://127.0.0.1/graphql/realtime#main",
        "wss://example.com/graphql/realtime?key=da2-in-url#",
        "ws://127.0.0.1:99999/graphql/realtime",
        "wss://",
        "https://example.com/graphql/realtime",
        "/graphql/realtime",
      ]
    ) {
      assert.throws(() => new RealtimeClient(client, { webSocket: RuntimeWebSocket, url }), refused, url);
    }
    // The client's URL with a fragment (fetch drops it): the derived one would have it in its path.
    const withFragment = new ServiceClient({
      url: server.url + "#main",
      auth: { type: "apiKey", apiKey: API_KEY },
    });
    assert.throws(() => new RealtimeClient(withFragment, { webSocket: RuntimeWebSocket }), refused);
    assert.equal(server.connections.length, 0);
  });

  it("listen() checks onData and onError, and opens nothing without them", () => {
    const realtime = realtimeOf();
    assert.throws(() => realtime.listen("subscription { a }", undefined, () => {}, undefined as never), {
      code: "INVALID_ARGUMENT",
      message: /^Invalid onError: expected a function/,
    });
    assert.throws(() => realtime.listen("subscription { a }", undefined, "log" as never, () => {}), {
      code: "INVALID_ARGUMENT",
      message: /^Invalid onData: expected a function/,
    });
    assert.equal(server.connections.length, 0);
  });

  it("refuses a bad signal from the iterator, never from subscribe() itself", async () => {
    const realtime = realtimeOf();
    for (const signal of [{}, { addEventListener() {} }, 42]) {
      const events = realtime.subscribe("subscription { a }", undefined, { signal } as never);
      await assert.rejects(within(events.next(), "the signal's refusal"), {
        code: "INVALID_ARGUMENT",
        message: /signal: expected an AbortSignal/,
      });
    }
    assert.equal(server.connections.length, 0);
  });

  it("refuses the variables request() refuses, with the same message", async () => {
    const client = new ServiceClient({ url: server.url, auth: { type: "apiKey", apiKey: API_KEY } });
    const realtime = realtimeOf();
    for (const variables of [new Map([["id", "1"]]), new Date(0), { id: "1", toJSON: () => ({}) }, [1], 7]) {
      const refused = await client.request("query Q($id: ID) { post(id: $id) }", variables as never).then(
        () => assert.fail("request() took the variables"),
        (error: Error) => error,
      );
      const events = realtime.subscribe(
        "subscription S($id: ID) { onPost(id: $id) { id } }",
        variables as never,
      );
      await assert.rejects(within(events.next(), "the variables' refusal"), {
        code: "INVALID_ARGUMENT",
        message: refused.message,
      });
    }
    assert.equal(server.connections.length, 0);
  });

  it("holds one abort listener on a signal that twelve subscriptions share", async () => {
    const { controller, signal, listeners } = countedSignal();
    const realtime = realtimeOf();
    const all = Array.from(
      { length: 12 },
      (_, i) => realtime.subscribe(`subscription { on${i} }`, undefined, { signal }),
    );
    const results = all.map((events) => events.next().then(() => "data", (error) => error));
    await server.until(() => server.connections[0]?.live.size === 12, "twelve starts");
    assert.equal(listeners(), 1);
    controller.abort();
    for (const error of await within(Promise.all(results), "twelve ends")) {
      assert.ok(error instanceof ServiceAbortError, String(error));
    }
    assert.equal(listeners(), 0);
    await server.until(() => server.connections[0]!.live.size === 0, "twelve stops");
  });

  it("ends every subscription when the client's signal aborts (a logout), sending stop", async () => {
    const { controller, signal, listeners } = countedSignal();
    const realtime = realtimeOf(undefined, {}, server.url, { signal });
    const results = ["a", "b"].map((field) => realtime.subscribe(`subscription { ${field} }`).next());
    await server.until(() => server.connections[0]?.live.size === 2, "two starts");
    assert.equal(listeners(), 1);
    controller.abort(new Error("logged out"));
    for (const result of results) {
      await assert.rejects(within(result, "the end of a subscription"), { code: "ABORTED", reason: "abort" });
    }
    assert.equal(listeners(), 0);
    await server.until(() => server.connections[0]!.live.size === 0, "two stops");
    // One made after the logout ends at once, and opens no socket.
    await assert.rejects(within(realtime.subscribe("subscription { c }").next(), "an end"), {
      code: "ABORTED",
    });
    assert.equal(listeners(), 0);
    assert.equal(server.connections.length, 1);
  });

  it("leaves no listener on the client's signal or its own when either had aborted already", async () => {
    for (const clientAborted of [true, false]) {
      const [client, own] = [countedSignal(), countedSignal()];
      (clientAborted ? client : own).controller.abort();
      const realtime = realtimeOf(undefined, {}, server.url, { signal: client.signal });
      const events = realtime.subscribe("subscription { a }", undefined, { signal: own.signal });
      await assert.rejects(within(events.next(), "an end"), { code: "ABORTED" });
      assert.deepEqual([client.listeners(), own.listeners()], [0, 0], `client aborted: ${clientAborted}`);
    }
    assert.equal(server.connections.length, 0);
  });

  it("leaves no listener on the client's signal or its own when return() ends it", async () => {
    const [client, own] = [countedSignal(), countedSignal()];
    const realtime = realtimeOf(undefined, {}, server.url, { signal: client.signal });
    const all = ["a", "b"].map((field) =>
      realtime.subscribe(`subscription { ${field} }`, undefined, { signal: own.signal })
    );
    for (const events of all) events.next();
    await server.until(() => server.connections[0]?.live.size === 2, "two starts");
    assert.deepEqual([client.listeners(), own.listeners()], [1, 1]);
    for (const events of all) await events.return();
    assert.deepEqual([client.listeners(), own.listeners()], [0, 0]);
  });

  it("return() after an error ended it: the error is thrown once, to the read waiting or the next, then done", async () => {
    for (const waiting of [true, false]) {
      const controller = new AbortController();
      const realtime = realtimeOf(undefined, {}, server.url, { signal: controller.signal });
      const events = realtime.subscribe("subscription { a }");
      const pending = waiting ? events.next() : undefined;
      controller.abort();
      assert.deepEqual(await within(events.return(), "the return"), { value: undefined, done: true });
      await assert.rejects(
        within(pending ?? events.next(), "the error"),
        { code: "ABORTED" },
        `waiting: ${waiting}`,
      );
      assert.deepEqual(await within(events.next(), "the end"), { value: undefined, done: true });
    }
  });

  it("a logout while the first socket's token is read opens no socket once the token comes", async () => {
    let release!: (token: string) => void;
    let asked!: () => void;
    const reading = new Promise<void>((resolve) => asked = resolve);
    const controller = new AbortController();
    const states: ConnectionState[] = [];
    const realtime = realtimeOf(
      { type: "userpool", jwtToken: () => (asked(), new Promise<string>((resolve) => release = resolve)) },
      { onStateChange: (state: ConnectionState) => states.push(state) },
      server.url,
      { signal: controller.signal },
    );
    const next = realtime.subscribe("subscription { a }").next();
    await within(reading, "the token read");
    controller.abort();
    await assert.rejects(within(next, "the end"), { code: "ABORTED" });
    release("jwt-late");
    // The socket that never opened is forgotten when its token comes.
    for (let i = 0; i < 40 && realtime.state != "closed"; i++) await pause(50);
    assert.equal(server.connections.length, 0);
    assert.deepEqual(states, ["connecting", "closed"]);
  });

  it("a subscription that comes while the last one's token is read, or after it found none, starts at once", async () => {
    // [the token's delay, the gap after the first ends, token reads in all]. Within the read, the second
    // reuses it: one read for the socket, one for its start. After a token that found no subscription
    // (no socket opened), it opens its own at once, with one read more: it must not wait on a socket
    // that will never open (the 15 s watchdog).
    for (const [delay, gap, reads] of [[300, 10, 2], [100, 250, 3]] as const) {
      let read = 0;
      const realtime = realtimeOf({
        type: "userpool",
        jwtToken: () => (read++, new Promise<string>((resolve) => setTimeout(resolve, delay, "jwt"))),
      });
      const before = server.connections.length;
      const first = realtime.subscribe("subscription { a }");
      first.next();
      await pause(5);
      await first.return();
      await pause(gap);
      const second = realtime.subscribe("subscription { b }");
      second.next();
      await server.until(() => server.connections[before]?.live.size === 1, `the start (${delay} ms)`);
      assert.equal(read, reads, `token reads (${delay} ms)`);
      assert.equal(server.connections.length, before + 1);
      await second.return();
    }
  });
});

/** An abort controller whose signal counts the listeners it holds. */
function countedSignal() {
  const controller = new AbortController();
  const { signal } = controller;
  let listeners = 0;
  const [add, remove] = [signal.addEventListener.bind(signal), signal.removeEventListener.bind(signal)];
  signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
  signal.removeEventListener =
    ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove;
  return { controller, signal, listeners: () => listeners };
}
