/**
 * The query text that reaches the endpoint for each kind of parsed document. Every document node is
 * printed from its definitions, with or without `loc`: `graphql-tag`'s `gql` and `graphql`'s `parse`
 * keep the source text in `loc`, but graphql-tag drops repeated fragments from the definitions only,
 * and a `visit` keeps the root's `loc` after changing the tree. Codegen's AST documents and
 * `parse(…, { noLocation: true })` have no `loc`. Each document also runs: the endpoint answers it.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type DocumentNode, Lexer, parse, print, Source, TokenKind, visit } from "graphql";
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

describe("a document with loc is printed too: its source text need not be the document", () => {
  it("graphql-tag's gql, with a fragment interpolated", async () => {
    const PostFields = gql`
      fragment PostFields on Post {
        title
        content
        author { name }
      }
    `;
    const PostQuery: TypedDocumentNode<typeof EXPECTED_POST, { id: string }> = gql`
      # comments and layout are not sent
      query Post($id: ID!) {
        post(id: $id) { id ...PostFields }
      }
      ${PostFields}
    `;
    assert.ok(PostQuery.loc, "graphql-tag keeps loc");
    const data = await client().request(PostQuery, { id: "1" });
    assertType<IsExact<typeof data, typeof EXPECTED_POST>>();
    assert.deepEqual(data, EXPECTED_POST);
    assert.deepEqual(tokens(lastBody().query), tokens(POST));
    assert.doesNotMatch(lastBody().query, /comments/);
    assert.equal(lastBody().operationName, "Post");
  });

  it("graphql-tag's gql, with a fragment reached twice: sent once, as in the definitions (its text has it twice)", async () => {
    const AuthorFields = gql`fragment AuthorFields on Author { name }`;
    const PostSummary =
      gql`fragment PostSummary on Post { title author { ...AuthorFields } } ${AuthorFields}`;
    const PostQuery = gql`
      query Post($id: ID!) { post(id: $id) { id ...PostSummary author { ...AuthorFields } } }
      ${PostSummary}
      ${AuthorFields}
    `;
    assert.equal(
      PostQuery.loc?.source.body.match(/fragment AuthorFields/g)?.length,
      2,
      "the source text repeats it",
    );
    assert.equal(PostQuery.definitions.length, 3, "graphql-tag dropped the repeat from the definitions");
    assert.deepEqual(await client().request(PostQuery, { id: "1" }), {
      post: { id: "1", title: "Hello", author: { name: "Ada" } },
    });
    assert.equal(lastBody().query.match(/fragment AuthorFields/g)?.length, 1);
    assert.deepEqual(tokens(lastBody().query), tokens(print(PostQuery)));
  });

  it("graphql's parse", async () => {
    const document = parse(POST);
    assert.ok(document.loc, "parse keeps loc by default");
    assert.deepEqual(await client().request(document, { id: "1" }), EXPECTED_POST);
    assert.deepEqual(tokens(lastBody().query), tokens(POST));
  });

  it("a document changed by graphql's visit, which keeps the root's loc: the change is sent", async () => {
    const document = visit(parse(POST), {
      Field: (node) => (node.name.value === "content" ? null : undefined),
    });
    assert.ok(document.loc, "visit kept the root's loc");
    const { content: _, ...withoutContent } = EXPECTED_POST.post;
    assert.deepEqual(await client().request(document, { id: "1" }), { post: withoutContent });
    assert.doesNotMatch(lastBody().query, /content/);
  });

  it("a document of several operations sends them all and the operation name given", async () => {
    const document = parse(`query A { hello }\nquery B { whoami }`);
    assert.deepEqual(await client().request(document, undefined, { operationName: "B" }), {
      whoami: "apiKey",
    });
    assert.deepEqual(tokens(lastBody().query), tokens("query A { hello } query B { whoami }"));
    assert.equal(lastBody().operationName, "B");
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
