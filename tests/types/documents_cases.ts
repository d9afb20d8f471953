/**
 * Type tests: documents. A string document takes
 * `<Response, Variables>` in that order; a typed document (`TypedDocumentNode`, codegen's
 * `TypedDocumentString`, and gql.tada's `TadaDocumentNode` in tada_cases.ts) carries both types,
 * and the variables argument is checked against them: required when the operation has a required
 * variable, optional when it has none or only optional ones.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { DocumentNode as GraphQLDocumentNode } from "graphql";
import type {
  Document,
  DocumentTypeDecoration,
  RequestArgs,
  RequestOptions,
  ServiceClient,
  Variables,
} from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";
import type { Exact, InputMaybe, NoVariables, TypedDocumentString } from "./_codegen_shapes.ts";

declare const client: ServiceClient;

type Post = { post: { id: string; title: string } | null };
type PostVariables = { id: string };
type Posts = { posts: Array<{ id: string }> };
type PostsVariables = { limit?: number | null };
type Hello = { hello: string };

const POST = "query Post($id: ID!) { post(id: $id) { id title } }";
const POSTS = "query Posts($limit: Int) { posts(limit: $limit) { id } }";

declare const PostNode: TypedDocumentNode<Post, PostVariables>;
declare const PostsNode: TypedDocumentNode<Posts, PostsVariables>;
declare const HelloNode: TypedDocumentNode<Hello, Record<string, never>>;
declare const parsed: GraphQLDocumentNode;

declare const PostString: TypedDocumentString<Post, Exact<{ id: string | number }>>;
declare const PostsString: TypedDocumentString<Posts, Exact<{ limit?: InputMaybe<number> }>>;
declare const HelloString: TypedDocumentString<Hello, NoVariables>;

/** `RequestArgs`: variables required when a variable is required, optional otherwise. */
export function requestArgs(): void {
  assertType<
    IsExact<RequestArgs<PostVariables>, [variables: PostVariables, options?: RequestOptions | undefined]>
  >();
  assertType<
    IsExact<RequestArgs<PostsVariables>, [variables?: PostsVariables, options?: RequestOptions | undefined]>
  >();
  assertType<
    IsExact<RequestArgs<Variables>, [variables?: Variables, options?: RequestOptions | undefined]>
  >();
  assertType<IsExact<Document<Post, PostVariables>, Document<Post, PostVariables>>>();
}

/** String documents: the response type first, then the variables type. */
export async function stringDocuments(): Promise<void> {
  const untyped = await client.request("{ hello }");
  assertType<IsExact<typeof untyped, unknown>>();
  const hello = await client.request<Hello>("{ hello }");
  assertType<IsExact<typeof hello, Hello>>();
  const post = await client.request<Post, PostVariables>(POST, { id: "1" });
  // Typed by an assertion to `string & DocumentTypeDecoration`: both types inferred from the string.
  const HelloTyped = "{ hello }" as string & DocumentTypeDecoration<Hello, Record<string, never>>;
  const typed = await client.request(HelloTyped);
  assertType<IsExact<typeof typed, Hello>>();
  const PostTyped = POST as string & DocumentTypeDecoration<Post, PostVariables>;
  const typedPost = await client.request(PostTyped, { id: "1" });
  assertType<IsExact<typeof typedPost, Post>>();
  // @ts-expect-error TS2554: the operation has a required variable
  await client.request(PostTyped);
  // @ts-expect-error TS2353 'titel': an excess variable
  await client.request(PostTyped, { id: "1", titel: "x" });
  assertType<IsExact<typeof post, Post>>();
  const withOptions = await client.request<Post, PostVariables>(POST, { id: "1" }, { timeoutMs: 1_000 });
  assertType<IsExact<typeof withOptions, Post>>();
  const posts = await client.request<Posts, PostsVariables>(POSTS);
  assertType<IsExact<typeof posts, Posts>>();
  await client.request<Posts, PostsVariables>(POSTS, { limit: 1 });
  await client.request<Posts, PostsVariables>(POSTS, { limit: null });
  await client.request<Posts, PostsVariables>(POSTS, undefined, { operationName: "Posts" });
  await client.request<Hello>("{ hello }", undefined, { signal: new AbortController().signal });
  const queried = await client.query<Post, PostVariables>(POST, { id: "1" });
  assertType<IsExact<typeof queried, Post>>();
  const mutated = await client.mutate<{ addPost: { id: string } }, { title: string }>(
    "mutation AddPost($title: String!) { addPost(title: $title) { id } }",
    { title: "New" },
  );
  assertType<IsExact<typeof mutated, { addPost: { id: string } }>>();
}

