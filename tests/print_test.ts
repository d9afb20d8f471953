// Tests for src/print.ts, the client's own printer, which turns every `DocumentNode` it is given into query text.
// The oracle is graphql-js (a dev dependency): for every document, our output must parse to the same AST
// as graphql's `print` output does, `loc` aside and `block` aside (we print block strings as regular strings
// with the same value, by design). node:test and node:assert/strict only, so this file also runs on Node and Bun.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type DocumentNode,
  getIntrospectionQuery,
  Kind,
  parse,
  type ParseOptions,
  print as graphqlPrint,
} from "graphql";
import { print } from "../src/print.ts";

/** The AST as plain data: no `loc`, no `block` flag, no keys whose value is `undefined`. */
function normalize(document: DocumentNode): unknown {
  return JSON.parse(
    JSON.stringify(document, (key, value) => key === "loc" || key === "block" ? undefined : value),
  );
}

function parseQuiet(source: string, options: ParseOptions = {}): DocumentNode {
  return parse(source, { ...options, noLocation: true });
}

/** Asserts that our text for `source` parses to the AST of `source` and of graphql's `print` of it. */
function assertRoundTrip(source: string, options: ParseOptions = {}): string {
  const document = parseQuiet(source, options);
  const ours = print(document);
  const actual = normalize(parseQuiet(ours, options));
  assert.deepEqual(actual, normalize(parseQuiet(graphqlPrint(document), options)), `our text: ${ours}`);
  assert.deepEqual(actual, normalize(document), `our text: ${ours}`);
  return ours;
}

