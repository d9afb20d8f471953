/**
 * Builds the npm package into `npm/`: our replacement for dnt, which cannot be installed here (see
 * `../shared/TOOLCHAIN.md`), on the TypeScript compiler API.
 *
 * - `npm/esm/` and `npm/cjs/`: mod.ts and src/ compiled to ESM (`.js`, `.d.ts`) and CommonJS
 *   (`.cjs`, `.d.cts`), each with its declarations beside it; `.ts` specifiers become `.js`, import-map names become package names, and `jsr:` or
 *   `https:` imports stop the build.
 * - Runtime-specific files: the source imports `src/crypto.ts` (Web Crypto). Under the `node`
 *   condition (Node, Bun, Deno's npm mode, bundlers targeting Node) the package's `exports` lead to
 *   `npm/esm/`, whose files import `#crypto`, which package.json `imports` resolves to
 *   `src/crypto_node.js` (`node:crypto`), and whose modules that the source loads with `import()` (the
 *   printer, the iam signer, the retry waits, the introspection query) are imported with the file, as
 *   fake timers need (see `eagerImports` in `npm/compile.ts`); CommonJS (`npm/cjs/`) does the same. Everywhere else
 *   (browsers, workers, bundlers for the web, esm.sh) `exports` lead to `npm/web/`, the same ESM
 *   with the source's own relative imports and no `#` import, so that a browser loading the files
 *   as they are (an import map for the package, no bundler) needs nothing else; there the files
 *   import `src/crypto_web.js` (Web Crypto alone) in place of `src/crypto.js`.
 * - `npm/package.json`, README.md (its opening for contributors replaced by the install command, see
 *   `npm/readme.ts`) and LICENSE; a `sigv4/package.json` stub for pre-`exports` resolvers.
 * - `npm/tests/`: tests/*.ts compiled to ESM against the built package (not published). `../mod.ts`
 *   becomes `@seed/service-client` and `../src/sigv4.ts` `@seed/service-client/sigv4` (resolved
 *   through the package's own `exports`); other `../src/` files become the files of `npm/esm/`.
 *   Type-only test folders (tests/types/, tests/interop/) are not compiled: they have nothing to run.
 *
 * Usage: `deno task build:npm`. Then `deno task build:check` runs publint and attw on the result.
 *
 * @module
 */

import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { compile, CompileError } from "./npm/compile.ts";
import {
  built,
  conditionFiles,
  EXTENSIONS,
  manifest,
  type Peer,
  type RuntimeMapping,
  stubFolder,
  stubManifest,
} from "./npm/manifest.ts";
import { npmReadme } from "./npm/readme.ts";
import { mapSpecifier, toRelative, UnsupportedSpecifierError } from "./npm/specifiers.ts";
import { checkImports } from "./npm/verify.ts";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
/** Where the package is built. */
export const OUT: string = join(ROOT, "npm");

/** Where the Node type definitions the build compiles against are pinned and installed. */
/** The documents for users that the README links to, shipped beside it. */
const USER_DOCS = userDocs(JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoJson);

const NODE_TYPES_DIR = join(ROOT, "scripts", "npm", "node_types");
/** Their `@types` folder, a type root for the compiler. */
const NODE_TYPES = join(NODE_TYPES_DIR, "node_modules", "@types");

/** The files that differ between runtimes; see the module doc. */
const MAPPINGS: readonly RuntimeMapping[] = [
  {
    source: "src/crypto.ts",
    alias: "#crypto",
    conditions: { node: "src/crypto_node.ts" },
    web: "src/crypto_web.ts",
  },
];

/** Every file a mapping may load, besides the sources. */
const VARIANTS = [...new Set(MAPPINGS.flatMap(conditionFiles))]
  .filter((file) => !MAPPINGS.some((mapping) => mapping.source === file));

/** Packages the library imports types from (never values): optional peers of the npm package. */
const PEERS: Readonly<Record<string, Peer>> = {
  "graphql": { range: "^16.0.0" },
  "@graphql-typed-document-node/core": { range: "^3.2.0" },
};

const KEYWORDS = [
  "graphql",
  "appsync",
  "aws",
  "sigv4",
  "iam",
  "client",
  "fetch",
  "typescript",
  "deno",
  "bun",
];

/** The lowest Node version the package supports (engines.node). */
const NODE_VERSION = "18.17";

interface DenoJson {
  name: string;
  version: string;
  license: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
  compilerOptions: Record<string, unknown>;
  publish: { include: string[] };
}

/**
 * Builds the package and its tests into `npm/`.
 *
 * @returns The files written, relative to `npm/`.
 * @throws {UnsupportedSpecifierError} For an import that cannot go into the package.
 * @throws {CompileError} For a type error in the library, or a failed emit.
 * @throws {Error} When README.md or LICENSE is missing, when the Node types cannot be installed, or
 * when an emitted file imports what it may not.
 */
