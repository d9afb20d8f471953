/**
 * How a module specifier of the Deno source becomes one that Node, Bun and bundlers resolve in the
 * npm package: dnt's specifier rewriting, as one pure function.
 *
 * - `node:` specifiers stay as they are;
 * - a relative `.ts` specifier becomes `.js`, unless its file has a redirect (the runtime-specific
 *   files, and, for the compiled tests, the package's own entry points);
 * - `npm:name@range/sub` and an import-map name mapped to `npm:` become the bare package name;
 * - `jsr:`, `http:`, `https:` and any other scheme fail: they have no npm equivalent.
 *
 * @module
 */

import { dirname, relative, resolve, sep } from "node:path";

/** What a specifier is rewritten against. */
export interface SpecifierContext {
  /** The `imports` of deno.json. */
  readonly importMap: Readonly<Record<string, string>>;
  /** The folder of deno.json: import-map values that are paths are relative to it. */
  readonly root: string;
  /**
   * The specifier to use for a local file instead of its own `.js` twin, or undefined for none.
   * Called with the file's absolute path and the absolute path of the importing file.
   */
  readonly redirect?: (file: string, importer: string) => string | undefined;
}

/** A specifier that cannot go into the npm package; the message names the file and the specifier. */
export class UnsupportedSpecifierError extends Error {
  /**
   * @param importer The file that imports it.
   * @param specifier The specifier as written.
   * @param reason Why it cannot be built.
   */
  constructor(readonly importer: string, readonly specifier: string, reason: string) {
    super(`Cannot build for npm: ${importer} imports "${specifier}": ${reason}`);
    this.name = "UnsupportedSpecifierError";
  }
}

/**
 * Rewrites one specifier for the npm package.
 *
 * @param specifier The specifier as written in the source.
 * @param importer The absolute path of the file that contains it.
 * @param context The import map and redirects.
 * @returns The specifier to emit.
 * @throws {UnsupportedSpecifierError} For `jsr:`, `http(s):` and other schemes, an unmapped bare
 * name, or a relative specifier without an extension.
 */
export function mapSpecifier(specifier: string, importer: string, context: SpecifierContext): string {
  if (specifier.startsWith("node:")) return specifier;
  if (specifier.startsWith("npm:")) return npmPackageName(specifier, importer);
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return mapLocal(resolve(dirname(importer), specifier), specifier, importer, context);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
    throw new UnsupportedSpecifierError(
      importer,
      specifier,
      "jsr:, http(s): and other URL imports have no npm equivalent",
    );
  }
  const [key, target] = importMapEntry(specifier, context.importMap) ??
    fail(importer, specifier, "a bare name must be in deno.json imports");
  const mapped = target + specifier.slice(key.length);
  if (mapped.startsWith("npm:")) return npmPackageName(mapped, importer);
  if (mapped.startsWith("./") || mapped.startsWith("../") || mapped.startsWith("/")) {
    const file = resolve(context.root, mapped);
    return mapLocal(file, toRelative(importer, file), importer, context);
  }
  if (mapped.startsWith("node:")) return mapped;
  return fail(importer, specifier, `deno.json maps it to "${mapped}", which has no npm equivalent`);
}

/** `npm:@scope/name@^1.2/sub/path` → `@scope/name/sub/path`. */
function npmPackageName(specifier: string, importer: string): string {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@[^/]*)?(\/.*)?$/.exec(specifier);
  if (!match) return fail(importer, specifier, "not a valid npm: specifier");
  return match[1]! + (match[2] ?? "");
}

/** The local file's redirect, or its `.js` twin relative to the importer. */
function mapLocal(file: string, specifier: string, importer: string, context: SpecifierContext): string {
  const redirected = context.redirect?.(file, importer);
  if (redirected !== undefined) return redirected;
  if (/\.(ts|mts|tsx)$/.test(file)) return specifier.replace(/\.(m?)tsx?$/, ".$1js");
  if (/\.(m?js|cjs|json)$/.test(file)) return specifier;
  return fail(importer, specifier, "a relative import needs its file extension");
}

/** The relative specifier from the file `importer` to the file `file`, starting with `./` or `../`. */
export function toRelative(importer: string, file: string): string {
  const path = relative(dirname(importer), file).split(sep).join("/");
  return path.startsWith("../") ? path : "./" + path;
}

/** The longest import-map key matching the specifier: the exact name, or a prefix ending in `/`. */
function importMapEntry(
  specifier: string,
  importMap: Readonly<Record<string, string>>,
): [string, string] | undefined {
  if (Object.hasOwn(importMap, specifier)) return [specifier, importMap[specifier]!];
  let best: [string, string] | undefined;
  for (const [key, value] of Object.entries(importMap)) {
    if (key.endsWith("/") && specifier.startsWith(key) && key.length > (best?.[0].length ?? 0)) {
      best = [key, value];
    }
  }
  return best;
}

function fail(importer: string, specifier: string, reason: string): never {
  throw new UnsupportedSpecifierError(importer, specifier, reason);
}
