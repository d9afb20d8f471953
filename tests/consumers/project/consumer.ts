// A consumer of the npm package, compiled against its .d.ts with skipLibCheck off, by TypeScript 5
// with moduleResolution node16 (as consumer.mts and consumer.cts), bundler (with exactOptionalPropertyTypes)
// and node10 (in an older project: lib es2020, where `Error` has no `cause`): see ../run.ts.
// Each @ts-expect-error proves the types arrived: were they `any`, the directive would be unused.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { IntrospectionQuery } from "graphql";
import {
  type AuthOptions,
  ErrorCode,
  type GraphQLResult,
  isServiceError,
  RETRY_DEFAULTS,
  ServiceAbortError,
  ServiceClient,
  ServiceGraphQLError,
  ServiceHttpError,
} from "@seed/service-client";
import { signRequest } from "@seed/service-client/sigv4";
import { RealtimeClient, type Subscription } from "@seed/service-client/realtime";

type Post = { post: { id: string; title: string } | null };

declare const PostQuery: TypedDocumentNode<Post, { id: string }>;

export async function main(): Promise<void> {
  const auth: AuthOptions = { type: "userpool", jwtToken: async () => "id-token" };
  const client = new ServiceClient({
    url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
    auth,
    retry: { attempts: RETRY_DEFAULTS.attempts, shouldRetry: (err, attempt) => attempt < 3 && !!err.code },
    fetch: (input, init) => fetch(input, init),
    timeoutMs: 10_000,
  });
  const credentials = () => Promise.resolve({ accessKeyId: "A", secretAccessKey: "S", sessionToken: "T" });
  new ServiceClient({ url: "https://x.test/graphql", auth: { type: "iam", region: "us-east-1", credentials } });

  const post: Post = await client.request(PostQuery, { id: "1" }, { timeoutMs: 1_000 });
  const hello: { hello: string } = await client.query<{ hello: string }>("{ hello }");
  const raw: GraphQLResult<Post> = await client.requestRaw(PostQuery, { id: "1" });
  const schema: IntrospectionQuery = await client.introspect({ signal: new AbortController().signal });
  const headers: Headers = await signRequest(
    { method: "POST", url: "https://x.test/graphql", body: "{}" },
    { region: "us-east-1", service: "appsync", credentials: { accessKeyId: "A", secretAccessKey: "S" } },
  );
  console.log(post.post?.title, hello.hello, raw.errors?.length, schema.__schema.types.length, headers.get("x-amz-date"));

  try {
    await client.mutate("mutation { addPost(title: \"t\") { id } }");
  } catch (err) {
    if (err instanceof ServiceGraphQLError) console.log(err.errors[0]?.message);
    else if (err instanceof ServiceHttpError) console.log(err.status.toFixed(0));
    else if (err instanceof ServiceAbortError) console.log(err.reason === "timeout");
    else if (isServiceError(err) && err.code === ErrorCode.Network) console.log(err.message, err.cause);
  }

  // Options built from values that may be undefined (with exactOptionalPropertyTypes, too).
  const configured: { timeoutMs?: number; signal?: AbortSignal } = {};
  await client.request(PostQuery, { id: "1" }, { timeoutMs: configured.timeoutMs, signal: configured.signal });

  // @ts-expect-error a field of another auth mode
  new ServiceClient({ url: "https://x.test/graphql", auth: { type: "apiKey", apiKey: "k", jwtToken: "t" } });
  // @ts-expect-error the operation has a required variable
  await client.request(PostQuery);
  // @ts-expect-error the result is typed
  void (await client.request(PostQuery, { id: "1" })).post?.titel;
  // @ts-expect-error variables are given as <Response, Variables>
  await client.request<Post, { id: string }>("query Post($id: ID!) { post(id: $id) { id title } }", { id: 1 });

  // Subscriptions: the third entry, its iterator type on every TypeScript.
  const realtime = new RealtimeClient(client, { onStateChange: (state) => console.log(state) });
  const events: Subscription<Post> = realtime.subscribe(PostQuery, { id: "1" }, { signal: configured.signal });
  for await (const event of events) console.log(event.post?.id);
  const ended = await events.return();
  const asStandard: AsyncIterableIterator<Post> = events;
  console.log(ended.done, asStandard, realtime.state);
  // @ts-expect-error an event is typed
  for await (const event of realtime.subscribe(PostQuery, { id: "1" })) void event.post?.titel;
  // @ts-expect-error the subscription's variables are checked
  realtime.subscribe(PostQuery, { id: 1 });
  realtime.close();
}
