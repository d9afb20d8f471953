import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  buildClientSchema,
  getIntrospectionQuery,
  Lexer,
  parse,
  printSchema,
  Source,
  TokenKind,
} from "graphql";
import { readFileSync } from "node:fs";
import { buildSchema } from "graphql";
import { ServiceAbortError, ServiceClient } from "../mod.ts";
import { INTROSPECTION_QUERY } from "../src/introspection.ts";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY } from "./_fixtures.ts";

function tokens(text: string): string[] {
  const lexer = new Lexer(new Source(text));
  const out: string[] = [];
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    out.push(`${token.kind}:${token.value ?? ""}`);
  }
  return out;
}

let endpoint: Endpoint;

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("introspection", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  describe("introspect()", () => {
    it("the query is graphql's getIntrospectionQuery(), token for token (only whitespace differs)", () => {
      assert.deepEqual(tokens(INTROSPECTION_QUERY), tokens(getIntrospectionQuery()));
      assert.deepEqual(
        parse(INTROSPECTION_QUERY, { noLocation: true }),
        parse(getIntrospectionQuery(), { noLocation: true }),
      );
    });

    it("the query spends no byte on ignored tokens: one space, and only between two names", () => {
      assert.doesNotMatch(INTROSPECTION_QUERY, /[,\t\n\r\ufeff#]|^ | $| \W|\W /);
    });

    it("sends the standard query and resolves the typed schema, which rebuilds the endpoint's SDL", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      const result = await client.introspect({ timeoutMs: 5_000 });
      assert.equal(result.__schema.queryType.name, "Query");
      assert.equal(result.__schema.mutationType?.name, "Mutation");
      const sent = JSON.parse(endpoint.requests.at(-1)!.body);
      assert.equal(sent.query, INTROSPECTION_QUERY);
      const sdl = readFileSync(new URL("./fixtures/schema.graphql", import.meta.url), "utf8");
      assert.equal(printSchema(buildClientSchema(result)), printSchema(buildSchema(sdl)));
    });

    it("passes its options on: headers are sent, an aborted signal sends nothing", async () => {
      const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
      await client.introspect({ headers: { "x-request-id": "schema-1" } });
      assert.equal(endpoint.requests.at(-1)!.headers["x-request-id"], "schema-1");
      const before = endpoint.requests.length;
      const err = await client.introspect({ signal: AbortSignal.abort("not now") }).catch((e) => e);
      assert.ok(err instanceof ServiceAbortError, String(err));
      assert.equal(err.cause, "not now");
      assert.equal(endpoint.requests.length, before);
    });
  });
});