/** [name, source, parse options?] */
const corpus: [string, string, ParseOptions?][] = [
  ["shorthand query", "{ a }"],
  ["named query", "query Q { a b }"],
  ["anonymous query with variables", "query ($id: ID!) { node(id: $id) { id } }"],
  ["anonymous query with a directive", "query @live { a }"],
  ["named mutation", "mutation M($input: CreateInput!) { create(input: $input) { id clientMutationId } }"],
  ["anonymous mutation", "mutation { reset }"],
  ["subscription", "subscription OnEvent($topic: String) @live { onEvent(topic: $topic) { id at } }"],
  ["aliases", "{ a: b c: d(x: 1) { e: f g: h(y: 2) { i } } }"],
  [
    "arguments of every value kind",
    '{ f(i: 0, n: -12, fl: 1.5, e: 1e10, ex: -1.25E-3, s: "x", t: true, f: false, z: null, en: RED, v: $v) }',
  ],
  [
    "float and int spellings",
    "{ f(a: 0.0, b: -0.0, c: 6.02e23, d: 1E+2, e: 123456789012345678901234567890, g: -0) }",
  ],
  [
    "numbers next to other tokens",
    "query Q($a: Int = 1 @d, $b: Float = 2.5 @d) { f(a: [1 2 3], b: [1.5 -2 3e4]) @d(x: 1) }",
  ],
  [
    "nested lists and objects",
    '{ f(a: [1, [2, [3, []]], {}], o: {a: {b: [{c: null}]}, d: [$v, ENUM, "s"]}) }',
  ],
  ["empty list and object values", '{ f(a: [], b: {}, c: [[], [{}]], d: [""  ""]) }'],
  [
    "variable defaults of every const kind",
    'query Q($a: Int = 1, $b: [String!]! = ["x", "y"], $c: In = {x: 1, y: [true], z: {w: null}}, $d: E = A, $e: Float = -1.5e-3, $f: S = null, $g: [Int] = []) { a }',
  ],
  ["list and non-null types", "query Q($a: [[Int!]!]!, $b: [Int], $c: String!, $d: [[[X]]]) { a }"],
  [
    "directives on variable definitions",
    'query Q($a: Int = 1 @deprecated(reason: "x") @other, $b: Int @d, $c: [I!]! @d(l: [1]) @e) { a }',
  ],
  [
    "directives everywhere",
    'query Q($v: Int @vd) @op(a: 1) @op2 { f @skip(if: $s) { ...S @sd(x: "y") ... on T @id { g @x } ... @nt { h } } } fragment S on T @fd(z: [1, {a: B}]) { i @y }',
  ],
  [
    "several directives with and without arguments",
    '{ a @skip(if: $s) @include(if: true) @custom(x: [1], y: {z: "w"}) @bare @bare2 }',
  ],
  [
    "fragment spreads and definitions",
    "query { ...A b { ...B } } fragment A on Query { x } fragment B on T @d { y ...A }",
  ],
  [
    "inline fragments with type conditions",
    "{ node { ... on User { name } ... on Bot { id ... on Bot { model } } } }",
  ],
  ["inline fragments without type conditions", "{ ... @include(if: $x) { a } ... { b ... { c } } }"],
  ["deeply nested selections", "{ a { b { c { d { e { f { g { h { i { j } } } } } } } } } }"],
  [
    "several operations and fragments in one document",
    "query A { a ...F } mutation B { b } subscription C { c } query D($x: Int) { d(x: $x) } fragment F on T { f } fragment G on U { g }",
  ],
  [
    "legacy fragment variables",
    "query Q { ...F } fragment F($a: Int = 1, $b: [String!]! @d) on T { f(a: $a, b: $b) }",
    { allowLegacyFragmentVariables: true },
  ],
  [
    "quotes and backslashes",
    String.raw`{ f(s: "she said \"hi\" \\ back\\slash \\\" end", t: "\\", u: "\"") }`,
  ],
  ["named escapes", String.raw`{ f(s: "\b\f\n\r\t\/ \\n", t: "line1\nline2\r\nline3") }`],
  [
    "unicode escapes",
    String
      .raw`{ f(s: "\u00e9\u00E9\u0000\u001F\u007F\u0085\u2028\u2029\uFEFF\uD83D\uDE00", t: "\u{1F600}\u{10FFFF}\u{0}") }`,
  ],
  [
    "raw unicode characters",
    '{ f(s: "é 日本語 😀 \u2028 \u2029 \ufeff \u0085 \u007f \u{10ffff} tab:\there") }',
  ],
  [
    "every control character, escaped",
    `{ f(s: "${Array.from({ length: 32 }, (_, i) => `\\u${i.toString(16).padStart(4, "0")}`).join("")}") }`,
  ],
  ["a block string", '{ f(s: """block""") }'],
  [
    "a block string with indentation and blank lines",
    '{ f(s: """\n\n    first line\n      indented\n\n    last\n  \n""") }',
  ],
  [
    "a block string with escaped triple quotes and backslashes",
    String.raw`{ f(s: """ a \""" b \"""" c:\path\n \u0041 "q" """) }`,
  ],
  ["a block string with CRLF and tabs", '{ f(s: """\r\n\tone\r\n\t\ttwo\r\n""") }'],
  ["empty strings and an empty block string", '{ f(a: "", b: """""", c: ["", """"""], d: {e: ""}) }'],
  ["a description on an operation", '"Fetches a hero" query Hero { hero { name } }'],
  ["a block description on an anonymous operation", '"""\n  Multi\n  line\n"""\nquery { a }'],
  [
    "descriptions on fragments and variable definitions",
    'query Q("the id" $id: ID, """block""" $b: Int = 2, "" $c: String = "") { a } "frag" fragment F on T { a }',
  ],
  [
    "keywords as names",
    "{ query mutation subscription fragment on true false null __typename _a a1: b_2 _: __ }",
  ],
  [
    "keywords as enum values, variables and fields",
    "query Q($on: E = on, $query: E = query) { f(a: on, b: fragment, c: $on, d: $query) { on } }",
  ],
  ["keywords as object keys", "{ f(o: {true: 1, null: 2, on: 3, query: 4}) }"],
  ["fragment names that start with on", "{ ...onX ... on onX { a } } fragment onX on onX { a }"],
  ["ignored tokens: commas, comments, BOM, odd spacing", "\ufeff{ a,, b # comment\n ,c(x:1,,y:2)\t{d}\r\n }"],
  ["the default introspection query", getIntrospectionQuery()],
  [
    "the introspection query with every option",
    getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    }),
  ],
  ["the introspection query without descriptions", getIntrospectionQuery({ descriptions: false })],
  [
    "a realistic application document",
    `query Repository($owner: String!, $name: String!, $first: Int = 10, $after: String) @cached(ttl: 60) {
      repository(owner: $owner, name: $name) {
        id
        ...RepoInfo
        issues(first: $first, after: $after, orderBy: {field: CREATED_AT, direction: DESC}, states: [OPEN, CLOSED]) {
          totalCount
          pageInfo { hasNextPage endCursor }
          edges { cursor node { ...IssueFields author { login ... on User { name } ... on Bot { id } } } }
        }
      }
    }
    fragment RepoInfo on Repository { name description stargazerCount: stargazers { totalCount } }
    fragment IssueFields on Issue { number title body @include(if: true) labels(first: 5) { nodes { name color } } }`,
  ],
];

