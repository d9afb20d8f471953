/**
 * The real-time entry's size: a subscriber with API key auth (one client, one subscription, a state
 * observer). `scripts/size.ts` bundles it beside `api_key.ts` and counts the output files this
 * application loads (statically or through `import()`) that the API-key application does not: what
 * a subscriber loads beyond the core. Bundled, never run.
 *
 * @module
 */

import { ServiceClient } from "@seed/service-client";
import { RealtimeClient } from "@seed/service-client/realtime";

const client = new ServiceClient({
  url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
  auth: { type: "apiKey", apiKey: "da2-example" },
});
const realtime = new RealtimeClient(client, { onStateChange: (state) => console.log(state) });

/** Prints the titles of new posts until the first one with a title. */
export async function watch(): Promise<void> {
  for await (
    const data of realtime.subscribe<{ onPost: { title: string } }>("subscription { onPost { title } }")
  ) {
    console.log(data.onPost.title);
    if (data.onPost.title) break;
  }
  realtime.close();
}
