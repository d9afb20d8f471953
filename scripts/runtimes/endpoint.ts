/**
 * The local endpoint (tests/_server.ts) for the browser, worker and edge runs, with the two routes
 * their timeout and abort checks need: `/hang/graphql` never answers, and `/trickle/graphql` sends
 * its headers, then one byte every 50 ms until the client goes away.
 *
 * @module
 */

import { type Endpoint, startEndpoint } from "../../tests/_server.ts";

/** A running endpoint and its base URL (`http://127.0.0.1:PORT`). */
export interface RuntimeEndpoint {
  readonly endpoint: Endpoint;
  readonly base: string;
}

/**
 * Starts the endpoint on 127.0.0.1 with the `hang` and `trickle` routes.
 *
 * @returns The endpoint; call `endpoint.close()` when done.
 */
export async function startRuntimeEndpoint(): Promise<RuntimeEndpoint> {
  const endpoint = await startEndpoint();
  endpoint.route("hang", () => new Promise<void>(() => {}));
  endpoint.route("trickle", (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"data":{"hello":"');
    const timer = setInterval(() => response.write("x"), 50);
    response.on("close", () => clearInterval(timer));
  });
  return { endpoint, base: endpoint.url.replace(/\/graphql$/, "") };
}