export function buildNpm(): string[] {
  const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoJson;
  const shipped = ["README.md", "LICENSE", "CHANGELOG.md", ...USER_DOCS.map((doc) => `docs/${doc}`)];
  for (const required of shipped) {
    if (!existsSync(join(ROOT, required))) throw new Error(`Cannot build for npm: ${required} is missing`);
  }
  // A relative link of the README must lead somewhere on the registries' pages too.
  for (const [, target] of readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/\]\(([^)#:]+)[)#]/g)) {
    if (!shipped.includes(target!)) {
      throw new Error(`Cannot build for npm: README.md links ${target}, which neither package ships`);
    }
  }
  const nodeTypes = installNodeTypes();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const { lib: _lib, ...flags } = deno.compilerOptions;
  const baseOptions = ts.convertCompilerOptionsFromJson(flags, ROOT).options;
  const at = (path: string) => resolve(ROOT, path);
  const mappedFiles = new Map(MAPPINGS.map((mapping) => [at(mapping.source), mapping.alias]));
  const libraryRoots = [...Object.values(deno.exports), ...VARIANTS].map(at);
  const libraryContext = {
    importMap: deno.imports,
    root: ROOT,
    redirect: (file: string) => mappedFiles.get(file),
  };

  const written: string[] = [];
  for (const format of ["esm", "cjs"] as const) {
    written.push(...compile({
      rootNames: libraryRoots,
      closure: true,
      rootDir: ROOT,
      outDir: join(OUT, format),
      format,
      declaration: true,
      typeCheck: format === "esm",
      baseOptions,
      types: { roots: [nodeTypes], names: ["node"] },
      extensions: EXTENSIONS[format],
      mapSpecifier: (specifier, importer) => {
        const mapped = mapSpecifier(specifier, importer, libraryContext);
        return mapped.startsWith(".") ? mapped.replace(/\.js$/, EXTENSIONS[format].js) : mapped;
      },
      optionalTypeImports: Object.keys(PEERS),
      // The build of the `node` condition loads its lazy modules with the file; CommonJS's `import()`
      // is already a `require` in a microtask.
      eagerImports: format === "esm",
    }));
  }

  // The web build: the source's own relative imports, except a mapping's web file in place of its
  // source (`crypto_web.ts` for `crypto.ts`); no declarations (exports give it esm/'s, which are the same).
  const webFiles = new Map(
    MAPPINGS.flatMap((mapping) => mapping.web ? [[at(mapping.source), at(mapping.web)]] : []),
  );
  written.push(...compile({
    rootNames: Object.values(deno.exports).map(at),
    closure: true,
    omit: [...webFiles.keys()],
    rootDir: ROOT,
    outDir: join(OUT, "web"),
    format: "esm",
    declaration: false,
    typeCheck: false,
    baseOptions,
    types: { roots: [nodeTypes], names: ["node"] },
    extensions: EXTENSIONS.web,
    mapSpecifier: (specifier, importer) =>
      mapSpecifier(specifier, importer, {
        importMap: deno.imports,
        root: ROOT,
        redirect: (file, from) => {
          const web = webFiles.get(file);
          return web && toRelative(from, web).replace(/\.ts$/, EXTENSIONS.web.js);
        },
      }),
  }));

  const pkg = manifest({
    name: deno.name,
    version: deno.version,
    license: deno.license,
    description: moduleSummary(join(ROOT, "mod.ts")),
    keywords: KEYWORDS,
    exports: deno.exports,
    mappings: MAPPINGS,
    peers: PEERS,
    node: NODE_VERSION,
  });
  writeJson(join(OUT, "package.json"), pkg);
  for (const [subpath, source] of Object.entries(deno.exports)) {
    const folder = stubFolder(subpath);
    if (folder) writeJson(join(OUT, folder, "package.json"), stubManifest(subpath, source));
  }
  writeFileSync(join(OUT, "README.md"), npmReadme(readFileSync(join(ROOT, "README.md"), "utf8"), deno.name));
  copyFileSync(join(ROOT, "LICENSE"), join(OUT, "LICENSE"));
  // The documents the README links to, so that its relative links work on the registry's page too.
  copyFileSync(join(ROOT, "CHANGELOG.md"), join(OUT, "CHANGELOG.md"));
  mkdirSync(join(OUT, "docs"), { recursive: true });
  for (const doc of USER_DOCS) copyFileSync(join(ROOT, "docs", doc), join(OUT, "docs", doc));

  written.push(...buildTests(deno));
  verify(written, deno);
  return written.map((file) => relative(OUT, file)).sort();
}

/** Compiles tests/*.ts into npm/tests/ against the built package, and copies tests/fixtures/. */
function buildTests(deno: DenoJson): string[] {
  const testsDir = join(ROOT, "tests");
  const outDir = join(OUT, "tests");
  const entries = new Map(
    Object.entries(deno.exports).map(([subpath, source]) => [
      resolve(ROOT, source),
      deno.name + subpath.slice(1),
    ]),
  );
  const redirect = (file: string, importer: string): string | undefined => {
    const entry = entries.get(file);
    if (entry) return entry;
    if (file.startsWith(join(ROOT, "src") + "/")) {
      const target = join(OUT, built(relative(ROOT, file), "esm"));
      return toRelative(join(OUT, relative(ROOT, importer)), target);
    }
    if (file.startsWith(testsDir + "/")) return undefined;
    throw new UnsupportedSpecifierError(
      importer,
      relative(dirname(importer), file),
      "tests may import only mod.ts, src/ and tests/",
    );
  };
  const rootNames = readdirSync(testsDir)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => join(testsDir, name));
  const written = compile({
    rootNames,
    closure: false,
    rootDir: ROOT,
    outDir: OUT,
    format: "esm",
    declaration: false,
    typeCheck: false,
    baseOptions: {},
    types: { roots: [NODE_TYPES], names: ["node"] },
    extensions: EXTENSIONS.esm,
    mapSpecifier: (specifier, importer) =>
      mapSpecifier(specifier, importer, { importMap: deno.imports, root: ROOT, redirect }),
  });
  if (existsSync(join(testsDir, "fixtures"))) {
    cpSync(join(testsDir, "fixtures"), join(outDir, "fixtures"), { recursive: true });
  }
  return written;
}

