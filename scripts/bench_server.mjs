/**
 * The loopback endpoint of `scripts/bench.ts`: a `node:http` server on 127.0.0.1 (port 0) that
 * drains each request body and answers every request with the same pre-encoded GraphQL JSON, over
 * keep-alive connections. No auth check and no GraphQL execution: their cost would swamp the
 * differences between clients, which is what the benchmark measures.
 *
 * Plain JavaScript so that the benchmark can start it with Node from Deno and from Node alike:
 * `node scripts/bench_server.mjs`. It prints `{"port":N}` on one line once it listens, and exits
 * when its stdin closes (when the benchmark ends, or dies).
 *
 * @module
 */

import { createServer } from "node:http";
import process from "node:process";

const BODY = new TextEncoder().encode(
  JSON.stringify({ data: { post: { id: "1", title: "Hello", content: "First post" } } }),
);
const HEADERS = { "content-type": "application/json", "content-length": String(BODY.length) };

const server = createServer((request, response) => {
  request.on("data", () => {});
  request.on("end", () => {
    response.writeHead(200, HEADERS);
    response.end(BODY);
  });
});
// Longer than any pause between the benchmark's rounds, so that connections are reused throughout.
server.keepAliveTimeout = 120_000;

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }) + "\n",
  );
});

process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
