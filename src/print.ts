/**
 * A small printer for executable GraphQL documents, following the GraphQL specification, October 2021
 * edition, section 2 "Language" (https://spec.graphql.org/October2021/#sec-Language): Document (2.2),
 * Operations (2.3), Selection Sets (2.4), Fields, Arguments and Aliases (2.5 to 2.7), Fragments (2.8),
 * Input Values (2.9), Variables (2.10), Type References (2.11) and Directives (2.12). It also prints the
 * descriptions of operations, fragments and variable definitions (working draft, parsed by graphql 16.15),
 * and graphql-js's legacy fragment variables (`fragment F($a: Int) on T`).
 *
 * Out of scope: the type system (section 3: schema, type and directive definitions and their extensions).
 * Such a node throws a `TypeError` with the code `INVALID_ARGUMENT`.
 *
 * The output is compact rather than pretty: one line, no indentation, one space between the items of a list
 * (selections, arguments, values, definitions…) and none around punctuation; a description touches the
 * keyword after it (`"d"query`), which is safe because no item starts with a quote right after an empty
 * string. The `query` keyword is always written (no shorthand `{ … }`): same AST, smaller printer.
 *
 * The text parses to the same AST as graphql-js's `print` output, with one difference by design: a block
 * string (`"""…"""`) is printed as a regular string with the same value, so it parses back with
 * `block: false`. Strings are escaped by `JSON.stringify`, whose escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX`) are all valid GraphQL escapes
 * (2.9.4 String Value). Lone surrogates have no GraphQL spelling: such a string cannot round-trip.
 *
 * The client loads this module lazily, only for a `DocumentNode` that carries no `loc`, so every byte
 * here counts against the bundle budget: keep it small.
 *
 * @module
 */

import type { ASTNode, DocumentNode } from "graphql";

type Printer = (node: ASTNode) => string;
type Printers = { [K in ASTNode["kind"]]?: (node: Extract<ASTNode, { readonly kind: K }>) => string };

/** Prints `node` between `before` and `after`, or nothing when there is no node. */
function one(node: ASTNode | undefined, before = "", after = ""): string {
  if (!node) return "";
  const printer = printers[node.kind] as Printer | undefined;
  if (!printer) {
    // Built here rather than with validate.ts's `invalid`: importing it would split the core's
    // validation into a chunk of its own, shared with this lazily loaded one.
    throw Object.assign(
      new TypeError(`Cannot print ${node.kind}: only operations and fragments are supported`),
      {
        code: "INVALID_ARGUMENT",
      },
    );
  }
  return before + printer(node) + after;
}

/** Prints `nodes` separated by spaces, between `before` and `after`, or nothing when there are none. */
const all = (nodes: readonly ASTNode[] | undefined, before = "", after = ""): string =>
  nodes?.length ? before + nodes.map((node) => one(node)).join(" ") + after : "";

// Booleans too: the concatenation in `one` turns `true` into "true".
const value = (node: { readonly value: string | boolean }) => node.value as string;

const pair = (node: { readonly name: ASTNode; readonly value: ASTNode }): string =>
  one(node.name) + one(node.value, ":");

// No prototype: a node whose kind is "constructor" or "__proto__" finds no printer.
const printers: Printers = {
  __proto__: null,
  Document: (node) => all(node.definitions),
  OperationDefinition: (node) =>
    one(node.description) + node.operation + one(node.name, " ") + all(node.variableDefinitions, "(", ")") +
    all(node.directives) + one(node.selectionSet),
  VariableDefinition: (node) =>
    one(node.description) + one(node.variable) + one(node.type, ":") + one(node.defaultValue, "=") +
    all(node.directives),
  SelectionSet: (node) => "{" + all(node.selections) + "}",
  Field: (node) =>
    one(node.alias, "", ":") + one(node.name) + all(node.arguments, "(", ")") + all(node.directives) +
    one(node.selectionSet),
  Argument: pair,
  FragmentSpread: (node) => one(node.name, "...") + all(node.directives),
  InlineFragment: (node) =>
    "..." + one(node.typeCondition, "on ") + all(node.directives) + one(node.selectionSet),
  FragmentDefinition: (node) =>
    one(node.description) + one(node.name, "fragment ") + all(node.variableDefinitions, "(", ")") +
    one(node.typeCondition, " on ") + all(node.directives) + one(node.selectionSet),
  Directive: (node) => one(node.name, "@") + all(node.arguments, "(", ")"),
  Variable: (node) => one(node.name, "$"),
  Name: value,
  IntValue: value,
  FloatValue: value,
  EnumValue: value,
  BooleanValue: value,
  StringValue: (node) => JSON.stringify(node.value),
  NullValue: () => "null",
  ListValue: (node) => "[" + all(node.values) + "]",
  ObjectValue: (node) => "{" + all(node.fields) + "}",
  ObjectField: pair,
  NamedType: (node) => one(node.name),
  ListType: (node) => one(node.type, "[", "]"),
  NonNullType: (node) => one(node.type, "", "!"),
} as Printers;

/**
 * Prints an executable GraphQL document (operations and fragments) as compact query text. The text
 * parses to the same AST as graphql-js's `print` output, except that block strings become regular
 * strings with the same value.
 *
 * @param document A parsed document, for example a codegen `DocumentNode` that has no `loc`.
 * @returns The query text, on one line.
 * @throws {TypeError} With the code `INVALID_ARGUMENT` when the document holds a type-system definition
 * (schema, type, directive or extension), naming its kind.
 *
 * @example Print a codegen document
 * ```ts
 * import assert from "node:assert/strict";
 * import type { DocumentNode } from "graphql";
 * import { print } from "./print.ts";
 *
 * // What GraphQL Code Generator emits: a plain AST without `loc`.
 * const name = (value: string) => ({ kind: "Name", value });
 * const document = {
 *   kind: "Document",
 *   definitions: [{
 *     kind: "OperationDefinition",
 *     operation: "query",
 *     name: name("Hero"),
 *     selectionSet: {
 *       kind: "SelectionSet",
 *       selections: [{
 *         kind: "Field",
 *         name: name("hero"),
 *         arguments: [{ kind: "Argument", name: name("episode"), value: { kind: "EnumValue", value: "JEDI" } }],
 *         selectionSet: { kind: "SelectionSet", selections: [{ kind: "Field", name: name("name") }] },
 *       }],
 *     },
 *   }],
 * } as unknown as DocumentNode;
 *
 * assert.equal(print(document), "query Hero{hero(episode:JEDI){name}}");
 * ```
 */
export const print: (document: DocumentNode) => string = one;
