/**
 * The endpoint of the soak (`scripts/soak.ts`), in a process of its own so that the heap the soak
 * measures is the client's alone. `node:http` on 127.0.0.1, port 0: every POST with the right
 * `x-api-key` gets `{"data":{"hello":"world"}}`, anything else a 401 in the service's shape.
 * Prints `listening <url>` once ready; stops on SIGTERM or when its stdin closes (so it never
 * outlives the soak). Runs on Deno, Node and Bun.
 *
 * Usage: `deno run -A scripts/soak_server.ts <api-key>` (or `node`/`bun` on a compiled copy).
 *
 * @module
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";

const apiKey = process.argv[2] ?? "da2-soak";
const OK = '{"data":{"hello":"world"}}';
const UNAUTHORIZED = '{"errors":[{"errorType":"UnauthorizedException","message":"Wrong key"}]}';

const server = createServer((req, res) => {
  let size = 0;
  req.on("data", (chunk: Uint8Array) => void (size += chunk.length));
  req.on("end", () => {
    const allowed = req.method === "POST" && size > 0 && req.headers["x-api-key"] === apiKey;
    const body = allowed ? OK : UNAUTHORIZED;
    res.writeHead(allowed ? 200 : 401, {
      "content-type": "application/json; charset=UTF-8",
      "content-length": body.length,
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;

function stop(): void {
  server.close();
  server.closeAllConnections?.();
  process.stdin.destroy();
}

process.on("SIGTERM", stop);
process.stdin.on("close", stop);
process.stdin.on("end", stop);
process.stdin.resume();

server.listen(0, "127.0.0.1", 2_048, () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening http://127.0.0.1:${port}/graphql`);
});
