/**
 * Starts the local endpoint (tests/_server.ts, on 127.0.0.1) and keeps it running, to try the
 * README's examples against: it prints the URL and the key, tokens and credentials it accepts.
 * Subscriptions too: the real-time protocol on the same port (a `RealtimeClient` of a client of
 * that URL finds it), where each `addPost` sent to the URL is an `onPost` event. Stop it with Ctrl-C.
 *
 * Usage: `deno task serve` (`--port N` or `--port=N` for a fixed port; by default the system picks
 * one). A port that is not a number from 0 to 65535 exits with code 2, one in use with code 1, each
 * saying why.
 *
 * @module
 */

import { startEndpoint } from "../tests/_server.ts";
import { API_KEY, CREDENTIALS, LAMBDA_TOKEN, OIDC_JWT, REGION, USERPOOL_JWT } from "../tests/_fixtures.ts";

/** The `--port` argument (`--port N` or `--port=N`), 0 without one; undefined when it is not a port. */
function portArgument(args: readonly string[]): number | undefined {
  let text: string | undefined = "0";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--port") text = args[++i];
    else if (arg.startsWith("--port=")) text = arg.slice("--port=".length);
    else return undefined;
  }
  if (text === undefined || !/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

const port = portArgument(Deno.args);
if (port === undefined) {
  console.error(`Usage: deno task serve [--port N] (N from 0 to 65535; 0 lets the system pick one)`);
  Deno.exit(2);
}
if (port !== 0) {
  // node:http reports a port in use as an unhandled error event; say it plainly instead.
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  } catch (err) {
    const reason = err instanceof Deno.errors.AddrInUse ? "is in use" : `cannot be listened on (${err})`;
    console.error(`Port ${port} on 127.0.0.1 ${reason}: choose another with --port N`);
    Deno.exit(1);
  }
}
const endpoint = await startEndpoint({ port });
endpoint.apiKeys.add("da2-example"); // the README's examples' key
console.log(`Local endpoint: ${endpoint.url}  (Ctrl-C to stop)

Accepted:
  apiKey              ${API_KEY} or da2-example
  userpool            ${USERPOOL_JWT}
  oidc                ${OIDC_JWT}
  lambda              ${LAMBDA_TOKEN}
  iam                 region ${REGION}, ${JSON.stringify(CREDENTIALS)}

Schema: tests/fixtures/schema.graphql (introspection is on).
Subscriptions: ${endpoint.realtimeUrl} (a RealtimeClient finds it from the URL above)
  subscription { onPost { id title } } gets each post that
  mutation { addPost(title: "Hi") { id } } adds.
Try: curl -s ${endpoint.url} -H 'x-api-key: da2-example' -H 'content-type: application/json; charset=UTF-8' -d '{"query":"{ hello }"}'`);
Deno.addSignalListener("SIGINT", () => endpoint.close().then(() => Deno.exit(0)));
