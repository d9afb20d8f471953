/**
 * The floor of a bundle that no rewording can go below: its code with every string literal and
 * every template text emptied (regular expressions, names and logic kept), gzipped. The size
 * scripts print it with `--floor`, to show how much of a bundle its messages are and how much is
 * logic. The emptied code is measured, never run: it no longer works.
 *
 * @example Measure a bundle's floor
 * ```ts
 * import { stringFloor } from "./string_floor.ts";
 *
 * const floor = stringFloor('throw TypeError(`Invalid ${name}: expected a string`)');
 * console.log(floor.code); // throw TypeError(`${name}`)
 * ```
 *
 * @module
 */

import ts from "typescript";
import { gzipSync } from "node:zlib";

/** A bundle with its strings emptied, and its gzipped size. */
export interface StringFloor {
  /** The code, every string literal `""` and every template text empty. */
  readonly code: string;
  /** Its gzipped size (zlib's default level), in bytes. */
  readonly gzipped: number;
}

/**
 * Empties every string literal and template text of minified JavaScript.
 *
 * @param code The bundle's code.
 * @returns The emptied code and its gzipped size.
 */
export function stringFloor(code: string): StringFloor {
  const file = ts.createSourceFile("bundle.js", code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const edits: Array<[start: number, end: number, text: string]> = [];
  const empty: Partial<Record<ts.SyntaxKind, string>> = {
    [ts.SyntaxKind.StringLiteral]: '""',
    [ts.SyntaxKind.NoSubstitutionTemplateLiteral]: "``",
    [ts.SyntaxKind.TemplateHead]: "`${",
    [ts.SyntaxKind.TemplateMiddle]: "}${",
    [ts.SyntaxKind.TemplateTail]: "}`",
  };
  const visit = (node: ts.Node): void => {
    const text = empty[node.kind];
    if (text !== undefined) edits.push([node.getStart(file), node.getEnd(), text]);
    ts.forEachChild(node, visit);
  };
  visit(file);
  let emptied = code;
  for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) {
    emptied = emptied.slice(0, start) + text + emptied.slice(end);
  }
  return { code: emptied, gzipped: gzipSync(new TextEncoder().encode(emptied)).length };
}
