/**
 * Every TypeScript block of README.md runs here, against the local endpoint: the example URLs are
 * rewritten to it and `@seed/service-client` points at the source. `deno task check` type-checks
 * the same blocks (`deno check --doc-only README.md`).
 *
 * Deno only: the blocks are TypeScript, which Node 18/20 cannot run, and the npm build's tests
 * exercise the same API through the other test files.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Endpoint, startEndpoint } from "./_server.ts";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const BLOCKS = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => ({
  index,
  line: README.slice(0, match.index).split("\n").length,
  code: match[1]!,
}));
const EXAMPLE_URLS = [
  "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
  "https://api.example.com/graphql",
];
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

let endpoint: Endpoint;
let dir: string;

// One outer suite owns the endpoint: Node 18 runs file-level hooks only after the suites, and
// waits for an empty event loop before a file-level after().
describe("readme", () => {
  before(async () => {
    endpoint = await startEndpoint();
    endpoint.apiKeys.add("da2-example");
    dir = mkdtempSync(join(tmpdir(), "readme-"));
  });
  after(async () => {
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe(
    "README code blocks run",
    { skip: isDeno ? false : "README blocks are TypeScript: run on Deno" },
    () => {
      it("the README has TypeScript blocks to run", () =>
        assert.ok(BLOCKS.length >= 10, `${BLOCKS.length} blocks`));

      for (const block of BLOCKS) {
        it(`README.md block at line ${block.line}`, async () => {
          let code = block.code;
          for (const url of EXAMPLE_URLS) code = code.replaceAll(url, endpoint.url);
          code = code
            .replaceAll(
              '"@seed/service-client/sigv4"',
              JSON.stringify(new URL("../src/sigv4.ts", import.meta.url).href),
            )
            .replaceAll('"@seed/service-client"', JSON.stringify(new URL("../mod.ts", import.meta.url).href));
          const file = join(dir, `block_${block.index}.ts`);
          writeFileSync(file, `${code}\nexport {};\n`);
          const before = endpoint.requests.length;
          await import(`file://${file}`);
          if (/\.(request|requestRaw|query|mutate|introspect)\(/.test(block.code)) {
            assert.ok(endpoint.requests.length > before, "the block's requests reached the endpoint");
          }
        });
      }
    },
  );
});
