/**
 * The npm package's declaration files compile for consumers on TypeScript 5 (`typescript5` of the
 * dev tools, scripts/tools/deno.json), with `moduleResolution` `node16` (an ESM and a CJS file),
 * `bundler` and `node10`, and `skipLibCheck` off: attw checks that the types resolve; this checks
 * that they compile, and that project/consumer.ts type-checks against them as it would in a
 * consumer's project. Then again on TypeScript 4.8 (`typescript48`), the oldest that compiles
 * them, in the modes it has:
 * `node16`, the `bare` ones, and `node10` under its older name `node` (4.7 types `Error.cause` as an
 * `Error`, which our errors' `cause: unknown` does not fit); and on TypeScript 6 (`typescript`) and 7
 * (the native compiler `npm install typescript` gives today, from .ci/node_modules, run through its
 * `tsc`: it has no JavaScript API), in `node16`, `bundler` and the `bare` ones (6 deprecates
 * `node10` and 7 removed it). On each, the type tests of tests/types compile against the package's declarations too, as
 * CommonJS files (.d.cts) and as ESM (.d.ts): each mistake they make is still an error there (an
 * unused `@ts-expect-error` is one; 4.8 may give another code for it, as it does for excess
 * properties), and each inferred type what they assert.
 *
 * Each mode gets a project in a temporary folder: project/'s tsconfig and consumer, and a
 * node_modules that links the built package (npm/) and its peers (`graphql`,
 * `@graphql-typed-document-node/core`, from the dev tools' node_modules). The `bare` mode is a
 * Node project with neither peer installed and without the DOM types (`lib: es2022`, `@types/node`
 * 20 from .ci/node_modules, and undici's fetch for the `fetch` option): project/consumer_bare.ts, as
 * an ESM and a CJS file. `bare-dom` is the same project with the DOM types too, as TypeScript gives
 * a Node project that sets no `lib` (undici's `Response` must fit beside the DOM's), and
 * `bare-node18` has the oldest Node types with fetch's (18.19, whose `RequestInit` has no `null`
 * signal) in place of Node 20's.
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
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
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

/**
 * Each mode: its tsconfig, the consumer it copies (`consumer` names the source in project/), the
 * files it compiles with the entry each must load, and whether the peers are installed.
 */
const MODES: ReadonlyArray<
  { mode: string; consumer: string; files: Readonly<Record<string, Entry>>; peers: boolean }
> = [
  {
    mode: "node16",
    consumer: "consumer.ts",
    files: { "consumer.mts": "import", "consumer.cts": "require" },
    peers: true,
  },
  { mode: "bundler", consumer: "consumer.ts", files: { "consumer.ts": "import" }, peers: true },
  { mode: "node10", consumer: "consumer.ts", files: { "consumer.ts": "types" }, peers: true },
  {
    mode: "bare",
    consumer: "consumer_bare.ts",
    files: { "consumer_bare.mts": "import", "consumer_bare.cts": "require" },
    peers: false,
  },
  {
    mode: "bare-dom",
    consumer: "consumer_bare.ts",
    files: { "consumer_bare.mts": "import", "consumer_bare.cts": "require" },
    peers: false,
  },
  {
    mode: "bare-node18",
    consumer: "consumer_bare.ts",
    files: { "consumer_bare.mts": "import", "consumer_bare.cts": "require" },
    peers: false,
  },
];

/** What each mode without peers compiles with, beyond `@types/node` 20 and `lib: es2022`. */
const BARE: Readonly<Record<string, string>> = {
  "bare": "no peers, no DOM types",
  // TypeScript's default for a Node project that sets no `lib`: the DOM's fetch types beside undici's.
  "bare-dom": "no peers, the DOM types and Node's",
  // The oldest Node types with fetch's (the npm build's own, scripts/npm/node_types/).
  "bare-node18": "no peers, no DOM types, @types/node 18.19",
};

