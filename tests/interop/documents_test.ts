/**
 * The query text that reaches the endpoint for each kind of parsed document: `graphql-tag`'s `gql`
 * and `graphql`'s `parse` keep `loc`, and their source is sent exactly as written; codegen's AST
 * documents and `parse(…, { noLocation: true })` have no `loc`, and are printed into an
 * equivalent operation. Each document also runs: the endpoint answers it.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type DocumentNode, Lexer, parse, print, Source, TokenKind } from "graphql";
import { gql } from "graphql-tag";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { assertType, type IsExact } from "../types/_assert.ts";
import { PostDocument, PostsDocument } from "./generated/codegen-node/graphql.ts";
import { useEndpoint } from "./_endpoint.ts";

const { client, lastBody } = useEndpoint();

const POST = `query Post($id: ID!) {
  post(id: $id) { id ...PostFields }
}
fragment PostFields on Post { title content author { name } }`;

/** The document's tokens: equal for two texts that differ only in whitespace, commas and comments. */
function tokens(text: string): string[] {
  const lexer = new Lexer(new Source(text));
  const out: string[] = [];
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    out.push(`${token.kind}${token.value ?? ""}`);
  }
  return out;
}

const EXPECTED_POST = {
  post: { id: "1", title: "Hello", content: "First post", author: { name: "Ada" } },
};

describe("documents with loc send their source as written", () => {
  it("graphql-tag's gql, with a fragment interpolated", async () => {
    const PostFields = gql`
      fragment PostFields on Post {
        title
        content
        author { name }
      }
    `;
    const PostQuery: TypedDocumentNode<typeof EXPECTED_POST, { id: string }> = gql`
      # comments and layout are kept
      query Post($id: ID!) {
        post(id: $id) { id ...PostFields }
      }
      ${PostFields}
    `;
    assert.ok(PostQuery.loc, "graphql-tag keeps loc");
    const data = await client().request(PostQuery, { id: "1" });
    assertType<IsExact<typeof data, typeof EXPECTED_POST>>();
    assert.deepEqual(data, EXPECTED_POST);
    assert.equal(lastBody().query, PostQuery.loc.source.body);
    assert.match(lastBody().query, /# comments and layout are kept/);
    assert.equal(lastBody().operationName, "Post");
  });

  it("graphql's parse", async () => {
    const document = parse(POST);
    assert.ok(document.loc, "parse keeps loc by default");
    assert.deepEqual(await client().request(document, { id: "1" }), EXPECTED_POST);
    assert.equal(lastBody().query, POST);
  });

  it("a document of several operations sends its source and the operation name given", async () => {
    const document = parse(`query A { hello }\nquery B { whoami }`);
    assert.deepEqual(await client().request(document, undefined, { operationName: "B" }), {
      whoami: "apiKey",
    });
    assert.deepEqual(lastBody(), { query: `query A { hello }\nquery B { whoami }`, operationName: "B" });
  });
});

describe("documents without loc are printed", () => {
  it("codegen's AST documents (documentMode: documentNode)", async () => {
    assert.equal((PostDocument as DocumentNode).loc, undefined, "codegen emits no loc");
    assert.deepEqual(await client().request(PostDocument, { id: "1" }), EXPECTED_POST);
    const sent = lastBody();
    assert.deepEqual(tokens(sent.query), tokens(print(PostDocument)));
    assert.deepEqual(tokens(sent.query), tokens(POST));
    assert.equal(sent.operationName, "Post");

    await client().request(PostsDocument, { limit: 1 });
    assert.deepEqual(
      tokens(lastBody().query),
      tokens("query Posts($limit: Int) { posts(limit: $limit) { id title } }"),
    );
  });

  it("graphql's parse with noLocation, and the same document built by hand", async () => {
    const document = parse(POST, { noLocation: true });
    assert.equal(document.loc, undefined);
    assert.deepEqual(await client().request(document, { id: "1" }), EXPECTED_POST);
    assert.deepEqual(tokens(lastBody().query), tokens(POST));
    const copy = JSON.parse(JSON.stringify(document)) as DocumentNode;
    assert.deepEqual(await client().request(copy, { id: "1" }), EXPECTED_POST);
    assert.deepEqual(tokens(lastBody().query), tokens(POST));
  });
});
