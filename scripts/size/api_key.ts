/**
 * Size budget (b), a user of API key auth only: one client, one typed string request. Only the
 * chunks loaded before its first request count (none reached through `import()`). Bundled by
 * `scripts/size.ts`, never run.
 *
 * @module
 */

import { ServiceClient } from "@seed/service-client";

const client = new ServiceClient({
  url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
  auth: { type: "apiKey", apiKey: "da2-example" },
});

/** Sends one query. */
export async function hello(): Promise<string> {
  const data = await client.request<{ hello: string }>("query { hello }");
  return data.hello;
}
