/**
 * The type tests' own checks, on the TypeScript compiler API (the `typescript` of deno.json):
 *
 * - every `// @ts-expect-error TSxxxx: why` in tests/types/ names the error it expects, and the
 *   line under it fails with that code — not merely with some error. `deno task check` compiles the
 *   same files and fails on a directive whose line stops failing (TS2578, unused directive);
 * - no `any` in the public types: every export of every entry point that deno.json's `exports`
 *   names (mod.ts, src/sigv4.ts, src/realtime.ts) is walked through its members, signatures, type arguments and aliases, following our own
 *   declarations and the type arguments of everything else; an `any` anywhere fails the test, with
 *   its path. A fixture proves the walk finds `any` where it hides.
 *
 * Deno only: the checks read the repository's sources.
 *
 * @module
 */

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as TS from "typescript";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CASES_DIR = join(ROOT, "tests", "types");
const CASE_FILES = isDeno
  ? readdirSync(CASES_DIR).filter((name) => name.endsWith("_cases.ts")).map((name) => join(CASES_DIR, name))
  : [];
/** The package's entry points, as deno.json's `exports` names them: a new entry is walked too. */
const ENTRY_POINTS = isDeno
  ? Object.values(JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).exports as Record<string, string>)
    .map((path) => join(ROOT, path))
  : [];
const ANY_FIXTURE = join(ROOT, "src", "__any_fixture__.ts");
const DIRECTIVE = "@ts-expect-error";
const DIRECTIVE_FORMAT = /\/\/ @ts-expect-error (TS\d+(?:\|TS\d+)*)(?: ('[^']+'))?: \S/;

/** Exports of the fixture that hide an `any`, and the one that does not. */
const ANY_FIXTURE_SOURCE = `
export interface Property { readonly value: any }
export type InPromise = Promise<any>;
export function returns(): Record<string, any> { return {}; }
export function takes(value: any[]): void { void value; }
export declare const nested: { readonly deep: { readonly list: ReadonlyArray<{ readonly x: any }> } };
export class Method { run(callback: (value: any) => void): void { void callback; } }
export type Branch<T> = T extends string ? any : never;
export interface Indexed { readonly [key: string]: any }
export type Generic<T = any> = { readonly value: T };
export interface Clean { readonly value: unknown; readonly headers: Headers; readonly when: Promise<Response> }
`;
const ANY_FIXTURE_DIRTY = [
  "Property",
  "InPromise",
  "returns",
  "takes",
  "nested",
  "Method",
  "Branch",
  "Indexed",
  "Generic",
];

let ts: typeof TS;
let program: TS.Program;

/** deno.json's compilerOptions, as a plain TypeScript program sees the same sources. */
function compilerOptions(): TS.CompilerOptions {
  const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as {
    compilerOptions: Record<string, unknown> & { lib?: string[] };
  };
  const { lib = [], ...rest } = deno.compilerOptions;
  const { options, errors } = ts.convertCompilerOptionsFromJson({
    ...rest,
    lib: lib.filter((name) => !name.startsWith("deno.")),
    target: "esnext",
    module: "esnext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  }, ROOT);
  assert.deepEqual(errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, "\n")), []);
  return options;
}

before(async () => {
  if (!isDeno) return;
  const module = await import("typescript");
  ts = module.default as unknown as typeof TS;
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (fileName === ANY_FIXTURE) return ts.createSourceFile(fileName, ANY_FIXTURE_SOURCE, languageVersion);
    if (!CASE_FILES.includes(fileName)) return getSourceFile(fileName, languageVersion, ...rest);
    // The directives are switched off, so that the errors they expect are reported.
    const text = readFileSync(fileName, "utf8").replaceAll(DIRECTIVE, "@ts-expect-(off)");
    return ts.createSourceFile(fileName, text, languageVersion);
  };
  program = ts.createProgram([...CASE_FILES, ...ENTRY_POINTS, ANY_FIXTURE], options, host);
});

