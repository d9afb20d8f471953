/**
 * Checks the emitted package before anything runs it: every relative specifier names a file that
 * exists, no `.ts` specifier is left, every `#` import is declared, and each file imports only the
 * bare names it may (the library's JavaScript: only `node:` modules, and only in the Node variants;
 * its declarations: only the optional peers).
 *
 * @module
 */

import ts from "typescript";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** What a set of emitted files may import. */
export interface ImportRules {
  /** Bare names allowed (package names; a subpath of one is allowed too). */
  readonly bare: readonly string[];
  /** Whether `node:` specifiers are allowed. */
  readonly node: boolean;
  /** The `#` subpath imports the package declares. */
  readonly aliases: readonly string[];
}

/**
 * The problems found in `files`, one line each (empty when all is well).
 *
 * @param files Absolute paths of emitted `.js` / `.d.ts` files.
 * @param rules What they may import.
 * @param root The folder to show paths relative to.
 */
export function checkImports(files: readonly string[], rules: ImportRules, root: string): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const where = relative(root, file);
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (specifier.startsWith("./") || specifier.startsWith("../")) {
        if (/\.m?tsx?$/.test(specifier)) problems.push(`${where}: "${specifier}" still ends in .ts`);
        else if (!existsSync(resolve(dirname(file), specifier))) {
          problems.push(`${where}: "${specifier}" names no file`);
        }
      } else if (specifier.startsWith("#")) {
        if (!rules.aliases.includes(specifier)) {
          problems.push(`${where}: "${specifier}" is not in package.json imports`);
        }
      } else if (specifier.startsWith("node:")) {
        if (!rules.node) problems.push(`${where}: "${specifier}" is a Node module, not allowed here`);
      } else if (!rules.bare.some((name) => specifier === name || specifier.startsWith(name + "/"))) {
        problems.push(
          `${where}: "${specifier}" is not allowed here (allowed: ${rules.bare.join(", ") || "none"})`,
        );
      }
    }
  }
  return problems;
}
