// One POST with Node's own fetch to a local server, then a natural exit with the code given as the
// first argument (0 by default). Used by node18_exit_check.ts: no library, only fetch.
import { createServer } from "node:http";

const server = createServer((_request, response) => response.end("{}"));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const response = await fetch(`http://127.0.0.1:${server.address().port}/`, { method: "POST", body: "{}" });
await response.text();
// Not closeAllConnections(): the process then waits ~4 s for fetch's idle keep-alive connection,
// and that wait is part of what makes Node 18.17.1 hang at exit here (closing it at once avoids it).
server.close();
process.exitCode = Number(process.argv[2] ?? 0);
