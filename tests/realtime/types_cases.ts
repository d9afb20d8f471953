/**
 * Type tests of `RealtimeClient.subscribe`: the same documents and typing as `request` (a string
 * with `<Data, Variables>`, typed document nodes and strings), variables required exactly when the
 * operation needs them, the iterator's item typed as the result, and the options checked.
 *
 * Nothing here runs: `deno task check` compiles it, and fails on an `@ts-expect-error` whose line
 * stops failing.
 *
 * @module
 */

import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { ServiceClient } from "../../mod.ts";
import {
  type ConnectionState,
  RealtimeClient,
  type SubscribeArgs,
  type Subscription,
  type WebSocketConstructor,
} from "../../src/realtime.ts";
import { assertType, type IsExact } from "../types/_assert.ts";
import type { NoVariables, TypedDocumentString } from "../types/_codegen_shapes.ts";

declare const client: ServiceClient;
declare const signal: AbortSignal;

type OnPost = { onPost: { id: string; title: string } };
declare const OnPostNode: TypedDocumentNode<OnPost, { author: string }>;
declare const OnAnyNode: TypedDocumentNode<OnPost, Record<string, never>>;
declare const OnPostString: TypedDocumentString<OnPost, NoVariables>;

/** Items are typed from the document, or from the type arguments of a string. */
export async function items(realtime: RealtimeClient): Promise<void> {
  for await (const data of realtime.subscribe(OnPostNode, { author: "a" })) {
    assertType<IsExact<typeof data, OnPost>>();
  }
  for await (const data of realtime.subscribe(OnPostString)) assertType<IsExact<typeof data, OnPost>>();
  for await (const data of realtime.subscribe<OnPost>("subscription { onPost { id title } }")) {
    assertType<IsExact<typeof data, OnPost>>();
  }
  for await (const data of realtime.subscribe("subscription { x }")) {
    assertType<IsExact<typeof data, unknown>>();
  }
  const events = realtime.subscribe(OnAnyNode, undefined, { signal });
  assertType<IsExact<typeof events, Subscription<OnPost>>>();
  // Where an iterator of the standard library is asked for, it is one.
  const standard: AsyncIterableIterator<OnPost> = events;
  const iterable: AsyncIterable<OnPost> = events;
  void [standard, iterable];
  // Its results hold no `any`: a finished one's value is void, an event's the data.
  const result = await events.next(undefined);
  if (result.done) assertType<IsExact<typeof result.value, void>>();
  else assertType<IsExact<typeof result.value, OnPost>>();
  const ended = await events.return();
  if (ended.done) assertType<IsExact<typeof ended.value, void>>();
  // An async generator stands in for one, as an app's tests may make it.
  async function* fake(): AsyncGenerator<OnPost, void> {
    yield { onPost: { id: "1", title: "t" } };
  }
  const faked: Subscription<OnPost> = fake();
  void faked;
}

/** Variables: required when the operation has required ones, optional otherwise, always checked. */
export function variables(realtime: RealtimeClient): void {
  // @ts-expect-error TS2554: `author` is required, so are the variables
  realtime.subscribe(OnPostNode);
  // @ts-expect-error TS2322: `author` is a string
  realtime.subscribe(OnPostNode, { author: 1 });
  realtime.subscribe<OnPost, { author: string }>(
    "subscription On($author: String!) { onPost(author: $author) { id } }",
    {
      author: "a",
    },
  );
  // @ts-expect-error TS2554: the type arguments make the variables required
  realtime.subscribe<OnPost, { author: string }>(
    "subscription On($author: String!) { onPost(author: $author) { id } }",
  );
  realtime.subscribe(OnAnyNode);
  assertType<IsExact<SubscribeArgs<{ id?: string }>[0], { id?: string } | undefined>>();
}

/** The callback form: the same typing, variables given explicitly. */
export function listen(realtime: RealtimeClient): void {
  const stop = realtime.listen(
    OnPostNode,
    { author: "a" },
    (data) => assertType<IsExact<typeof data, OnPost>>(),
    (
      error,
    ) => assertType<IsExact<typeof error, unknown>>(),
  );
  assertType<IsExact<typeof stop, () => void>>();
  realtime.listen(OnAnyNode, undefined, () => {}, () => {});
  // @ts-expect-error TS2345: `author` is required, so are the variables
  realtime.listen(OnPostNode, undefined, () => {}, () => {});
  // @ts-expect-error TS2554: the error callback is required (an error nobody handles would go unseen)
  realtime.listen(OnAnyNode, undefined, () => {});
}

/** Options and the constructor's options. */
export function options(realtime: RealtimeClient, ws: WebSocketConstructor): void {
  // @ts-expect-error TS2353: `timeoutMs` is not a subscription option
  realtime.subscribe(OnAnyNode, undefined, { timeoutMs: 1 });
  new RealtimeClient(client, { webSocket: WebSocket, authIn: "query", url: "wss://x/graphql/realtime" });
  new RealtimeClient(client, {
    webSocket: ws,
    onStateChange: (state) => assertType<IsExact<typeof state, ConnectionState>>(),
  });
  // @ts-expect-error TS2322: "header" is not a place for credentials
  new RealtimeClient(client, { authIn: "header" });
  assertType<IsExact<typeof realtime.state, ConnectionState>>();
}

/** A socket of one's own must have the handlers the client sets: one with listeners only is never heard. */
export function sockets(): void {
  class Listening {
    readyState = 0;
    send(_data: string) {}
    close() {}
    addEventListener(_type: string, _listener: () => void) {}
  }
  // @ts-expect-error TS2322: no `onopen`, `onmessage`, `onclose` or `onerror` for the client to set
  new RealtimeClient(client, { webSocket: Listening });
  class Handled extends Listening {
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
  }
  new RealtimeClient(client, { webSocket: Handled });
}
