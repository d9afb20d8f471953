/**
 * Type tests: gql.tada's `TadaDocumentNode`, apart from
 * documents_cases.ts because gql.tada's own types need TypeScript 5: the consumer check on
 * TypeScript 4.8 (tests/consumers/run.ts) compiles every other case file.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type { TadaDocumentNode } from "gql.tada";
import type { ServiceClient } from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

declare const client: ServiceClient;

type Post = { post: { id: string; title: string } | null };
type Posts = { posts: Array<{ id: string }> };

declare const PostTada: TadaDocumentNode<Post, { id: string | number }>;
declare const PostsTada: TadaDocumentNode<Posts, { limit?: number | null | undefined }>;

/** gql.tada's `TadaDocumentNode`: both types inferred. */
export async function tadaDocuments(): Promise<void> {
  const post = await client.request(PostTada, { id: "1" });
  assertType<IsExact<typeof post, Post>>();
  const posts = await client.request(PostsTada);
  assertType<IsExact<typeof posts, Posts>>();
  const raw = await client.requestRaw(PostsTada, { limit: undefined });
  assertType<IsExact<typeof raw.data, Posts | null | undefined>>();
}

/** gql.tada's `TadaDocumentNode` used wrongly. */
export async function tadaDocumentMistakes(): Promise<void> {
  // @ts-expect-error TS2554: the operation has a required variable
  await client.request(PostTada);
  // @ts-expect-error TS2322 'boolean': a variable of the wrong type
  await client.request(PostTada, { id: false });
  // @ts-expect-error TS2561 'limt': a misspelt optional variable
  await client.request(PostsTada, { limt: 1 });
}