/**
 * Node 20's type definitions, for the `bare` mode (installed by `npm install --prefix .ci`, as
 * `@types/node20`). Those before 18.19 lack the fetch API's types (`Headers`, `fetch`), which the
 * package's types use: such a project needs the DOM lib or newer types (README, Install). 18.19.0
 * and 18.19.130 were checked by hand (`tsc` on this project): no error from the package.
 */
const NODE_TYPES = join(ROOT, ".ci", "node_modules", "@types", "node20");

/** Node 18.19's, which the npm build installs for itself (`deno task build:npm`), for `bare-node18`. */
const NODE18_TYPES = join(ROOT, "scripts", "npm", "node_types", "node_modules", "@types", "node");

/** The dev tools' packages (scripts/tools/deno.json), which this file runs with. */
const TOOLS_MODULES = join(ROOT, "scripts", "tools", "node_modules");

/**
 * TypeScript 7 (`typescript7` in .ci/package.json, installed by `npm install --prefix .ci`): not a
 * dev tools' import, as Deno would then give gql.tada its TypeScript peer from it.
 */
const TYPESCRIPT7 = join(ROOT, ".ci", "node_modules", "typescript7");

/** The declaration file npm/package.json names for an entry. */
function declarations(entry: Entry, root: string): string {
  const manifest = JSON.parse(readFileSync(join(NPM, "package.json"), "utf8")) as {
    types?: string;
    exports?: { ".": Record<"import" | "require", { types?: string }> };
  };
  const path = entry === "types" ? manifest.types : manifest.exports?.["."][entry].types;
  assert.ok(path, `npm/package.json names the types of "${entry}"`);
  return join(root, path);
}

/** Compiles a project, fails on any diagnostic, and returns the paths of the files it loaded. */
type Compile = (tsconfig: string) => Set<string>;

/** A TypeScript to compile with, and the modes it runs. */
interface Compiler {
  /** Its name in the dev tools' imports. */
  readonly module: "typescript5" | "typescript48" | "typescript" | "typescript7";
  /** Why it cannot run here, if it cannot. */
  readonly missing?: string | false;
  readonly version: RegExp;
  readonly modes: readonly string[];
  /** Whether it compiles tests/types/tada_cases.ts (gql.tada's own types need TypeScript 5). */
  readonly tada: boolean;
  /** Loads it: its version and how it compiles. */
  readonly load: () => Promise<{ version: string; compile: Compile }>;
}

/** A TypeScript with a JavaScript API. */
function throughApi(ts: typeof TS): { version: string; compile: Compile } {
  return {
    version: ts.version,
    compile: (tsconfig) => new Set(compile(ts, tsconfig).getSourceFiles().map((file) => file.fileName)),
  };
}

const COMPILERS: readonly Compiler[] = [
  {
    module: "typescript5",
    version: /^5\./,
    modes: MODES.map(({ mode }) => mode),
    tada: true,
    load: async () => throughApi((await import("typescript5")).default as unknown as typeof TS),
  },
  {
    module: "typescript48",
    version: /^4\.8\./,
    modes: ["node16", "node10", "bare", "bare-dom", "bare-node18"],
    tada: false,
    load: async () => throughApi((await import("typescript48")).default as unknown as typeof TS),
  },
  {
    module: "typescript",
    version: /^6\./,
    modes: ["node16", "bundler", "bare", "bare-dom", "bare-node18"],
    tada: true,
    load: async () => throughApi((await import("typescript")).default as unknown as typeof TS),
  },
  {
    module: "typescript7",
    version: /^7\./,
    modes: ["node16", "bundler", "bare", "bare-dom", "bare-node18"],
    tada: true,
    missing: !existsSync(TYPESCRIPT7) &&
      `${TYPESCRIPT7} is missing: run \`npm install --prefix .ci --no-save\``,
    load: () => Promise.resolve(throughCli(TYPESCRIPT7)),
  },
];

/**
 * TypeScript 7 through its `tsc` (run by Node, which starts the native compiler): every line it
 * prints is a diagnostic, except the absolute paths `--listFiles` adds.
 *
 * @param installed Its package folder.
 */
