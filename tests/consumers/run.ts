/**
 * The npm package's declaration files compile for consumers on TypeScript 5 (deno.json's
 * `typescript5`), with `moduleResolution` `node16` (an ESM and a CJS file), `bundler` and `node10`,
 * and `skipLibCheck` off: attw checks that the types resolve; this checks that they compile, and
 * that project/consumer.ts type-checks against them as it would in a consumer's project.
 *
 * Each mode gets a project in a temporary folder: project/'s tsconfig and consumer, and a
 * node_modules that links the built package (npm/) and its peers (`graphql`,
 * `@graphql-typed-document-node/core`, from the repository's node_modules).
 *
 * Run after the npm build: `deno task build:npm && deno task test:consumers`. Skips, saying so,
 * when npm/ has not been built.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as TS from "typescript5";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(dirname(HERE));
const NPM = join(ROOT, "npm");
const PEERS = ["graphql", "@graphql-typed-document-node/core"];
const built = existsSync(join(NPM, "package.json"));
const SKIPPED = "npm/ is absent: run `deno task build:npm` first, then `deno task test:consumers`";
if (!built) console.log(`Skipping the consumer type checks: ${SKIPPED}`);

/** The types entries of npm/package.json that each mode must resolve the package to. */
type Entry = "import" | "require" | "types";

/** Each mode: its tsconfig, and the consumer files it compiles with the entry each must load. */
const MODES: ReadonlyArray<{ mode: string; files: Readonly<Record<string, Entry>> }> = [
  { mode: "node16", files: { "consumer.mts": "import", "consumer.cts": "require" } },
  { mode: "bundler", files: { "consumer.ts": "import" } },
  { mode: "node10", files: { "consumer.ts": "types" } },
];

/** The declaration file npm/package.json names for an entry. */
function declarations(entry: Entry): string {
  const manifest = JSON.parse(readFileSync(join(NPM, "package.json"), "utf8")) as {
    types?: string;
    exports?: { ".": Record<"import" | "require", { types?: string }> };
  };
  const path = entry === "types" ? manifest.types : manifest.exports?.["."][entry].types;
  assert.ok(path, `npm/package.json names the types of "${entry}"`);
  return join(realpathSync(NPM), path);
}

let ts: typeof TS;
let dir: string;

before(async () => {
  if (!built) return;
  const module = await import("typescript5");
  ts = module.default as unknown as typeof TS;
  dir = mkdtempSync(join(tmpdir(), "consumers-"));
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "@seed"), { recursive: true });
  symlinkSync(NPM, join(modules, "@seed", "service-client"), "dir");
  for (const peer of PEERS) {
    const target = realpathSync(join(ROOT, "node_modules", peer));
    mkdirSync(dirname(join(modules, peer)), { recursive: true });
    symlinkSync(target, join(modules, peer), "dir");
  }
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(
  "the npm package's types compile for consumers on TypeScript 5",
  { skip: built ? false : SKIPPED },
  () => {
    it("runs TypeScript 5", () => {
      assert.match(ts.version, /^5\./);
    });

    for (const { mode, files } of MODES) {
      it(`moduleResolution ${mode}: ${Object.keys(files).join(" and ")} compile against the package`, () => {
        const project = join(dir, mode);
        mkdirSync(project);
        const tsconfig = join(project, "tsconfig.json");
        copyFileSync(join(HERE, "project", `tsconfig.${mode}.json`), tsconfig);
        for (const file of Object.keys(files)) {
          copyFileSync(join(HERE, "project", "consumer.ts"), join(project, file));
        }
        symlinkSync(join(dir, "node_modules"), join(project, "node_modules"), "dir");

        const { config, error } = ts.readConfigFile(tsconfig, ts.sys.readFile);
        assert.equal(error, undefined);
        const parsed = ts.parseJsonConfigFileContent(config, ts.sys, project);
        assert.deepEqual(parsed.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, "\n")), []);
        const program = ts.createProgram(parsed.fileNames, parsed.options);
        const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
          const where = diagnostic.file
            ? `${diagnostic.file.fileName}:${
              diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
            }`
            : "";
          return `${where} TS${diagnostic.code}: ${
            ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")
          }`;
        });
        assert.deepEqual(diagnostics, []);

        const loaded = new Set(program.getSourceFiles().map((file) => file.fileName));
        const ours = [...loaded].filter((file) => file.startsWith(realpathSync(NPM)));
        for (const [file, entry] of Object.entries(files)) {
          assert.ok(loaded.has(join(project, file)), `${file} is compiled`);
          const expected = declarations(entry);
          assert.ok(
            loaded.has(expected),
            `${file} loads ${expected}; the package files loaded: ${ours.join(", ")}`,
          );
        }
      });
    }
  },
);
