/**
 * The counting proxy of scripts/footprint.ts, which CI's download limit rests on: every byte a
 * server sends through it is counted, through a CONNECT tunnel (how Deno and npm reach an https
 * registry) and as a forwarded plain http request; what the client sends is counted apart.
 *
 * Deno only (the proxy listens with `Deno.listen`): not part of the npm build's tests.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { startCountingProxy } from "../../scripts/footprint.ts";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const BODY = 150_000;

/** A server answering every request with BODY bytes. */
async function bigServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-length": String(BODY), connection: "close" }).end(
      new Uint8Array(BODY),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Sends `request` on a raw socket to the proxy; resolves with everything read until it closes. */
function exchange(proxyPort: number, steps: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, "127.0.0.1");
    let text = "";
    let step = 0;
    socket.on("connect", () => socket.write(steps[step++]!));
    socket.on("data", (chunk: Uint8Array) => {
      text += new TextDecoder().decode(chunk);
      // After the tunnel's answer, the request that goes through it.
      if (step < steps.length && text.includes("\r\n\r\n")) socket.write(steps[step++]!);
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
  });
}

describe("the counting proxy", { skip: isDeno ? false : "listens with Deno.listen" }, () => {
  it("counts what comes back through a CONNECT tunnel, and what goes out apart", async () => {
    const { server, port } = await bigServer();
    const proxy = startCountingProxy();
    try {
      const request = `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`;
      const text = await exchange(Number(new URL(proxy.url).port), [
        `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`,
        request,
      ]);
      assert.match(text, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
      const head = text.slice(text.indexOf("HTTP/1.1 200 OK"), text.lastIndexOf("\r\n\r\n") + 4);
      // The server's head and body, exactly: the proxy's own answer is not what came from the network.
      assert.equal(proxy.received(), head.length + BODY);
      assert.equal(proxy.sent(), request.length);
    } finally {
      await proxy.close();
      await stop(server);
    }
  });

  it("counts a plain http request it forwards, and adds each one to the total", async () => {
    const { server, port } = await bigServer();
    const proxy = startCountingProxy();
    try {
      const request = `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`;
      const proxyPort = Number(new URL(proxy.url).port);
      const first = await exchange(proxyPort, [request]);
      assert.match(first, /^HTTP\/1\.1 200 OK/);
      assert.equal(proxy.received(), first.length);
      const second = await exchange(proxyPort, [request]);
      assert.equal(proxy.received(), first.length + second.length);
      assert.equal(proxy.sent(), 2 * request.length);
    } finally {
      await proxy.close();
      await stop(server);
    }
  });

  it("answers 502 for a host it cannot reach, and counts nothing received", async () => {
    const { server, port } = await bigServer();
    await stop(server); // the port is free now: nothing listens there
    const proxy = startCountingProxy();
    try {
      const text = await exchange(Number(new URL(proxy.url).port), [
        `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`,
      ]);
      assert.match(text, /^HTTP\/1\.1 502 /);
      assert.equal(proxy.received(), 0);
    } finally {
      await proxy.close();
    }
  });
});
