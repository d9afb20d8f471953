/**
 * Type tests: the variables argument of typed documents, where the rule is strictest: optional for an operation without variables in each tool's own spelling of
 * "none", checked against the document even next to valid variables, and never widened by type
 * arguments that contradict the document.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { RequestArgs, RequestOptions, ServiceClient } from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";
import type { Exact, InputMaybe, NoVariables, TypedDocumentString } from "./_codegen_shapes.ts";

declare const client: ServiceClient;

type Post = { post: { id: string; title: string } | null };
type Posts = { posts: Array<{ id: string }> };
type Hello = { hello: string };

declare const HelloNode: TypedDocumentNode<Hello, Record<string, never>>;
declare const HelloString: TypedDocumentString<Hello, NoVariables>;
declare const PostNode: TypedDocumentNode<Post, { id: string }>;
declare const PostString: TypedDocumentString<
  Post,
  Exact<{ id: string | number; limit?: InputMaybe<number> }>
>;
declare const PostsNode: TypedDocumentNode<Posts, { limit?: number | null }>;

/** No variables, spelt as codegen (`Exact<{ [key: string]: never }>`) and as `Record<string, never>`. */
export async function noVariables(): Promise<void> {
  assertType<
    IsExact<RequestArgs<NoVariables>, [variables?: NoVariables, options?: RequestOptions | undefined]>
  >();
  assertType<
    IsExact<
      RequestArgs<Record<string, never>>,
      [variables?: Record<string, never>, options?: RequestOptions | undefined]
    >
  >();
  const hello = await client.request(HelloNode);
  assertType<IsExact<typeof hello, Hello>>();
  const fromString = await client.query(HelloString, undefined, { timeoutMs: 1_000 });
  assertType<IsExact<typeof fromString, Hello>>();
}

/** Variables checked against the document even when some of them are right. */
export async function checkedAgainstTheDocument(): Promise<void> {
  // @ts-expect-error TS2353 'extra': a variable the operation does not declare, next to the required one
  await client.request(PostNode, { id: "1", extra: true });
  // @ts-expect-error TS2561 'limt': a misspelt optional variable, next to the required one
  await client.request(PostString, { id: "1", limt: 2 });
  // @ts-expect-error TS2353 'extra': a variable the operation does not declare, next to a valid one
  await client.request(PostsNode, { limit: 1, extra: true });
}

/** Type arguments cannot override what a typed document says. */
export async function typeArgumentsMatchTheDocument(): Promise<void> {
  // @ts-expect-error TS2345 '__apiType': the document's result is a Post
  await client.request<Hello, { id: string }>(PostNode, { id: "1" });
  // @ts-expect-error TS2345 'hello': the document's result is a Post
  await client.requestRaw<Hello, { id: string }>(PostString, { id: "1" });
  // @ts-expect-error TS2345 '__apiType': with the result type alone, the variables type is `object`, not the document's
  await client.request<Post>(PostNode, { id: "1" });
  const post = await client.request<Post, { id: string }>(PostNode, { id: "1" });
  assertType<IsExact<typeof post, Post>>();
}

interface PostVariables {
  id: string;
}
class PostFilter {
  constructor(readonly id: string) {}
}
declare const postVariables: PostVariables;

/** A document whose variables are not typed takes any object: an interface's or a class's too. */
export async function untypedVariables(): Promise<void> {
  assertType<IsExact<RequestArgs<object>, [variables?: object, options?: RequestOptions | undefined]>>();
  // Arrays and functions are objects too: those the run time refuses, with INVALID_ARGUMENT.
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", postVariables);
  await client.request<Post>("query Post($id: ID!) { post(id: $id) { id } }", postVariables);
  await client.requestRaw("query Post($id: ID!) { post(id: $id) { id } }", new PostFilter("1"));
  await client.request("{ hello }");
  // @ts-expect-error TS2345 '"1"': variables are an object
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", "1");
  // @ts-expect-error TS2345 'number[]': an array, refused at run time
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", [1, 2]);
  // @ts-expect-error TS2345 'Map<string, string>': a Map is not sent as the object it is
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", new Map([["id", "1"]]));
  // @ts-expect-error TS2345 'Date': a Date is sent as a string
  await client.requestRaw("query Post($id: ID!) { post(id: $id) { id } }", new Date());
  // @ts-expect-error TS2322 'undefined': an object with toJSON is not sent as the object it is
  await client.mutate("mutation M($id: ID!) { remove(id: $id) }", { id: "1", toJSON: () => ({}) });
  // @ts-expect-error TS2345 'Promise<{ id: string; }>': a forgotten await
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", Promise.resolve({ id: "1" }));
  // @ts-expect-error TS2345 'RegExp': not an object of variables
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", /id/);
  // @ts-expect-error TS2345 'ArrayBuffer': not an object of variables
  await client.request("query Post($id: ID!) { post(id: $id) { id } }", new ArrayBuffer(1));
  // With the result type alone, the same holds.
  // @ts-expect-error TS2345 'number[]': an array, refused at run time
  await client.request<Post>("query Post($id: ID!) { post(id: $id) { id } }", [1, 2]);
}

/** Request options given in the variables' place: a signal there would abort nothing. */
export async function optionsInTheVariablesPlace(signal: AbortSignal): Promise<void> {
  // @ts-expect-error TS2322 'SignalVariable': the options go third, after `undefined`
  await client.request("{ hello }", { signal });
  // @ts-expect-error TS2322 'SignalVariable': the same with the result type given
  await client.request<Hello>("{ hello }", { signal, timeoutMs: 1_000 });
  const options = { signal };
  // @ts-expect-error TS2345 'signal': through a variable too
  await client.request("{ hello }", options);
  await client.request("{ hello }", undefined, { signal });
  // A variable that happens to be named `signal` is still one.
  await client.request("query Scan($signal: String) { scan(signal: $signal) }", { signal: "wifi" });
  await client.request("query Scan($signal: Band) { scan(signal: $signal) }", { signal: { min: 2 } });
}

/** Variables typed as a union stay required: no key is common to every member, yet none is optional. */
export async function unionVariables(): Promise<void> {
  const ByIdOrSlug = null as unknown as TypedDocumentNode<Post, { id: string } | { slug: string }>;
  await client.request(ByIdOrSlug, { slug: "hello" });
  // @ts-expect-error TS2554: the variables are required
  await client.request(ByIdOrSlug);
}

/** Generic wrappers compile: variables passed on as `...args: RequestArgs<TVariables>` (the README's recipe) or as a required `TVariables`. */
export async function genericWrappers(): Promise<void> {
  async function passOn<TData, TVariables extends object>(
    document: TypedDocumentNode<TData, TVariables>,
    ...args: RequestArgs<TVariables>
  ): Promise<TData> {
    return await client.request(document, ...args);
  }
  async function required<TData, TVariables extends object>(
    document: TypedDocumentNode<TData, TVariables>,
    variables: TVariables,
    options?: RequestOptions,
  ): Promise<TData> {
    return await client.request(document, variables, options);
  }
  const post = await passOn(PostNode, { id: "1" });
  assertType<IsExact<typeof post, Post>>();
  await passOn(HelloNode);
  await required(PostNode, { id: "1" }, { timeoutMs: 1_000 });
  // @ts-expect-error TS2554: the operation has a required variable
  await passOn(PostNode);
}
