/**
 * The ESM smoke of the npm package: `import` of `@seed/service-client` and `./sigv4` loads the ESM
 * build, and `#crypto` resolves to the `node:crypto` variant (where `import.meta.resolve` exists:
 * not on Node 18.17 without a flag). The compiled tests in npm/tests/ import the package the same
 * way and cover every auth mode; this file checks what they take for granted.
 * Copied into npm/tests/ by the Node and Bun runs.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
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

  it("maps #crypto to the node:crypto variant", {
    skip: typeof import.meta.resolve !== "function" && "no import.meta.resolve",
  }, () => {
    assert.match(import.meta.resolve("#crypto"), /\/esm\/src\/crypto_node\.js$/);
    assert.match(import.meta.resolve("@seed/service-client"), /\/esm\/mod\.js$/);
  });
});
