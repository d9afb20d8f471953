/**
 * The npm package's `package.json`, derived from deno.json (name, version, license, exports) and
 * the layout `build_npm.ts` emits:
 *
 * ```
 * esm/…      .js  ESM, with .d.ts beside       ("type": "module"); runtime-specific files through
 *                 the package's `imports` (`#crypto`): Node, Bun, Deno's npm: imports, bundlers
 *                 for Node (the `node` condition)
 * web/…      .js  ESM without `#` imports: each file imports the others by relative path, and the
 *                 mappings' web files (`crypto_web.js`, Web Crypto alone): everywhere else
 *                 (browsers, workers, bundlers for the web), and a browser without a bundler,
 *                 which knows no `imports`; its types are esm/'s, the same declarations
 * cjs/…      .cjs CommonJS, with .d.cts beside, `#crypto` as in esm/ (under the `browser`
 *                 condition, as for a browser bundle of CommonJS code, the web file)
 * sigv4/     package.json for resolvers that predate `exports` (TypeScript's node10, old bundlers)
 * ```
 *
 * CommonJS goes by extension, not by a nested `{"type": "commonjs"}` package.json: a nested
 * package.json would become the package scope of cjs/, where the root's `imports` (`#crypto`) do
 * not apply.
 *
 * @module
 */

/**
 * A runtime-specific file: the file the source imports (what Deno runs, and the package's default),
 * and the files the package loads instead under some resolution conditions.
 */
export interface RuntimeMapping {
  /** The file the source imports, relative to the root, such as `src/crypto.ts`. */
  readonly source: string;
  /** The subpath import that selects between the files in the package, such as `#crypto`. */
  readonly alias: `#${string}`;
  /**
   * Condition → the file loaded under it, relative to the root, in the order resolvers try them (the
   * source itself may be named, to keep it ahead of a later condition), such as
   * `{ node: "src/crypto_node.ts" }`. A file under `node` may import `node:` modules.
   */
  readonly conditions: Readonly<Record<string, string>>;
  /**
   * The file the web build (`npm/web/`: browsers, workers) imports in place of the source, relative
   * to the root, such as `src/crypto_web.ts`; without it, the source itself.
   */
  readonly web?: string;
}

/** Every file a mapping's conditions name. */
export function conditionFiles(mapping: RuntimeMapping): string[] {
  return Object.values(mapping.conditions);
}

/** A mapping's target in package.json: `{import, require}` for a file. */
function importsTarget(target: string): Record<string, string> {
  return { import: built(target, "esm"), require: built(target, "cjs") };
}

/** An optional peer dependency: only types of it are imported. */
export interface Peer {
  /** The version range the package supports. */
  readonly range: string;
}

/** What the manifest is made of. */
export interface ManifestInput {
  readonly name: string;
  readonly version: string;
  readonly license: string;
  readonly description: string;
  readonly keywords: readonly string[];
  /** deno.json `exports`: subpath → source file (`./mod.ts`). */
  readonly exports: Readonly<Record<string, string>>;
  readonly mappings: readonly RuntimeMapping[];
  readonly peers: Readonly<Record<string, Peer>>;
  /** The lowest Node version supported, such as `18.17`. */
  readonly node: string;
}

/** The extensions of each format's code and declarations. */
export const EXTENSIONS = {
  esm: { js: ".js", types: ".d.ts" },
  web: { js: ".js", types: ".d.ts" },
  cjs: { js: ".cjs", types: ".d.cts" },
} as const;

/** An output folder of the package: see the module doc. */
export type Format = keyof typeof EXTENSIONS;

/** `./mod.ts` in a format folder: `./esm/mod.js`, `./cjs/mod.cjs`, or `./cjs/mod.d.cts` for types. */
export function built(source: string, format: Format, kind: "js" | "types" = "js"): string {
  const path = source.replace(/^\.?\//, "").replace(/\.ts$/, EXTENSIONS[format][kind]);
  return `./${format}/${path}`;
}

/** The folder of the legacy stub for a subpath (`./sigv4` → `sigv4`), none for `.`. */
export function stubFolder(subpath: string): string | undefined {
  return subpath === "." ? undefined : subpath.replace(/^\.\//, "");
}

/**
 * The package.json object.
 *
 * @param input Name, version and the rest, mostly from deno.json.
 * @returns The manifest, ready for `JSON.stringify`.
 */
export function manifest(input: ManifestInput): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const [subpath, source] of Object.entries(input.exports)) {
    exports[subpath] = {
      import: {
        types: built(source, "esm", "types"),
        node: built(source, "esm"),
        default: built(source, "web"),
      },
      require: { types: built(source, "cjs", "types"), default: built(source, "cjs") },
    };
  }
  exports["./package.json"] = "./package.json";

  const main = input.exports["."];
  if (!main) throw new Error('Cannot write package.json: deno.json exports has no "." entry');
  const stubs = Object.keys(input.exports).flatMap((subpath) => stubFolder(subpath) ?? []);
  const peers = Object.entries(input.peers);
  return {
    name: input.name,
    version: input.version,
    description: input.description,
    keywords: input.keywords,
    license: input.license,
    type: "module",
    sideEffects: false,
    engines: { node: `>=${input.node}` },
    main: built(main, "cjs"),
    module: built(main, "web"),
    types: built(main, "cjs", "types"),
    exports,
    imports: Object.fromEntries(input.mappings.map((mapping) => [mapping.alias, {
      ...Object.fromEntries(
        Object.entries(mapping.conditions).map(([condition, target]) => [condition, importsTarget(target)]),
      ),
      // A browser bundle that reaches esm/ or cjs/ (through `require`) gets the web file too.
      ...mapping.web && { browser: importsTarget(mapping.web) },
      import: built(mapping.source, "esm"),
      require: built(mapping.source, "cjs"),
      default: built(mapping.source, "esm"),
    }])),
    files: [
      "esm/",
      "web/",
      "cjs/",
      ...stubs.map((folder) => `${folder}/`),
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "docs/",
    ],
    peerDependencies: Object.fromEntries(peers.map(([name, peer]) => [name, peer.range])),
    peerDependenciesMeta: Object.fromEntries(peers.map(([name]) => [name, { optional: true }])),
  };
}

/**
 * The package.json of a legacy stub folder: `main` and `types` pointing at the CommonJS build.
 *
 * @param subpath The export's subpath, such as `./sigv4`.
 * @param source Its source file, such as `./src/sigv4.ts`.
 */
export function stubManifest(subpath: string, source: string): Record<string, unknown> {
  const up = "../".repeat(subpath.split("/").length - 1);
  return {
    main: built(source, "cjs").replace("./", up),
    module: built(source, "web").replace("./", up),
    types: built(source, "cjs", "types").replace("./", up),
  };
}