function throughCli(installed: string): { version: string; compile: Compile } {
  const tsc = join(installed, "bin", "tsc");
  const run = (args: string[]): { status: number; lines: string[] } => {
    try {
      return { status: 0, lines: execFileSync("node", [tsc, ...args], { encoding: "utf8" }).split("\n") };
    } catch (err) {
      const { status, stdout } = err as { status: number; stdout: string };
      return { status, lines: stdout.split("\n") };
    }
  };
  const version = run(["--version"]).lines[0]!.replace(/^Version /, "");
  return {
    version,
    compile: (tsconfig) => {
      const { status, lines } = run(["-p", tsconfig, "--listFiles", "--pretty", "false"]);
      const files = lines.filter((line) => line.startsWith("/"));
      assert.deepEqual(lines.filter((line) => line && !line.startsWith("/")), []);
      assert.equal(status, 0);
      return new Set(files);
    },
  };
}

/** The type tests, compiled by each compiler. */
const CASES = join(ROOT, "tests", "types");
/** deno.json's strictness, which the type tests are written for. */
const CASES_OPTIONS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  target: "es2022",
  lib: ["es2022", "dom"],
  types: [],
  module: "node16",
  moduleResolution: "node16",
};

/**
 * Compiles a project and fails on any diagnostic, an unused `@ts-expect-error` (TS2578) included.
 *
 * @returns The program, to see which files it loaded.
 */
function compile(ts: typeof TS, tsconfig: string): TS.Program {
  const { config, error } = ts.readConfigFile(tsconfig, ts.sys.readFile);
  assert.equal(error, undefined);
  // TypeScript before 5.0 calls node10 `node`.
  if (/^4\./.test(ts.version) && config.compilerOptions.moduleResolution === "node10") {
    config.compilerOptions.moduleResolution = "node";
  }
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, dirname(tsconfig));
  assert.deepEqual(parsed.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, "\n")), []);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName}:${
        diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
      }`
      : "";
    return `${where} TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
  assert.deepEqual(diagnostics, []);
  return program;
}

let dir: string;
/** The node_modules of the modes without peers, by the Node types they hold. */
const bareDirs = new Map<string, string>();

before(() => {
  if (!built) return;
  dir = realpathSync(mkdtempSync(join(tmpdir(), "consumers-")));
  const link = (modules: string, name: string, target: string) => {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(target, join(modules, name), "dir");
  };
  const modules = join(dir, "node_modules");
  link(modules, "@seed/service-client", NPM);
  for (const peer of [...PEERS, "gql.tada"]) {
    link(modules, peer, realpathSync(join(TOOLS_MODULES, peer)));
  }
  // A copy, not a link, in a folder of its own: TypeScript looks for `graphql` in every node_modules
  // above the package's real path, which must reach neither the repository's nor the one above.
  for (const types of [NODE_TYPES, NODE18_TYPES].filter((types) => existsSync(types))) {
    const bareDir = realpathSync(mkdtempSync(join(tmpdir(), "consumers-bare-")));
    bareDirs.set(types, bareDir);
    const bare = join(bareDir, "node_modules");
    cpSync(NPM, join(bare, "@seed", "service-client"), { recursive: true });
    link(bare, "@types/node", realpathSync(types));
    cpSync(realpathSync(join(TOOLS_MODULES, "undici")), join(bare, "undici"), { recursive: true });
  }
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  for (const bareDir of bareDirs.values()) rmSync(bareDir, { recursive: true, force: true });
});