/**
 * Installs the Node type definitions the package is compiled against (`@types/node` 18.19, the
 * oldest Node the package supports that has the fetch types), pinned by `scripts/npm/node_types/`'s
 * deno.lock, into its `node_modules/` (ignored by git; nothing tracked is written): the tarballs
 * alone, each checked against the lock's integrity (`npm/install_types.ts`, about 0.4 MB received).
 * Does nothing when the types are already there.
 *
 * @returns The `@types` folder to give the compiler as a type root.
 */
function installNodeTypes(): string {
  const { success, stderr } = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--no-lock", "-A", join(ROOT, "scripts", "npm", "install_types.ts")],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  const message = new TextDecoder().decode(stderr);
  if (!success || !existsSync(join(NODE_TYPES, "node", "package.json"))) {
    throw new Error(`Cannot build for npm: installing the Node type definitions failed:\n${message}`);
  }
  if (message) console.error(message.trimEnd());
  return NODE_TYPES;
}

/** Fails when an emitted file imports what it may not (see verify.ts). */
function verify(written: readonly string[], deno: DenoJson): void {
  const aliases = MAPPINGS.map((mapping) => mapping.alias);
  const nodeVariants = VARIANTS.filter((file) => MAPPINGS.some((mapping) => mapping.conditions.node === file))
    .map((file) => file.replace(/\.ts$/, ""));
  const isNodeVariant = (file: string) =>
    nodeVariants.some((variant) => /^(esm|cjs)\//.test(file) && file.slice(4).startsWith(variant + "."));
  const groups = {
    web: [] as string[],
    library: [] as string[],
    types: [] as string[],
    node: [] as string[],
    tests: [] as string[],
  };
  for (const file of written) {
    const path = relative(OUT, file);
    if (path.startsWith("tests/")) groups.tests.push(file);
    else if (path.startsWith("web/")) groups.web.push(file);
    else if (isNodeVariant(path)) groups.node.push(file);
    else if (/\.d\.c?ts$/.test(path)) groups.types.push(file);
    else groups.library.push(file);
  }
  const peers = Object.keys(PEERS);
  const problems = [
    // A browser without a bundler resolves nothing but relative paths.
    ...checkImports(groups.web, { bare: [], node: false, aliases: [] }, OUT),
    ...checkImports(groups.library, { bare: [], node: false, aliases }, OUT),
    ...checkImports(groups.types, { bare: peers, node: false, aliases }, OUT),
    ...checkImports(groups.node, { bare: [], node: true, aliases }, OUT),
    ...checkImports(groups.tests, {
      bare: [deno.name, ...Object.keys(deno.imports)],
      node: true,
      aliases: [],
    }, OUT),
  ];
  if (problems.length) throw new Error(`The npm build imports what it may not:\n  ${problems.join("\n  ")}`);
}

/** The first sentence of a module's leading doc comment: the package description. */
function moduleSummary(file: string): string {
  const doc = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(file, "utf8"))?.[1];
  const text = doc?.split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join(" ").replace(/\s+/g, " ")
    .trim();
  const sentence = /^(.+?\.)(\s|$)/.exec(text ?? "")?.[1];
  if (!sentence) {
    throw new Error(`Cannot describe the package: ${relative(ROOT, file)} has no leading doc comment`);
  }
  return sentence;
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

if (import.meta.main) {
  const started = performance.now();
  try {
    const files = buildNpm();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`npm/: ${files.length} files written in ${seconds} s`);
  } catch (err) {
    const known = err instanceof CompileError || err instanceof UnsupportedSpecifierError;
    console.error(known || err instanceof Error ? (err as Error).message : err);
    Deno.exit(1);
  }
}

/**
 * The documents for users: the `docs/` files of deno.json's `publish.include` (what JSR ships),
 * shipped to npm too, so that the README's links work on both registries' pages.
 */
function userDocs(deno: DenoJson): string[] {
  return deno.publish.include.filter((path) => path.startsWith("docs/")).map((path) => path.slice(5));
}
