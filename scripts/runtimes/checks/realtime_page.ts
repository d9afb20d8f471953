/**
 * The page script of the browser's real-time run (`../realtime.ts`): subscribes through the
 * package's `./realtime` entry to the runner's local real-time server (`?url=` its GraphQL URL),
 * takes the first event, ends the subscription with `break`, and waits for the idle socket to close.
 * The results land on `window.__results`; what the server saw is checked by the runner.
 *
 * @module
 */

import { ServiceClient } from "@seed/service-client";
import { type ConnectionState, RealtimeClient } from "@seed/service-client/realtime";

interface Check {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

const results: Check[] = [];
async function check(name: string, run: () => Promise<void>): Promise<void> {
  const started = performance.now();
  try {
    await run();
    results.push({ name, ok: true, ms: Math.round(performance.now() - started) });
  } catch (err) {
    results.push({ name, ok: false, ms: Math.round(performance.now() - started), error: String(err) });
  }
}

const url = new URLSearchParams(location.search).get("url") ?? "";
const states: ConnectionState[] = [];
let closed: () => void;
const isClosed = new Promise<void>((resolve) => closed = resolve);
const client = new ServiceClient({ url, auth: { type: "apiKey", apiKey: "da2-browser" } });
const realtime = new RealtimeClient(client, {
  onStateChange: (state) => {
    states.push(state);
    if (state === "closed") closed();
  },
});

await check("a subscription receives the first event through the global WebSocket", async () => {
  for await (const data of realtime.subscribe<{ onPost: { id: string } }>("subscription { onPost { id } }")) {
    if (data.onPost.id !== "browser") throw new Error(`unexpected event ${JSON.stringify(data)}`);
    break;
  }
});
await check("the idle socket closes after break; states connecting, connected, closed", async () => {
  await isClosed;
  if (states.join() !== "connecting,connected,closed") throw new Error(`states ${states.join()}`);
});
(globalThis as { __results?: Check[] }).__results = results;