describe("print()", () => {
  it(`has a corpus of ${corpus.length} documents`, () => {
    assert.ok(corpus.length >= 40);
  });

  for (const [name, source, options] of corpus) {
    it(`prints ${name} so that it parses to the same AST as graphql's print`, () => {
      assertRoundTrip(source, options);
    });
  }

  it("prints compact one-line text", () => {
    assert.equal(
      print(
        parseQuiet(
          'query Q($a: [Int!]! = [1, 2] @d, $b: E) @o { x: f(a: $a, s: "t") @skip(if: false) { ...F ... on T { g } } }',
        ),
      ),
      'query Q($a:[Int!]!=[1 2]@d $b:E)@o{x:f(a:$a s:"t")@skip(if:false){...F ...on T{g}}}',
    );
    assert.equal(
      print(parseQuiet('"d" fragment F on T @d { a } "e" query { b }')),
      '"d"fragment F on T@d{a} "e"query{b}',
    );
  });

  it("writes the query keyword for a shorthand query", () => {
    assert.equal(print(parseQuiet("{ a }")), "query{a}");
  });

  it("prints a block string as a regular string with the same value", () => {
    const document = parseQuiet('{ f(s: """\n    two\n      lines "quoted" \\""" \n""") }');
    const ours = print(document);
    assert.equal(ours, String.raw`query{f(s:"two\n  lines \"quoted\" \"\"\" ")}`);
    const value = (doc: DocumentNode) => JSON.stringify(doc, (key, v) => key === "loc" ? undefined : v);
    assert.equal(value(parseQuiet(ours)), value(document).replace('"block":true', '"block":false'));
  });

  it("keeps every string value exactly, whatever its characters", () => {
    const values = [
      "",
      '"',
      "\\",
      '\\"',
      "\u0000\u0001\u001f\u007f\u0080\u009f",
      "\b\f\n\r\t\v",
      "/ // \\/",
      "\u2028\u2029\ufeff",
      "😀 \ud83d\ude00 \udbff\udfff",
      '"""',
      "a\r\nb",
      "${x} `y` 'z'",
    ];
    for (const value of values) {
      const document = parseQuiet(`{ f(s: ${JSON.stringify(value)}) }`);
      const reparsed = parseQuiet(print(document));
      const field = reparsed.definitions[0]!;
      assert.equal(field.kind, Kind.OPERATION_DEFINITION);
      const selection = field.selectionSet.selections[0]!;
      assert.equal(selection.kind, Kind.FIELD);
      const argument = selection.arguments![0]!.value;
      assert.deepEqual(argument, { kind: Kind.STRING, value, block: false });
    }
  });

  it("prints a codegen document: plain JSON, no loc, optional lists left out", () => {
    const document = JSON.parse(JSON.stringify({
      kind: "Document",
      definitions: [{
        kind: "OperationDefinition",
        operation: "query",
        name: { kind: "Name", value: "Q" },
        variableDefinitions: [{
          kind: "VariableDefinition",
          variable: { kind: "Variable", name: { kind: "Name", value: "id" } },
          type: { kind: "NonNullType", type: { kind: "NamedType", name: { kind: "Name", value: "ID" } } },
        }],
        selectionSet: {
          kind: "SelectionSet",
          selections: [{
            kind: "Field",
            name: { kind: "Name", value: "node" },
            arguments: [{
              kind: "Argument",
              name: { kind: "Name", value: "id" },
              value: { kind: "Variable", name: { kind: "Name", value: "id" } },
            }],
            selectionSet: {
              kind: "SelectionSet",
              selections: [{ kind: "Field", name: { kind: "Name", value: "id" } }],
            },
          }],
        },
      }],
    })) as DocumentNode;
    assert.equal(print(document), "query Q($id:ID!){node(id:$id){id}}");
  });

  it("does not change the document it prints", () => {
    const document = parseQuiet(getIntrospectionQuery());
    const before = JSON.stringify(document);
    print(document);
    assert.equal(JSON.stringify(document), before);
  });

  it("rejects a node whose kind is unknown, even one named like an Object.prototype member", () => {
    const kinds = ["Bogus", "", "Int", "Value", "document", ...Object.getOwnPropertyNames(Object.prototype)];
    for (const kind of kinds) {
      const document = {
        kind: "Document",
        definitions: [{ kind: "FragmentDefinition", name: { kind }, typeCondition: { kind } }],
      } as unknown as DocumentNode;
      assert.throws(() => print(document), {
        name: "TypeError",
        code: "INVALID_ARGUMENT",
        message: `Cannot print ${kind}: only operations and fragments are supported`,
      });
    }
  });

  it("rejects a node without a kind, naming it undefined", () => {
    const document = {
      kind: "Document",
      definitions: [{ kind: "OperationDefinition", operation: "query", selectionSet: { selections: [] } }],
    } as unknown as DocumentNode;
    assert.throws(() => print(document), {
      name: "TypeError",
      code: "INVALID_ARGUMENT",
      message: "Cannot print undefined: only operations and fragments are supported",
    });
  });

  it("rejects a document that holds itself with an INVALID_ARGUMENT TypeError, the stack overflow as its cause", () => {
    const selectionSet: { kind: string; selections: unknown[] } = { kind: "SelectionSet", selections: [] };
    selectionSet.selections.push({ kind: "InlineFragment", selectionSet });
    const document = {
      kind: "Document",
      definitions: [{ kind: "OperationDefinition", operation: "query", selectionSet }],
    } as unknown as DocumentNode;
    assert.throws(() => print(document), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal((error as TypeError & { code?: unknown }).code, "INVALID_ARGUMENT");
      assert.equal(error.message, "Cannot print the document");
      assert.ok(error.cause instanceof RangeError, `cause: ${error.cause}`);
      return true;
    });
  });

  it("rejects a node whose getter throws with an INVALID_ARGUMENT TypeError, the getter's error as its cause", () => {
    const failure = new Error("getter failed");
    const document = {
      kind: "Document",
      definitions: [{
        kind: "OperationDefinition",
        get operation(): string {
          throw failure;
        },
      }],
    } as unknown as DocumentNode;
    assert.throws(() => print(document), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal((error as TypeError & { code?: unknown }).code, "INVALID_ARGUMENT");
      assert.equal(error.cause, failure);
      return true;
    });
  });

  it("treats null like an absent field or an empty list", () => {
    const name = (value: string) => ({ kind: "Name", value });
    const field = (value: string, selectionSet: unknown = null) => ({
      kind: "Field",
      alias: null,
      name: name(value),
      arguments: null,
      directives: null,
      selectionSet,
    });
    const document = {
      kind: "Document",
      definitions: [{
        kind: "OperationDefinition",
        description: null,
        operation: "query",
        name: null,
        variableDefinitions: null,
        directives: null,
        selectionSet: {
          kind: "SelectionSet",
          selections: [field("a", { kind: "SelectionSet", selections: [field("b")] })],
        },
      }, {
        kind: "FragmentDefinition",
        description: null,
        name: name("F"),
        variableDefinitions: null,
        typeCondition: { kind: "NamedType", name: name("T") },
        directives: null,
        selectionSet: {
          kind: "SelectionSet",
          selections: [{
            kind: "InlineFragment",
            typeCondition: null,
            directives: null,
            selectionSet: { kind: "SelectionSet", selections: [field("c")] },
          }],
        },
      }],
    } as unknown as DocumentNode;
    assert.equal(print(document), "query{a{b}} fragment F on T{...{c}}");
  });

  const sdl: [string, string][] = [
    ["ObjectTypeDefinition", "type Query { a: Int }"],
    ["SchemaDefinition", "schema { query: Query }"],
    ["ScalarTypeDefinition", '"desc" scalar Date'],
    ["DirectiveDefinition", "directive @d(x: Int) on FIELD"],
    ["ObjectTypeExtension", "extend type Query { b: Int }"],
    ["EnumTypeDefinition", "{ a } enum E { A B }"],
    ["InputObjectTypeDefinition", "query Q { a } fragment F on T { b } input I { x: Int }"],
  ];
  for (const [kind, source] of sdl) {
    it(`rejects a document with a ${kind} with an INVALID_ARGUMENT TypeError naming it`, () => {
      assert.throws(() => print(parseQuiet(source)), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.equal((error as TypeError & { code?: unknown }).code, "INVALID_ARGUMENT");
        assert.equal(error.message, `Cannot print ${kind}: only operations and fragments are supported`);
        return true;
      });
    });
  }
});

