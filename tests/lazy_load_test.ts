/**
 * The modules a call loads lazily (the printer for document nodes, the introspection query, the iam
 * signer) are loaded under the call's timeout and signal, and a failed load is a network failure
 * that a retry policy retries. Loads are injected through `send()`'s `load` (a real chunk load
 * cannot be slowed or broken from here); requests go to the local endpoint.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ServiceAbortError, ServiceClient, ServiceNetworkError } from "../mod.ts";
import { clientState, send } from "../src/call.ts";
import { chunkLoadFailed } from "../src/errors.ts";
import { clientConfig } from "../src/options.ts";
import { type PreparedDocument, prepareDocument } from "../src/document.ts";
import { parse } from "graphql";
import { type Endpoint, startEndpoint } from "./_server.ts";
import { API_KEY, CREDENTIALS, REGION, rejection } from "./_fixtures.ts";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

let endpoint: Endpoint;

/** A client's state, as `ServiceClient` makes it. */
function state(extra: Record<string, unknown> = {}) {
  return clientState(
    clientConfig({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY }, ...extra }),
  );
}

const never = () => new Promise<PreparedDocument>(() => {});

/** A load that fails the first time, as a chunk's load fails when the network is gone, then succeeds. */
function failingOnce() {
  let count = 0;
  const load = () =>
    ++count === 1
      ? Promise.reject(new TypeError("Failed to fetch dynamically imported module")).catch(chunkLoadFailed)
      : Promise.resolve(HELLO);
  return { load, loads: () => count };
}
const HELLO = { query: "{ hello }" };