/** String documents used wrongly. */
export async function stringDocumentMistakes(): Promise<void> {
  // @ts-expect-error TS2554: the operation has a required variable
  await client.request<Post, PostVariables>(POST);
  // @ts-expect-error TS2322 'number': a variable of the wrong type
  await client.request<Post, PostVariables>(POST, { id: 1 });
  // @ts-expect-error TS2353 'extra': a variable the operation does not declare
  await client.request<Post, PostVariables>(POST, { id: "1", extra: true });
  // @ts-expect-error TS2353 'id': the order is <Response, Variables>: swapped, the variables are checked as a Post
  await client.request<PostVariables, Post>(POST, { id: "1" });
  // @ts-expect-error TS2344 'string': variables are an object
  await client.request<Post, string>(POST, "1");
  // @ts-expect-error TS2551 'titel': the result is typed
  void (await client.request<Post, PostVariables>(POST, { id: "1" })).post?.titel;
  // @ts-expect-error TS2561 'timeout': a misspelt request option
  await client.request<Post, PostVariables>(POST, { id: "1" }, { timeout: 1_000 });
  // @ts-expect-error TS2322 'string': a request option of the wrong type
  await client.query<Hello>("{ hello }", undefined, { timeoutMs: "1s" });
  // @ts-expect-error TS2554: variables and options, nothing more
  await client.mutate<Hello>("{ hello }", undefined, undefined, undefined);
}

/** `TypedDocumentNode` (graphql-tag, `parse`, codegen's documentNode mode): both types inferred. */
export async function typedDocumentNodes(): Promise<void> {
  const post = await client.request(PostNode, { id: "1" });
  assertType<IsExact<typeof post, Post>>();
  const posts = await client.request(PostsNode);
  assertType<IsExact<typeof posts, Posts>>();
  const limited = await client.query(PostsNode, { limit: 2 }, { timeoutMs: 1_000 });
  assertType<IsExact<typeof limited, Posts>>();
  const untyped = await client.request(parsed, { anything: 1 });
  assertType<IsExact<typeof untyped, unknown>>();
  const annotated = await client.request<Hello>(parsed);
  assertType<IsExact<typeof annotated, Hello>>();
}

/** `TypedDocumentNode` used wrongly. */
export async function typedDocumentNodeMistakes(): Promise<void> {
  // @ts-expect-error TS2554: the operation has a required variable
  await client.request(PostNode);
  // @ts-expect-error TS2322 'number': a variable of the wrong type
  await client.request(PostNode, { id: 1 });
  // @ts-expect-error TS2561 'limt': a misspelt optional variable
  await client.request(PostsNode, { limt: 2 });
  // @ts-expect-error TS2322 'never': the operation has no variables
  await client.mutate(HelloNode, { id: "1" }, { timeoutMs: 1 });
  // @ts-expect-error TS2551 'titel': the result is typed
  void (await client.request(PostNode, { id: "1" })).post?.titel;
}

/** codegen's `TypedDocumentString` (client preset, `documentMode: "string"`): both types inferred. */
export async function typedDocumentStrings(): Promise<void> {
  const post = await client.request(PostString, { id: 1 });
  assertType<IsExact<typeof post, Post>>();
  const posts = await client.request(PostsString);
  assertType<IsExact<typeof posts, Posts>>();
  await client.request(PostsString, { limit: null });
  const fromText = await client.request(PostString.toString(), { id: "1" });
  assertType<IsExact<typeof fromText, Post>>();
}

/** codegen's `TypedDocumentString` used wrongly. */
export async function typedDocumentStringMistakes(): Promise<void> {
  // @ts-expect-error TS2554: the operation has a required variable
  await client.request(PostString);
  // @ts-expect-error TS2322 'boolean': a variable of the wrong type
  await client.request(PostString, { id: true });
  // @ts-expect-error TS2322 'never': the operation has no variables
  await client.request(HelloString, { id: "1" }, {});
  // @ts-expect-error TS2345 'number': a document is a string, a String or a document node
  await client.request<Post, PostVariables>(42, { id: "1" });
}
