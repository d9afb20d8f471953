/**
 * The local endpoint (tests/_server.ts) for the browser, worker and edge runs, with the routes
 * their checks need: `/hang/graphql` never answers; `/trickle/graphql` sends its headers, then one
 * byte every 50 ms until the client goes away; `/skewed/graphql` answers as `/graphql` with a clock
 * 20 minutes behind (for clock-skew correction, which in a browser reads the server's time from
 * the refusal's message: the endpoint's CORS headers do not expose `Date`); `/reset/graphql` drops
 * the connection without an answer; `/retry-after/graphql` answers a body it has not seen before
 * with 503 and `Retry-After: 0` (exposed to CORS), and as `/graphql` the second time;
 * `/redirect/graphql` redirects (302) to `/graphql`, which would answer; `/gzip/graphql` answers
 * `{"data":{"hello":"✓✓✓…"}}` (800 check marks, 2,421 bytes) gzipped, with the compressed length.
 *
 * @module
 */

import { gzipSync } from "node:zlib";
import { type Endpoint, send, startEndpoint } from "../../tests/_server.ts";

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
  endpoint.route("skewed", (_request, _response, _count, pass) => pass(-20 * 60_000));
  endpoint.route("reset", (_request, response) => void response.socket?.destroy());
  endpoint.route(
    "redirect",
    (_request, response) => void response.writeHead(302, { location: "/graphql" }).end(),
  );
  const gzipped = gzipSync(JSON.stringify({ data: { hello: "✓".repeat(800) } }));
  endpoint.route("gzip", (_request, response) => {
    const headers = { "content-type": "application/json", "content-encoding": "gzip" };
    response.writeHead(200, { ...headers, "content-length": gzipped.length }).end(gzipped);
  });
  const seen = new Set<string>();
  endpoint.route("retry-after", (request, response, _count, pass) => {
    if (seen.has(request.body)) return pass();
    seen.add(request.body);
    return send(response, 503, { message: "Slow down" }, {
      "retry-after": "0",
      "access-control-expose-headers": "retry-after",
    });
  });
  return { endpoint, base: endpoint.url.replace(/\/graphql$/, "") };
}
