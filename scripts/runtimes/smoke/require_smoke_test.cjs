/**
 * The CommonJS smoke of the npm package: `require("@seed/service-client")` and its `./sigv4`
 * subpath load the CommonJS build, `#crypto` resolves to the `node:crypto` variant, and every auth
 * mode works against the local endpoint. Copied into npm/tests/ by the Node and Bun runs, so that the
 * package resolves by its own name (a self-reference through `exports`).
 *
 * Suite-level hooks only: Node 18.17 runs file-level `before` hooks after the suites' tests.
 */
"use strict";

const { after, before, describe, it } = require("node:test");
const assert = require("node:assert/strict");
const { ServiceClient, ServiceGraphQLError, ServiceHttpError, ServiceError } = require(
  "@seed/service-client",
);
const { signRequest } = require("@seed/service-client/sigv4");

describe("require('@seed/service-client')", () => {
  let endpoint;
  let fixtures;
  before(async () => {
    fixtures = await import("./_fixtures.js");
    endpoint = await (await import("./_server.js")).startEndpoint();
  });
  after(() => endpoint.close());

  it("resolves both entries to the CommonJS build", () => {
    assert.match(require.resolve("@seed/service-client"), /[\\/]cjs[\\/]mod\.cjs$/);
    assert.match(require.resolve("@seed/service-client/sigv4"), /[\\/]cjs[\\/]src[\\/]sigv4\.cjs$/);
  });

  it("maps #crypto to the node:crypto variant", () => {
    assert.match(require.resolve("#crypto"), /[\\/]cjs[\\/]src[\\/]crypto_node\.cjs$/);
  });

  for (const mode of ["apiKey", "userpool", "oidc", "lambda", "iam"]) {
    it(`${mode}: the endpoint accepts the request`, async () => {
      const { API_KEY, USERPOOL_JWT, OIDC_JWT, LAMBDA_TOKEN, REGION, CREDENTIALS } = fixtures;
      const auth = {
        apiKey: { type: "apiKey", apiKey: API_KEY },
        userpool: { type: "userpool", jwtToken: USERPOOL_JWT },
        oidc: { type: "oidc", jwtToken: OIDC_JWT },
        lambda: { type: "lambda", authorizationToken: LAMBDA_TOKEN },
        iam: { type: "iam", region: REGION, credentials: CREDENTIALS },
      }[mode];
      const data = await new ServiceClient({ url: endpoint.url, auth }).request("query { whoami }");
      assert.deepEqual(data, { whoami: mode });
    });
  }

  it("loaded the node:crypto variant for iam, and never the web one", () => {
    const loaded = Object.keys(require.cache);
    assert.ok(
      loaded.some((file) => /[\\/]cjs[\\/]src[\\/]crypto_node\.cjs$/.test(file)),
      "crypto_node.cjs loaded",
    );
    assert.ok(
      !loaded.some((file) => /[\\/]cjs[\\/]src[\\/]crypto\.cjs$/.test(file)),
      "crypto.cjs not loaded",
    );
  });

  it("errors are instances of the CommonJS classes", async () => {
    const client = new ServiceClient({
      url: endpoint.url,
      auth: { type: "apiKey", apiKey: fixtures.API_KEY },
    });
    const graphqlError = await client.request("{ hello secret }").catch((err) => err);
    assert.ok(graphqlError instanceof ServiceGraphQLError && graphqlError instanceof ServiceError);
    const denied = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: "da2-wrong" } });
    const httpError = await denied.request("{ hello }").catch((err) => err);
    assert.ok(httpError instanceof ServiceHttpError);
    assert.equal(httpError.status, 401);
  });

  it("signRequest (./sigv4) signs a request the endpoint accepts", async () => {
    const body = JSON.stringify({ query: "{ whoami }" });
    const headers = await signRequest(
      {
        method: "POST",
        url: endpoint.url,
        headers: { "content-type": "application/json; charset=UTF-8" },
        body,
      },
      { region: fixtures.REGION, service: "appsync", credentials: fixtures.CREDENTIALS },
    );
    const response = await fetch(endpoint.url, { method: "POST", headers, body });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { data: { whoami: "iam" } });
  });
});
