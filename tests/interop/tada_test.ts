/**
 * gql.tada over the local endpoint's schema, as our own `introspect()` returned it and gql.tada's
 * CLI turned it into `graphql-env.d.ts` (see generate.ts): documents infer their types (asserted
 * exactly), fragments compose, variables are checked, and each document runs against the endpoint.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse, print } from "graphql";
import { type FragmentOf, initGraphQLTada, readFragment, type ResultOf, type VariablesOf } from "gql.tada";
import type { GraphQLResult } from "@seed/service-client";
import { assertType, type IsExact } from "../types/_assert.ts";
import type { introspection } from "./generated/tada/graphql-env.d.ts";
import { useEndpoint } from "./_endpoint.ts";

const graphql = initGraphQLTada<{ introspection: introspection }>();
const { client, lastBody } = useEndpoint();

const AuthorFields = graphql(`
  fragment AuthorFields on Author {
    name
  }
`);
const PostFields = graphql(
  `
  fragment PostFields on Post {
    title
    content
    author {
      ...AuthorFields
    }
  }
`,
  [AuthorFields],
);
const PostQuery = graphql(
  `
  query Post($id: ID!) {
    post(id: $id) {
      id
      ...PostFields
    }
  }
`,
  [PostFields],
);
const PostsQuery = graphql(`
  query Posts($limit: Int) {
    posts(limit: $limit) {
      id
      title
    }
  }
`);
const HelloQuery = graphql(`
  query Hello {
    hello
    whoami
  }
`);
const AddPostMutation = graphql(`
  mutation AddPost($title: String!, $content: String) {
    addPost(title: $title, content: $content) {
      id
      title
      content
    }
  }
`);
const SecretQuery = graphql(`
  query Secret {
    hello
    secret
  }
`);

describe("gql.tada documents, typed by our introspect() through gql-tada generate-output", () => {
  it("the schema's types reach the documents", () => {
    assertType<IsExact<VariablesOf<typeof PostQuery>, { id: string }>>();
    assertType<IsExact<VariablesOf<typeof PostsQuery>, { limit?: number | null }>>();
    assertType<IsExact<VariablesOf<typeof AddPostMutation>, { title: string; content?: string | null }>>();
    // deno-lint-ignore ban-types
    assertType<IsExact<VariablesOf<typeof HelloQuery>, {}>>();
    assertType<IsExact<ResultOf<typeof PostsQuery>, { posts: { id: string; title: string }[] }>>();
    assertType<IsExact<ResultOf<typeof HelloQuery>, { hello: string; whoami: string }>>();
  });

  it("a query with composed fragments infers, runs, and sends every fragment it uses", async () => {
    const data = await client().request(PostQuery, { id: "1" });
    assertType<IsExact<typeof data, ResultOf<typeof PostQuery>>>();
    const post = readFragment(PostFields, data.post);
    assertType<IsExact<typeof post, ResultOf<typeof PostFields> | null>>();
    const author = readFragment(AuthorFields, post?.author);
    assertType<IsExact<typeof author, { name: string } | null | undefined>>();
    assert.equal(data.post?.id, "1");
    assert.equal(post?.title, "Hello");
    assert.equal(author?.name, "Ada");

    const sent = lastBody();
    assert.equal(sent.operationName, "Post");
    assert.deepEqual(sent.variables, { id: "1" });
    assert.equal(
      print(parse(sent.query)),
      print(PostQuery),
      "gql.tada keeps no source text: the client prints it",
    );
    assert.match(sent.query, /fragment PostFields on Post/);
    assert.match(sent.query, /fragment AuthorFields on Author/);
  });

  it("optional variables may be left out; an operation without variables takes none", async () => {
    const posts = await client().query(PostsQuery);
    assertType<IsExact<typeof posts, { posts: { id: string; title: string }[] }>>();
    assert.equal(posts.posts.length, 2);
    assert.equal((await client().query(PostsQuery, { limit: 1 })).posts.length, 1);
    const hello = await client().request(HelloQuery);
    assert.deepEqual(hello, { hello: "world", whoami: "apiKey" });
  });

  it("mutate and requestRaw infer from the document", async () => {
    const added = await client().mutate(AddPostMutation, { title: "Tada" });
    assertType<IsExact<typeof added, { addPost: { id: string; title: string; content: string | null } }>>();
    assert.deepEqual(added.addPost, { id: "3", title: "Tada", content: null });
    const raw = await client().requestRaw(SecretQuery);
    assertType<IsExact<typeof raw, GraphQLResult<{ hello: string; secret: string | null }>>>();
    assert.deepEqual(raw.data, { hello: "world", secret: null });
    assert.equal(raw.errors?.[0]?.errorType, "Unauthorized");
  });

  it("a fragment's data is masked until read", () => {
    type Post = NonNullable<ResultOf<typeof PostQuery>["post"]>;
    assertType<IsExact<Exclude<keyof Post, symbol>, "id">>();
    assertType<IsExact<Post extends FragmentOf<typeof PostFields> ? true : false, true>>();
  });
});

/** Never called: each line must fail to compile (`deno check` fails on an unused directive). */
export async function mistakes(): Promise<void> {
  // @ts-expect-error TS2554: the operation has a required variable
  await client().request(PostQuery);
  // @ts-expect-error TS2322: a variable of the wrong type
  await client().request(PostQuery, { id: true });
  // @ts-expect-error TS2561: a misspelt optional variable
  await client().query(PostsQuery, { limt: 1 });
  // @ts-expect-error TS2554: the mutation has a required variable
  await client().mutate(AddPostMutation);
  // @ts-expect-error TS2339: masked: the fragment's fields are read with readFragment
  void (await client().request(PostQuery, { id: "1" })).post?.title;
}
