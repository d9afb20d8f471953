/**
 * Run by serve_realtime_test.ts in a process of its own: a subscription to the local endpoint gets
 * the event of a mutation and the keep-alives of its socket; then the endpoint is closed under the
 * live socket, and the client closed. It prints the event and returns: the process must then end by
 * itself, which a keep-alive timer or a socket left behind would prevent.
 *
 * @module
 */

import { ServiceClient } from "../../mod.ts";
import { RealtimeClient } from "../../src/realtime.ts";
import { startEndpoint } from "../_server.ts";
import { API_KEY } from "../_fixtures.ts";

const endpoint = await startEndpoint({ keepAliveMs: 20 });
const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
const realtime = new RealtimeClient(client);
const event = realtime.subscribe("subscription { onPost { title } }").next();
await endpoint.until(() => endpoint.liveSubscriptions === 1, "the start");
await client.mutate('mutation { addPost(title: "Exit") { id } }');
console.log(JSON.stringify((await event).value));
await new Promise((resolve) => setTimeout(resolve, 100)); // a few keep-alives
await endpoint.close();
realtime.close();