for (const compiler of COMPILERS) {
  describe(
    `the npm package's types compile for consumers on ${compiler.module}`,
    { skip: built ? compiler.missing ?? false : SKIPPED },
    () => {
      let compileProject: Compile;
      let version = "";
      before(async () => {
        ({ version, compile: compileProject } = await compiler.load());
      });
      it(`runs TypeScript ${compiler.version.source}`, () => {
        assert.match(version, compiler.version);
      });
      // Twice: as CommonJS files (`require`, the .d.cts declarations) and as ESM (`import`, .d.ts).
      for (const entry of ["require", "import"] as const) {
        it(`the type tests (tests/types), as ${entry} files, compile against the package: every mistake they make is still an error`, () => {
          const project = join(dir, `${compiler.module}-cases-${entry}`);
          mkdirSync(project);
          const names = readdirSync(CASES).filter((name) => name.endsWith(".ts"));
          const compiled = names.filter((name) => compiler.tada || name !== "tada_cases.ts");
          assert.deepEqual(
            names.filter((name) => !compiled.includes(name)),
            compiler.tada ? [] : ["tada_cases.ts"],
          );
          for (const name of compiled) {
            const source = readFileSync(join(CASES, name), "utf8")
              .replaceAll('"../../mod.ts"', '"@seed/service-client"')
              .replace(/from "\.\/(\w+)\.ts"/g, entry === "import" ? 'from "./$1.js"' : 'from "./$1"');
            assert.ok(!/from "\.\.?\/[^"]*\.ts"/.test(source), `${name}: every relative import is rewritten`);
            assert.ok(!source.includes("../"), `${name} imports nothing else from the repository`);
            writeFileSync(join(project, name), source);
          }
          if (entry === "import") {
            writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
          }
          const tsconfig = join(project, "tsconfig.json");
          writeFileSync(tsconfig, JSON.stringify({ compilerOptions: CASES_OPTIONS, include: ["*.ts"] }));
          symlinkSync(join(dir, "node_modules"), join(project, "node_modules"), "dir");
          const loaded = compileProject(tsconfig);
          for (const name of compiled) assert.ok(loaded.has(join(project, name)), `${name} is compiled`);
          const expected = declarations(entry, realpathSync(NPM));
          assert.ok(loaded.has(expected), `the cases load ${expected}`);
          const other = declarations(entry === "import" ? "require" : "import", realpathSync(NPM));
          assert.ok(!loaded.has(other), `the cases do not load ${other}`);
        });
      }
      for (
        const { mode, consumer, files, peers } of MODES.filter(({ mode }) => compiler.modes.includes(mode))
      ) {
        const what = peers ? `moduleResolution ${mode}` : `${mode} (${BARE[mode]})`;
        const types = mode == "bare-node18" ? NODE18_TYPES : NODE_TYPES;
        const noTypes = !peers && !existsSync(types) &&
          `${types} is missing: run \`${
            types == NODE_TYPES ? "npm install --prefix .ci --no-save" : "deno task build:npm"
          }\``;
        it(
          `${what}: ${Object.keys(files).join(" and ")} compile against the package`,
          { skip: noTypes },
          () => {
            const project = join(dir, `${compiler.module}-${mode}`);
            mkdirSync(project);
            const tsconfig = join(project, "tsconfig.json");
            copyFileSync(join(HERE, "project", `tsconfig.${mode}.json`), tsconfig);
            for (const file of Object.keys(files)) {
              copyFileSync(join(HERE, "project", consumer), join(project, file));
            }
            symlinkSync(
              join(peers ? dir : bareDirs.get(types)!, "node_modules"),
              join(project, "node_modules"),
              "dir",
            );

            const loaded = compileProject(tsconfig);
            if (!peers) {
              const peerFiles = [...loaded].filter((file) =>
                PEERS.some((peer) => file.includes(`/${peer}/`))
              );
              assert.deepEqual(peerFiles, [], "no peer is installed, so none is loaded");
            }
            const root = peers
              ? realpathSync(NPM)
              : join(bareDirs.get(types)!, "node_modules", "@seed", "service-client");
            const ours = [...loaded].filter((file) => file.startsWith(root));
            for (const [file, entry] of Object.entries(files)) {
              assert.ok(loaded.has(join(project, file)), `${file} is compiled`);
              const expected = declarations(entry, root);
              assert.ok(
                loaded.has(expected),
                `${file} loads ${expected}; the package files loaded: ${ours.join(", ")}`,
              );
            }
          },
        );
      }
    },
  );
}
