/**
 * Type tests: what the calls resolve. `request`, `query` and `mutate` resolve the
 * data; `requestRaw` resolves `{ data?, errors?, extensions? }` with the same data type, possibly
 * partial or `null`; `introspect()` resolves graphql's `IntrospectionQuery`.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { IntrospectionQuery } from "graphql";
import type { GraphQLFormattedError, GraphQLResult, ServiceClient } from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

declare const client: ServiceClient;

type Post = { post: { id: string; title: string } | null };
declare const PostNode: TypedDocumentNode<Post, { id: string }>;

/** `requestRaw` resolves the whole result, its data typed as the document says. */
export async function requestRaw(): Promise<void> {
  const raw = await client.requestRaw(PostNode, { id: "1" });
  assertType<IsExact<typeof raw, GraphQLResult<Post>>>();
  assertType<IsExact<typeof raw.data, Post | null | undefined>>();
  assertType<IsExact<typeof raw.errors, readonly GraphQLFormattedError[] | undefined>>();
  assertType<IsExact<typeof raw.extensions, Readonly<Record<string, unknown>> | undefined>>();
  const fromString = await client.requestRaw<Post, { id: string }>(
    "query Post($id: ID!) { post(id: $id) { id title } }",
    { id: "1" },
  );
  assertType<IsExact<typeof fromString, GraphQLResult<Post>>>();
  const untyped = await client.requestRaw("{ hello }");
  assertType<IsExact<typeof untyped, GraphQLResult<unknown>>>();
  assertType<IsExact<keyof GraphQLResult<Post>, "data" | "errors" | "extensions">>();
  const message = raw.errors?.[0]?.message;
  assertType<IsExact<typeof message, string | undefined>>();
  const title = raw.data?.post?.title;
  assertType<IsExact<typeof title, string | undefined>>();
}

/** `requestRaw` used wrongly: data may be absent or null, and the result is read-only. */
export async function requestRawMistakes(): Promise<void> {
  const raw = await client.requestRaw(PostNode, { id: "1" });
  // @ts-expect-error TS18049 'raw.data': data may be null or undefined when errors are present
  void raw.data.post;
  if (raw.errors) {
    // @ts-expect-error TS18049 'raw.data': with errors, data may be null or absent
    void raw.data.post;
  }
  // @ts-expect-error TS2551 'titel': the data is typed
  void raw.data?.post?.titel;
  // @ts-expect-error TS2540 'data': the result is read-only
  raw.data = null;
}

/** Checking `errors` narrows the result: without errors, the data is there. */
export async function requestRawNarrows(): Promise<void> {
  const raw = await client.requestRaw(PostNode, { id: "1" });
  if (!raw.errors) assertType<IsExact<typeof raw.data, Post>>();
  else assertType<IsExact<typeof raw.data, Post | null | undefined>>();
  const { data, errors } = await client.requestRaw(PostNode, { id: "1" });
  if (errors) return;
  assertType<IsExact<typeof data, Post>>();
}

/** `request`, `query` and `mutate` resolve exactly the data. */
export async function aliases(): Promise<void> {
  const requested = await client.request(PostNode, { id: "1" });
  const queried = await client.query(PostNode, { id: "1" });
  const mutated = await client.mutate(PostNode, { id: "1" });
  assertType<IsExact<typeof requested, Post>>();
  assertType<IsExact<typeof queried, Post>>();
  assertType<IsExact<typeof mutated, Post>>();
  assertType<IsExact<ReturnType<typeof client.query<Post, { id: string }>>, Promise<Post>>>();
}

/** `introspect()` resolves graphql's `IntrospectionQuery`. */
export async function introspect(): Promise<void> {
  const schema = await client.introspect();
  assertType<IsExact<typeof schema, IntrospectionQuery>>();
  const withOptions = await client.introspect({ timeoutMs: 5_000 });
  assertType<IsExact<typeof withOptions, IntrospectionQuery>>();
  assertType<IsExact<typeof schema.__schema.queryType.name, string>>();
  // @ts-expect-error TS2554: introspect takes only request options
  await client.introspect("{ __schema { types { name } } }", {});
  // @ts-expect-error TS2339 'data': it resolves the schema itself, not a { data } body
  void schema.data;
}

/**
 * A test's fake can implement `ServiceClient`: the class has no private member, so its type is its
 * public methods (the ESM and the CommonJS declarations then describe one type too).
 */
export class FakeClient implements ServiceClient {
  request: ServiceClient["request"] = () => Promise.reject(new Error("not in this test"));
  requestRaw: ServiceClient["requestRaw"] = () => Promise.reject(new Error("not in this test"));
  query: ServiceClient["query"] = () => Promise.reject(new Error("not in this test"));
  mutate: ServiceClient["mutate"] = () => Promise.reject(new Error("not in this test"));
  introspect: ServiceClient["introspect"] = () => Promise.reject(new Error("not in this test"));
}

// @ts-expect-error TS2720 'PartialFake': a fake without every method does not implement the client
export class PartialFake implements ServiceClient {
  request: ServiceClient["request"] = () => Promise.reject(new Error("not in this test"));
}
