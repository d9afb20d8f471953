/**
 * The demo: starts the local endpoint (tests/_server.ts, on 127.0.0.1) and runs the client through
 * every auth mode, a typed document, a partial result, a retried 503, a timeout and an abort; then a
 * subscription through `./realtime` on the endpoint's own real-time, whose events are the posts that
 * mutations add, and one refused for its key; then exits. Run it with `deno task demo`.
 *
 * @module
 */

import { parse } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import {
  type AuthOptions,
  type ServiceAbortError,
  ServiceClient,
  type ServiceGraphQLError,
  type ServiceHttpError,
} from "../mod.ts";
import { send, startEndpoint } from "../tests/_server.ts";
import { API_KEY, CREDENTIALS, LAMBDA_TOKEN, OIDC_JWT, REGION, USERPOOL_JWT } from "../tests/_fixtures.ts";
import { rejection } from "../tests/_fixtures.ts";
import { RealtimeClient } from "../src/realtime.ts";

const endpoint = await startEndpoint();
const line = (label: string, text: string) => console.log(`  ${label.padEnd(30)} ${text}`);
console.log(`Local endpoint: ${endpoint.url}\n`);

try {
  console.log("Auth modes (the endpoint answers which mode it accepted):");
  const modes: AuthOptions[] = [
    { type: "apiKey", apiKey: API_KEY },
    { type: "userpool", jwtToken: () => Promise.resolve(USERPOOL_JWT) },
    { type: "oidc", jwtToken: OIDC_JWT },
    { type: "lambda", authorizationToken: LAMBDA_TOKEN },
    { type: "iam", region: REGION, credentials: CREDENTIALS },
  ];
  for (const auth of modes) {
    const client = new ServiceClient({ url: endpoint.url, auth });
    const { whoami } = await client.request<{ whoami: string }>("{ whoami }");
    const header = auth.type === "apiKey" ? "x-api-key" : "authorization";
    const sent = endpoint.requests.at(-1)!.headers[header]!;
    line(auth.type, `accepted as ${whoami}; ${header}: ${sent.slice(0, 24)}…`);
  }

  const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });

  console.log("\nTyped document (types inferred from the document):");
  const PostQuery: TypedDocumentNode<{ post: { title: string } | null }, { id: string }> = parse(
    "query Post($id: ID!) { post(id: $id) { title } }",
  );
  const { post } = await client.request(PostQuery, { id: "2" });
  line("post(id: 2).title", JSON.stringify(post?.title));

  console.log("\nPartial result (a field denied at field level):");
  const raw = await client.requestRaw("{ hello secret }");
  line("requestRaw data", JSON.stringify(raw.data));
  line("requestRaw errors[0]", `${raw.errors?.[0]?.errorType}: ${raw.errors?.[0]?.message}`);
  const thrown = await rejection(client.request("{ hello secret }"));
  line("request throws", `${thrown.name} (${(thrown as ServiceGraphQLError).code})`);

  console.log("\nRetries (the endpoint answers 503 twice, then data):");
  endpoint.route(
    "flaky",
    (_req, res, count, pass) => count <= 2 ? send(res, 503, { message: "busy" }) : pass(),
  );
  const retrying = new ServiceClient({
    url: endpoint.urlFor("flaky"),
    auth: { type: "apiKey", apiKey: API_KEY },
    retry: { attempts: 3, baseDelayMs: 50 },
  });
  const started = Date.now();
  const data = await retrying.request<{ hello: string }>("{ hello }");
  line("after 3 attempts", `${JSON.stringify(data)} in ${Date.now() - started} ms`);

  console.log("\nErrors:");
  const slow = await rejection(client.request("{ slow(ms: 2000) }", undefined, { timeoutMs: 200 }));
  line(
    "timeoutMs: 200 on a 2 s query",
    `${slow.name}, code ${slow.code}, reason ${(slow as ServiceAbortError).reason}`,
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const aborted = await rejection(
    client.request("{ slow(ms: 2000) }", undefined, { signal: controller.signal }),
  );
  line("caller abort after 100 ms", `${aborted.name}, reason ${(aborted as ServiceAbortError).reason}`);
  const wrongKey = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: "da2-wrong" } });
  const denied = await rejection(wrongKey.request("{ hello }"));
  line("a wrong API key", `${denied.name}, status ${(denied as ServiceHttpError).status}`);

  console.log("\nIntrospection:");
  const schema = await client.introspect();
  line("types in the schema", String(schema.__schema.types.filter((t) => !t.name.startsWith("__")).length));

  console.log(
    "\nSubscription (./realtime, on the endpoint's own real-time; addPost mutations are the events):",
  );
  line("real-time URL", endpoint.realtimeUrl);
  const realtime = new RealtimeClient(client, { onStateChange: (state) => line("connection", state) });
  const events = realtime.subscribe<{ onPost: { title: string } }>("subscription { onPost { title } }");
  // Two posts added over HTTP once the subscription has started.
  const posting = endpoint.until(() => endpoint.liveSubscriptions === 1, "the start").then(async () => {
    for (const title of ["First", "Second"]) {
      await client.mutate("mutation Add($title: String!) { addPost(title: $title) { id } }", { title });
    }
  });
  let received = 0;
  for await (const data of events) {
    line(`event ${++received}`, JSON.stringify(data));
    if (received === 2) break; // sends stop
  }
  await posting;
  await endpoint.until(() => endpoint.liveSubscriptions === 0, "the stop");
  line("after break", `live subscriptions on the endpoint: ${endpoint.liveSubscriptions}`);
  realtime.close();
  const refused = await rejection(
    new RealtimeClient(wrongKey).subscribe("subscription { onPost { id } }").next(),
  );
  line("subscribing with a wrong key", `${refused.name}: ${refused.message}`);
} finally {
  await endpoint.close();
}
console.log("\nDone.");
