// A subscriber that must exit by itself: run by `scripts/runtimes/realtime.ts` under each runtime
// against its local real-time server. It subscribes, prints the first event, ends the subscription
// (`break`, then the idle socket closes a second later; or `close()`, also towards a frozen peer that
// leaves the close unanswered) and returns: any timer, listener or socket the client left behind
// would keep the process alive past the runner's limit.
//
// Arguments: the GraphQL URL, the URLs of the package's main and realtime modules, `break`, `close`
// or `frozen`.
import process from "node:process";

const [url, mainModule, realtimeModule, mode] = process.argv.slice(2);
const { ServiceClient } = await import(mainModule);
const { RealtimeClient } = await import(realtimeModule);
const ws = "ws"; // Node 18 and 20 have no global WebSocket
const webSocket = globalThis.WebSocket ?? (await import(ws)).WebSocket;
const client = new ServiceClient({ url, auth: { type: "apiKey", apiKey: "da2-exit-check" } });
const realtime = new RealtimeClient(client, { webSocket });
for await (const data of realtime.subscribe("subscription { onPost { id } }")) {
  console.log(`received ${JSON.stringify(data)}`);
  break;
}
if (mode !== "break") realtime.close();
console.log(`ended by ${mode}, state ${realtime.state}`);