describe("print() on generated documents", () => {
  it("round-trips 400 random documents (seeded)", () => {
    for (let seed = 1; seed <= 400; seed++) {
      const source = generateDocument(seed);
      let document: DocumentNode;
      try {
        document = parseQuiet(source);
      } catch (error) {
        throw new Error(`Generator produced an invalid document for seed ${seed}: ${source}`, {
          cause: error,
        });
      }
      const ours = print(document);
      assert.deepEqual(
        normalize(parseQuiet(ours)),
        normalize(document),
        `seed ${seed}\nsource: ${source}\nours: ${ours}`,
      );
    }
  });
});

// A deterministic generator of GraphQL source text: the parser turns it into the AST we print, so the
// check covers the lexer's spellings (escapes, numbers, block strings, ignored tokens) as well as the grammar.

function generateDocument(seed: number): string {
  let state = seed >>> 0;
  const random = (): number => { // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(random() * n);
  const chance = (p: number): boolean => random() < p;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const times = (max: number, make: () => string, min = 1): string[] =>
    Array.from({ length: min + int(max - min + 1) }, make);
  const space = (): string => pick([" ", " ", " ", "\n", ",", "\t", " # note\n", ", ", "\r\n"]);

  const keywords = ["query", "mutation", "subscription", "fragment", "on", "true", "false", "null", "type"];
  const name = (): string => {
    if (chance(0.15)) return pick(keywords);
    const first = "_abcxyzABCXYZ";
    const rest = first + "0123456789";
    return pick([...first]) + times(6, () => pick([...rest]), 0).join("");
  };
  const nameBut = (...excluded: string[]): string => {
    const value = name();
    return excluded.includes(value) ? value + "_" : value;
  };

  const digits = (max: number): string => times(max, () => String(int(10))).join("");
  const integer = (): string =>
    (chance(0.3) ? "-" : "") + (chance(0.2) ? "0" : String(1 + int(9)) + digits(5).slice(1));
  const float = (): string => {
    let text = integer();
    const fraction = chance(0.7);
    if (fraction) text += "." + digits(4);
    if (!fraction || chance(0.4)) text += pick(["e", "E"]) + pick(["", "+", "-"]) + digits(3);
    return text;
  };

  const hex = (code: number): string => {
    const text = code.toString(16).padStart(4, "0");
    return chance(0.5) ? text : text.toUpperCase();
  };
  const pools: (() => number)[] = [
    () => 0x20 + int(0x5f), // printable ASCII, quote and backslash included
    () => pick([0x22, 0x5c, 0x2f]),
    () => int(0x20), // control characters
    () => 0x7f + int(0x21),
    () => pick([0xe9, 0x65e5, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xd7ff, 0xe000]),
    () => pick([0x1f600, 0x10000, 0x10ffff, 0x1d11e]),
  ];
  const named: Record<number, string> = {
    8: "\\b",
    9: "\\t",
    10: "\\n",
    12: "\\f",
    13: "\\r",
    0x22: '\\"',
    0x5c: "\\\\",
  };
  const stringCharacter = (): string => {
    const code = pick(pools)();
    const escaped = code <= 0xffff
      ? "\\u" + hex(code)
      : chance(0.5)
      ? `\\u{${code.toString(16)}}`
      : "\\u" + hex(0xd800 + ((code - 0x10000) >> 10)) + "\\u" + hex(0xdc00 + ((code - 0x10000) & 0x3ff));
    if (code === 0x0a || code === 0x0d) return chance(0.5) ? named[code]! : escaped;
    if (named[code] && chance(0.6)) return named[code];
    if (code === 0x22 || code === 0x5c) return escaped;
    if (code === 0x2f && chance(0.3)) return "\\/";
    return chance(0.5) ? String.fromCodePoint(code) : escaped;
  };
  const string = (): string => '"' + times(8, stringCharacter, 0).join("") + '"';
  const blockString = (): string => {
    let text = times(
      12,
      () => pick(["a", "b", " ", "  ", "\t", "\n", "\r\n", '"', '""', "\\", '\\"""', "é", "😀", "x"]),
      0,
    )
      .join("");
    text = text.replace(/(?<!\\)"""/g, '\\"""');
    if (/["\\]$/.test(text)) text += "z"; // a closing quote or backslash would merge with the delimiter
    return '"""' + text + '"""';
  };

  const value = (isConst: boolean, depth: number): string => {
    const kinds = ["int", "float", "string", "block", "boolean", "null", "enum"];
    if (!isConst) kinds.push("variable");
    if (depth > 0) kinds.push("list", "object");
    switch (pick(kinds)) {
      case "int":
        return integer();
      case "float":
        return float();
      case "string":
        return string();
      case "block":
        return blockString();
      case "boolean":
        return pick(["true", "false"]);
      case "null":
        return "null";
      case "enum":
        return nameBut("true", "false", "null");
      case "variable":
        return "$" + name();
      case "list":
        return "[" + times(3, () => value(isConst, depth - 1), 0).join(space()) + "]";
      default:
        return "{" + times(3, () => name() + ":" + space() + value(isConst, depth - 1), 0).join(space()) +
          "}";
    }
  };
  const args = (isConst: boolean): string =>
    chance(0.5) ? "(" + times(3, () => name() + ": " + value(isConst, 2)).join(space()) + ")" : "";
  const directives = (isConst: boolean): string =>
    chance(0.3) ? times(2, () => space() + "@" + name() + args(isConst)).join("") : "";
  const type = (depth: number): string => {
    const inner = depth > 0 && chance(0.3) ? "[" + type(depth - 1) + "]" : name();
    return inner + (chance(0.4) ? "!" : "");
  };
  const description = (): string => chance(0.2) ? (chance(0.5) ? string() : blockString()) + space() : "";
  const variableDefinitions = (): string =>
    chance(0.4)
      ? "(" + times(3, () =>
        description() + "$" + name() + ": " + type(2) + (chance(0.4) ? " = " + value(true, 2) : "") +
        directives(true)).join(space()) +
        ")"
      : "";

  const selectionSet = (depth: number): string =>
    "{" + space() + times(4, () => selection(depth)).join(space()) + space() + "}";
  const selection = (depth: number): string => {
    const roll = random();
    if (roll < 0.1) return "..." + nameBut("on") + directives(false);
    if (roll < 0.2 || depth <= 0 && roll < 0.25) {
      return "..." + (chance(0.6) ? " on " + name() : "") + directives(false) + space() +
        selectionSet(depth - 1);
    }
    const field = (chance(0.3) ? name() + ": " : "") + name() + args(false) + directives(false);
    return depth > 0 && chance(0.4) ? field + space() + selectionSet(depth - 1) : field;
  };

  const definition = (): string => {
    if (chance(0.25)) {
      return description() + "fragment " + nameBut("on") + " on " + name() + directives(true) + space() +
        selectionSet(3);
    }
    if (chance(0.15)) return selectionSet(3); // shorthand: no description allowed
    return description() + pick(["query", "mutation", "subscription"]) + (chance(0.7) ? " " + name() : "") +
      variableDefinitions() + directives(false) + space() + selectionSet(3);
  };
  return times(3, definition).join(space());
}
