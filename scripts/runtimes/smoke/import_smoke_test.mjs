/**
 * The ESM smoke of the npm package: `import` of `@seed/service-client` and `./sigv4` loads the ESM
 * build, and `#crypto` resolves to the `node:crypto` variant (where `import.meta.resolve` exists:
 * not on Node 18.17 without a flag). The compiled tests in npm/tests/ import the package the same
 * way and cover every auth mode; this file checks what they take for granted.
 * Copied into npm/tests/ by the Node and Bun runs.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import * as client from "@seed/service-client";
import * as sigv4 from "@seed/service-client/sigv4";

const require = createRequire(import.meta.url);

describe("import '@seed/service-client'", () => {
  it("exposes the public surface", () => {
    for (
      const name of ["ServiceClient", "ServiceError", "ServiceAbortError", "isServiceError", "RETRY_DEFAULTS"]
    ) {
      assert.ok(name in client, `${name} is exported`);
    }
    assert.equal(typeof sigv4.signRequest, "function");
  });

  it("loads the ESM build, not the CommonJS one", () => {
    const cjs = require("@seed/service-client");
    assert.notEqual(cjs.ServiceClient, client.ServiceClient);
  });

  it("with both builds loaded, each one's isServiceError recognizes the other's errors", async () => {
    const cjs = require("@seed/service-client");
    // A real failure from each copy: connection refused on a port that was just freed.
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address();
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/graphql`;
    const auth = { type: "apiKey", apiKey: "da2-smoke" };
    const fromCjs = await new cjs.ServiceClient({ url, auth }).request("{ hello }").catch((e) => e);
    const fromEsm = await new client.ServiceClient({ url, auth }).request("{ hello }").catch((e) => e);
    assert.ok(fromCjs instanceof cjs.ServiceNetworkError && !(fromCjs instanceof client.ServiceError));
    assert.ok(fromEsm instanceof client.ServiceNetworkError && !(fromEsm instanceof cjs.ServiceError));
    assert.equal(client.isServiceError(fromCjs), true);
    assert.equal(cjs.isServiceError(fromEsm), true);
    assert.equal(client.isServiceError(new cjs.ServiceAuthError("apiKey", "getter threw")), true);
  });

  it("maps #crypto to the node:crypto variant", {
    skip: typeof import.meta.resolve !== "function" && "no import.meta.resolve",
  }, () => {
    assert.match(import.meta.resolve("#crypto"), /\/esm\/src\/crypto_node\.js$/);
    assert.match(import.meta.resolve("@seed/service-client"), /\/esm\/mod\.js$/);
  });
});