describe("lazily loaded modules", () => {
  before(async () => {
    endpoint = await startEndpoint();
  });
  after(() => endpoint.close());

  it("a document node is printed once: a later call with the same node has its text at once", async () => {
    const node = parse("query Once { hello }", { noLocation: true });
    const first = prepareDocument(node);
    assert.ok(first instanceof Promise, "printed by the lazily loaded printer");
    const printed = await first;
    assert.deepEqual(printed, { query: "query Once{hello}", operationName: "Once" });
    assert.equal(prepareDocument(node), printed, "remembered: no second load or print");
  });

  // First in this file: an iam client whose signer has never loaded (the failure is checked for clock
  // skew only once the signer is there).
  it("iam: a failed load before the signer ever loaded is a ServiceNetworkError, retried", async () => {
    const iam = { type: "iam", region: REGION, credentials: CREDENTIALS };
    const err = await rejection(
      send(state({ auth: iam }), undefined, undefined, undefined, true, failingOnce().load),
    );
    assert.ok(err instanceof ServiceNetworkError, String(err));
    const retrying = state({ auth: iam, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const again = failingOnce();
    assert.deepEqual(await send(retrying, undefined, undefined, undefined, true, again.load), {
      hello: "world",
    });
    assert.equal(again.loads(), 2);
  });

  it("a call that ends while its document loads calls no getter", async () => {
    let release!: () => void;
    const load = () => new Promise<PreparedDocument>((resolve) => release = () => resolve(HELLO));
    let reads = 0;
    const controller = new AbortController();
    const sent = send(
      state({ auth: { type: "apiKey", apiKey: () => (reads++, API_KEY) } }),
      undefined,
      undefined,
      { signal: controller.signal },
      true,
      load,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    assert.ok(await rejection(sent) instanceof ServiceAbortError);
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(reads, 0);
  });

  it("a load that never ends is cut by the call's timeout: ServiceAbortError, reason timeout", async () => {
    const started = Date.now();
    const err = await rejection(send(state(), undefined, undefined, { timeoutMs: 100 }, true, never));
    assert.ok(err instanceof ServiceAbortError);
    assert.equal(err.reason, "timeout");
    assert.ok(Date.now() - started < 2_000, "within 2 s");
  });

  it("a load that never ends is cut by the client's timeout and by the caller's signal", async () => {
    const byClient = await rejection(
      send(state({ timeoutMs: 100 }), undefined, undefined, undefined, true, never),
    );
    assert.equal(byClient.reason, "timeout");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const bySignal = await rejection(
      send(state(), undefined, undefined, { signal: controller.signal }, true, never),
    );
    assert.ok(bySignal instanceof ServiceAbortError);
    assert.equal(bySignal.reason, "abort");
  });

  it("an already-aborted signal rejects at once, without waiting for the load", async () => {
    const before = endpoint.requests.length;
    const err = await rejection(
      send(state(), undefined, undefined, { signal: AbortSignal.abort() }, true, never),
    );
    assert.ok(err instanceof ServiceAbortError);
    assert.equal(endpoint.requests.length, before);
  });

  it("a load that fails after the call was aborted leaves no unhandled rejection", async () => {
    let fail!: (reason: unknown) => void;
    const load = () => new Promise<PreparedDocument>((_, reject) => fail = reject).catch(chunkLoadFailed);
    const controller = new AbortController();
    const sent = send(state(), undefined, undefined, { signal: controller.signal }, true, load);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(typeof fail, "function", "the load has begun");
    controller.abort();
    const err = await rejection(sent);
    assert.ok(err instanceof ServiceAbortError);
    fail(new TypeError("Failed to fetch dynamically imported module"));
    // An unhandled rejection would fail this test on Deno and end the process on Node.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it("a failed load is a ServiceNetworkError, retried by a retry policy: the next attempt loads again", async () => {
    const first = failingOnce();
    const retrying = state({ retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    assert.deepEqual(await send(retrying, undefined, undefined, undefined, true, first.load), {
      hello: "world",
    });
    assert.equal(first.loads(), 2);

    const err = await rejection(send(state(), undefined, undefined, undefined, true, failingOnce().load));
    assert.ok(err instanceof ServiceNetworkError, "without retry: thrown, typed");
    assert.equal(err.code, "NETWORK_ERROR");
    assert.equal((err.cause as Error).message, "Failed to fetch dynamically imported module");
  });

  it("bad variables are refused once the document has loaded, with no request sent", async () => {
    const before = endpoint.requests.length;
    const err = await rejection(
      send(state({ timeoutMs: 1_000 }), undefined, "nope", undefined, true, () => Promise.resolve(HELLO)),
    );
    assert.equal(err.code, "INVALID_ARGUMENT");
    assert.equal(endpoint.requests.length, before);
  });

  it("document nodes and introspect() go through the same path: they resolve under a timeout", async () => {
    const client = new ServiceClient({
      url: endpoint.url,
      auth: { type: "apiKey", apiKey: API_KEY },
      timeoutMs: 5_000,
    });
    const document = {
      kind: "Document",
      definitions: [{
        kind: "OperationDefinition",
        operation: "query",
        selectionSet: {
          kind: "SelectionSet",
          selections: [{ kind: "Field", name: { kind: "Name", value: "hello" } }],
        },
      }],
    } as const;
    assert.deepEqual(await client.request(document as never), { hello: "world" });
    const schema = await client.introspect({ signal: new AbortController().signal });
    assert.equal(typeof schema.__schema, "object");
  });

  // Deno only: an import map can send one module of the source to a file that does not exist, so
  // that the client's own `import()` fails for real. Node and Bun run the built package, where no
  // runtime-neutral way breaks one chunk's load; `send()`'s injected loads above cover the path.
  it("a real failed import() of the introspection query is a ServiceNetworkError (Deno: an import map)", {
    skip: !("Deno" in globalThis) && "Deno only: it breaks the module's load with an import map",
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "lazy-load-"));
    try {
      const map = join(dir, "import_map.json");
      const introspection = new URL("../src/introspection.ts", import.meta.url).href;
      writeFileSync(map, JSON.stringify({ imports: { [introspection]: `file://${dir}/missing.ts` } }));
      const script = `import { ServiceClient } from ${
        JSON.stringify(new URL("../mod.ts", import.meta.url).href)
      };
        const client = new ServiceClient({ url: "https://example.com/graphql", auth: { type: "apiKey", apiKey: "k" },
          fetch: () => Promise.resolve(Response.json({ data: {} })) });
        const err = await client.introspect().catch((e) => e);
        console.log(JSON.stringify([err.name, err.code, String(err.cause)]));`;
      const run = spawnSync(process.execPath, ["eval", "--no-check", `--import-map=${map}`, script], {
        encoding: "utf8",
      });
      assert.equal(run.status, 0, run.stderr);
      const [name, code, cause] = JSON.parse(run.stdout);
      assert.equal(name, "ServiceNetworkError");
      assert.equal(code, "NETWORK_ERROR");
      assert.match(cause, /missing\.ts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
