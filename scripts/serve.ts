/**
 * Starts the local endpoint (tests/_server.ts, on 127.0.0.1) and keeps it running, to try the
 * README's examples against: it prints the URL and the key, tokens and credentials it accepts.
 * Stop it with Ctrl-C.
 *
 * Usage: `deno task serve` (`--port N` for a fixed port; by default the system picks one).
 *
 * @module
 */

import { startEndpoint } from "../tests/_server.ts";
import { API_KEY, CREDENTIALS, LAMBDA_TOKEN, OIDC_JWT, REGION, USERPOOL_JWT } from "../tests/_fixtures.ts";

const portFlag = Deno.args.indexOf("--port");
const port = portFlag === -1 ? 0 : Number(Deno.args[portFlag + 1]);
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
Try: curl -s ${endpoint.url} -H 'x-api-key: da2-example' -H 'content-type: application/json; charset=UTF-8' -d '{"query":"{ hello }"}'`);
Deno.addSignalListener("SIGINT", () => endpoint.close().then(() => Deno.exit(0)));
