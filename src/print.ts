/**
 * A small printer for executable GraphQL documents, following the GraphQL specification, October 2021
 * edition, section 2 "Language" (https://spec.graphql.org/October2021/#sec-Language): Document (2.2),
 * Operations (2.3), Selection Sets (2.4), Fields, Arguments and Aliases (2.5 to 2.7), Fragments (2.8),
 * Input Values (2.9), Variables (2.10), Type References (2.11) and Directives (2.12). It also prints the
 * descriptions of operations, fragments and variable definitions (working draft, parsed by graphql 16.15),
 * and graphql-js's legacy fragment variables (`fragment F($a: Int) on T`).
 *
 * Out of scope: the type system (section 3: schema, type and directive definitions and their extensions).
 * Such a node, or any node of an unknown kind, throws a `TypeError` with the code `INVALID_ARGUMENT`.
 *
 * The output is compact rather than pretty: one line, no indentation, one space between the items of a list
 * (selections, arguments, values, definitions…) and none around punctuation; a description touches the
 * keyword after it (`"d"query`), which is safe because no item starts with a quote right after an empty
 * string. The `query` keyword is always written (no shorthand `{ … }`): same AST, smaller printer.
 *
 * The text parses to the same AST as graphql-js's `print` output, with one difference by design: a block
 * string (`"""…"""`) is printed as a regular string with the same value, so it parses back with
 * `block: false`. Strings are escaped by `JSON.stringify`, whose escapes (`\"`, `\\`, `\b`, `\f`, `\n`,
 * `\r`, `\t`, `\u00XX`) are all valid GraphQL escapes (2.9.4 String Value). Lone surrogates have no GraphQL
 * spelling: such a string cannot round-trip.
 *
 * The client loads this module lazily, at the first `DocumentNode` it sends (a string document never
 * loads it), so every byte here counts against the bundle budget: keep it small. That is why each kind is a template string read by
 * one regular expression rather than a function of its own.
 *
 * @module
 */

import type { DocumentNode } from "graphql";

/** What the printer walks, loosely: a node, a list of nodes, or a leaf value (string, boolean, nothing). */
type Node = { readonly kind: string; readonly [field: string]: unknown } & readonly Node[];

/**
 * How each kind prints: its fields, by name, in order. A field's prefix (punctuation, then at most one
 * keyword and a space: `(`, `=`, `$`, `@`, ` on `, `fragment `) and its suffix (`)`, `:` or `!`) are
 * written only when the field prints as some text, so an absent field or an empty list leaves no trace. A
 * comma separates without being written: the text before it (`...`, `[`, `{`), like the text after the
 * last field, is always written. An empty template prints the node's `value` with `JSON.stringify` (a
 * string, or `null`). Only own properties are templates: `constructor` and other `Object.prototype`
 * members are not strings (they have no `replace`), so such kinds are rejected like any other unknown
 * kind.
 */
const templates: { readonly [kind: string]: string } = {
  Name: "value",
  IntValue: "value",
  FloatValue: "value",
  EnumValue: "value",
  BooleanValue: "value",
  StringValue: "",
  NullValue: "",
  ListValue: "[,values]",
  ObjectValue: "{,fields}",
  ObjectField: "name:value",
  Argument: "name:value",
  Variable: "$name",
  Directive: "@name(arguments)",
  NamedType: "name",
  ListType: "[type]",
  NonNullType: "type!",
  Document: "definitions",
  OperationDefinition: "description,operation, name(variableDefinitions)directives,selectionSet",
  VariableDefinition: "description,variable:type=defaultValue,directives",
  SelectionSet: "{,selections}",
  Field: "alias:name(arguments)directives,selectionSet",
  FragmentSpread: "...name,directives",
  InlineFragment: "...,on typeCondition,directives,selectionSet",
  FragmentDefinition:
    "description,fragment name(variableDefinitions) on typeCondition,directives,selectionSet",
};

/**
 * Prints an executable GraphQL document (operations and fragments) as compact query text. The text
 * parses to the same AST as graphql-js's `print` output, except that block strings become regular
 * strings with the same value.
 *
 * @param document A parsed document: `graphql`'s `parse`, graphql-tag, codegen's AST output, gql.tada.
 * @returns The query text, on one line.
 * @throws {TypeError} With the code `INVALID_ARGUMENT` when the document holds a type-system definition
 * (schema, type, directive or extension) or a node of an unknown kind, naming its kind; and when the
 * printing fails otherwise (a node that holds itself, a document nested deeper than the stack, a throwing
 * getter), with that failure as its `cause`.
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
export function print(document: DocumentNode): string {
  try {
    return printNode(document as unknown as Node);
  } catch (cause) {
    // Built here rather than with validate.ts's `invalid`: importing it would split the core's
    // validation into a chunk of its own, shared with this lazily loaded one.
    const error: TypeError & { code?: string } = typeof cause == "string"
      ? new TypeError(`Cannot print ${cause}: only operations and fragments are supported`)
      : new TypeError("Cannot print the document", { cause });
    error.code = "INVALID_ARGUMENT";
    throw error;
  }
}

/** Prints a node, a list of nodes or a leaf; throws the kind (a string) of a node it cannot print. */
function printNode(node: Node): string {
  // A leaf (a name, the operation keyword, a boolean), or nothing (an absent field, or null): as text.
  if (node !== Object(node)) return [node] + "";
  if (node.map) return node.map(printNode).join(" ");
  const template = templates[node.kind];
  if (!template?.replace) throw node.kind + "";
  return template
    ? template.replace(
      /,?([^\w,]*(?:\w+ )?)(\w+)([):!]*)/g,
      (_, before: string, field: string, after: string) =>
        (_ = printNode(node[field] as Node)) && before + _ + after,
    )
    : JSON.stringify(node.value ?? null);
}