describe("type tests", { skip: isDeno ? false : "reads the repository's sources: run on Deno" }, () => {
  it("tests/types/ has the case files of every rule", () => {
    const names = CASE_FILES.map((file) => file.slice(CASES_DIR.length + 1));
    for (const name of ["auth_cases.ts", "documents_cases.ts", "errors_cases.ts", "results_cases.ts"]) {
      assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
    }
  });

  for (const file of CASE_FILES) {
    it(`${file.slice(ROOT.length + 1)}: each @ts-expect-error fails with the code it names, and nothing else fails`, () => {
      const source = program.getSourceFile(file);
      assert.ok(source, `the program has ${file}`);
      const expected = new Map<number, { codes: string[]; quote: string; text: string }>();
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((text, index) => {
        if (!text.trimStart().startsWith(`// ${DIRECTIVE}`)) return;
        const match = DIRECTIVE_FORMAT.exec(text);
        assert.ok(
          match,
          `line ${index + 1}: write "// ${DIRECTIVE} TSxxxx 'quote': why" (found: ${text.trim()})`,
        );
        expected.set(index + 1, { codes: match[1]!.split("|"), quote: match[2] ?? "", text: text.trim() });
      });
      assert.ok(expected.size > 0, "the file has negative cases");

      const found = new Map<number, string[]>();
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      for (const diagnostic of diagnostics) {
        const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
        found.set(line, [...(found.get(line) ?? []), `TS${diagnostic.code} ${message}`]);
      }
      const problems: string[] = [];
      for (const [line, { codes, quote, text }] of expected) {
        const errors = found.get(line) ?? [];
        if (!errors.some((error) => codes.includes(error.split(" ")[0]!) && error.includes(quote))) {
          const wanted = `${codes.join(" or ")}${quote ? ` mentioning ${quote}` : ""}`;
          const got = errors.length ? errors.join("; ") : "no error";
          problems.push(
            `line ${line + 1} (${text.slice(DIRECTIVE.length + 4)}): expected ${wanted}, got ${got}`,
          );
        }
      }
      for (const [line, errors] of found) {
        if (!expected.has(line)) problems.push(`line ${line + 1}: unexpected ${errors.join("; ")}`);
      }
      assert.deepEqual(problems, []);
    });
  }

  it("the any-walk finds every any hidden in the fixture, and nothing in its clean export", () => {
    const found = anyPaths(program, [ANY_FIXTURE], (fileName) => fileName === ANY_FIXTURE);
    const exports = new Set(found.map((path) => path.split(/[.(<[ ]/)[0]));
    assert.deepEqual([...exports].sort(), [...ANY_FIXTURE_DIRTY].sort(), found.join("\n"));
  });

  it("the public types (every entry point of deno.json's exports) contain no any", () => {
    assert.deepEqual(ENTRY_POINTS.map((path) => path.slice(ROOT.length + 1)), [
      "mod.ts",
      "src/sigv4.ts",
      "src/realtime.ts",
    ]);
    const own = (fileName: string) =>
      fileName === ENTRY_POINTS[0] || fileName.startsWith(join(ROOT, "src") + "/");
    const found = anyPaths(program, ENTRY_POINTS, own);
    const exported = ENTRY_POINTS.flatMap((file) => exportsOf(program, file));
    assert.ok(exported.length >= 30, `walked ${exported.length} exports`);
    assert.deepEqual(found, [], `any in the public types:\n${found.join("\n")}`);
  });
});

function exportsOf(program: TS.Program, file: string): TS.Symbol[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  assert.ok(source, `the program has ${file}`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module, `${file} is a module`);
  return checker.getExportsOfModule(module);
}

/**
 * The paths at which `any` appears in the exports of `files`. Members are followed into types
 * declared in files for which `own` is true; other types (the DOM's, graphql's) are not opened,
 * but their type arguments are (`Promise<any>` is found).
 */
function anyPaths(program: TS.Program, files: string[], own: (fileName: string) => boolean): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  const seen = new Set<TS.Type>();
  const isOwn = (declarations: readonly TS.Declaration[] | undefined) =>
    (declarations ?? []).some((declaration) => own(declaration.getSourceFile().fileName));
  const isPublic = (symbol: TS.Symbol) =>
    !(symbol.declarations ?? []).some((declaration) =>
      (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
        0 ||
      (ts.isPropertyDeclaration(declaration) || ts.isMethodDeclaration(declaration)) &&
        ts.isPrivateIdentifier(declaration.name)
    );

  function visitSignature(signature: TS.Signature, path: string): void {
    for (const parameter of signature.getTypeParameters() ?? []) {
      visitType(parameter, `${path}<${parameter.symbol.name}>`);
    }
    for (const parameter of signature.getParameters()) {
      visitType(checker.getTypeOfSymbol(parameter), `${path}(${parameter.name})`);
    }
    visitType(checker.getReturnTypeOfSignature(signature), `${path}()`);
  }

  function visitType(type: TS.Type, path: string): void {
    if (type.flags & ts.TypeFlags.Any) {
      found.push(path);
      return;
    }
    if (seen.has(type)) return;
    seen.add(type);
    for (const argument of type.aliasTypeArguments ?? []) visitType(argument, `${path}<>`);
    if (type.flags & ts.TypeFlags.UnionOrIntersection) {
      for (const member of (type as TS.UnionOrIntersectionType).types) visitType(member, path);
      return;
    }
    if (type.flags & ts.TypeFlags.TypeParameter) {
      const constraint = type.getConstraint();
      if (constraint) visitType(constraint, `${path} extends`);
      const fallback = type.getDefault();
      if (fallback) visitType(fallback, `${path} =`);
      return;
    }
    if (type.flags & ts.TypeFlags.Index) return visitType((type as TS.IndexType).type, `${path} keyof`);
    if (type.flags & ts.TypeFlags.IndexedAccess) {
      const access = type as TS.IndexedAccessType;
      visitType(access.objectType, `${path}[]`);
      return visitType(access.indexType, `${path}[]`);
    }
    if (type.flags & ts.TypeFlags.Conditional) {
      const conditional = type as TS.ConditionalType;
      visitType(conditional.checkType, `${path} check`);
      visitType(conditional.extendsType, `${path} extends`);
      const node = conditional.root.node;
      visitType(checker.getTypeFromTypeNode(node.trueType), `${path} ?`);
      visitType(checker.getTypeFromTypeNode(node.falseType), `${path} :`);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    const object = type as TS.ObjectType;
    if (object.objectFlags & ts.ObjectFlags.Reference) {
      for (const argument of checker.getTypeArguments(object as TS.TypeReference)) {
        visitType(argument, `${path}<>`);
      }
    }
    const symbol = type.getSymbol();
    if (!isOwn(symbol?.declarations) && !isOwn(type.aliasSymbol?.declarations)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      if (isPublic(property)) visitType(checker.getTypeOfSymbol(property), `${path}.${property.name}`);
    }
    for (const signature of type.getCallSignatures()) visitSignature(signature, path);
    for (const signature of type.getConstructSignatures()) visitSignature(signature, `${path} new`);
    for (const info of checker.getIndexInfosOfType(type)) visitType(info.type, `${path}[key]`);
    if (object.objectFlags & (ts.ObjectFlags.Class | ts.ObjectFlags.Interface)) {
      for (const base of checker.getBaseTypes(object as TS.InterfaceType)) visitType(base, `${path} extends`);
    }
  }

  for (const file of files) {
    for (const exported of exportsOf(program, file)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (symbol.flags & (ts.SymbolFlags.Type & ~ts.SymbolFlags.Class)) {
        visitType(checker.getDeclaredTypeOfSymbol(symbol), exported.name);
        for (const declaration of symbol.declarations ?? []) {
          if (ts.isTypeAliasDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) {
            for (const parameter of declaration.typeParameters ?? []) {
              visitType(checker.getTypeAtLocation(parameter), `${exported.name}<${parameter.name.text}>`);
            }
          }
        }
      }
      if (symbol.flags & ts.SymbolFlags.Value) visitType(checker.getTypeOfSymbol(symbol), exported.name);
    }
  }
  return found;
}
