/**
 * Compiles TypeScript files to ESM or CommonJS with the TypeScript compiler API, rewriting every
 * module specifier on the way (in the JavaScript and in the declarations): import and export
 * declarations, `import()` calls and `import("…")` types.
 *
 * Each file is emitted to `outDir` at its path relative to `rootDir`: the root files, and with
 * `closure` every local file they import (never declaration files or packages).
 *
 * @module
 */

import ts from "typescript";
import { relative } from "node:path";

/** Rewrites one specifier found in `importer` (an absolute path); throws to stop the build. */
export type SpecifierMapper = (specifier: string, importer: string) => string;

/** What to compile and how. */
export interface CompileOptions {
  /** The files to compile, as absolute paths. */
  readonly rootNames: readonly string[];
  /** Emit the local files the roots import too (else only the roots). */
  readonly closure: boolean;
  /**
   * Files of the closure not to emit, as absolute paths: sources that `mapSpecifier` replaces
   * everywhere they are imported, which nothing emitted would load.
   */
  readonly omit?: readonly string[];
  /** The folder whose layout `outDir` mirrors. */
  readonly rootDir: string;
  /** Where the `.js` (and `.d.ts`) files go. */
  readonly outDir: string;
  /** ESM (`import`/`export`) or CommonJS (`require`/`exports`). */
  readonly format: "esm" | "cjs";
  /** Emit a `.d.ts` beside each `.js`. */
  readonly declaration: boolean;
  /** Fail on type errors (otherwise only on syntax and emit errors). */
  readonly typeCheck: boolean;
  /** Compiler options of the project (strictness flags), applied under the fixed ones here. */
  readonly baseOptions: ts.CompilerOptions;
  /** Folders holding `@types` packages, and the packages to load from them. */
  readonly types?: { readonly roots: readonly string[]; readonly names: readonly string[] };
  /** The extensions of the emitted code and declarations (`.js`/`.d.ts`, or `.cjs`/`.d.cts`). */
  readonly extensions: { readonly js: string; readonly types: string };
  /** The specifier rewriting. */
  readonly mapSpecifier: SpecifierMapper;
  /**
   * Packages a consumer may not have installed (optional peers, whose types only are imported). In the
   * declarations, each `import type` of one gets a `// @ts-ignore` line above it: without the package
   * the imported types are `any`, instead of an error in the consumer's build (with `skipLibCheck` off).
   */
  readonly optionalTypeImports?: readonly string[];
  /**
   * Load the local modules that the source loads with `import()` (the printer, the iam signer, the
   * retry waits, the introspection query) with the file instead: each `import("./x")` becomes a
   * namespace import at the top and `Promise.resolve` of it. For the build that runtimes on a disk load
   * (Node, Bun), where a lazy load saves no download but takes turns of the event loop, which fake
   * timers do not wait for: a test that advances them would see the call's timeout fire first.
   */
  readonly eagerImports?: boolean;
}

/** Puts a `// @ts-ignore` above each `import type … from "<package>"` line of `packages` in declarations. */
export function tolerateMissingPackages(declarations: string, packages: readonly string[]): string {
  return declarations.replace(
    /^import type [^\n]* from "([^"]+)";$/gm,
    (line, name: string) =>
      packages.includes(name)
        ? `// @ts-ignore -- ${name} is an optional peer dependency: without it, these types are any\n${line}`
        : line,
  );
}

/** A failed compilation; the message holds the formatted diagnostics. */
export class CompileError extends Error {
  override name = "CompileError";
}

/**
 * Compiles and writes the root files.
 *
 * @param options What to compile and how.
 * @returns The paths of the files written.
 * @throws {CompileError} For type errors (when checking), syntax errors or a failed emit.
 * @throws {Error} Whatever `mapSpecifier` throws.
 */
export function compile(options: CompileOptions): string[] {
  const compilerOptions: ts.CompilerOptions = {
    ...options.baseOptions,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.esnext.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    module: options.format === "esm" ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    declaration: options.declaration,
    rootDir: options.rootDir,
    outDir: options.outDir,
    skipLibCheck: true,
    noEmitOnError: options.typeCheck,
    newLine: ts.NewLineKind.LineFeed,
    types: [...(options.types?.names ?? [])],
    ...(options.types ? { typeRoots: [...options.types.roots] } : {}),
  };
  const program = ts.createProgram({ rootNames: options.rootNames, options: compilerOptions });

  const written: string[] = [];
  const { js, types } = options.extensions;
  const writeFile: ts.WriteFileCallback = (emitted, text, bom) => {
    const file = emitted.replace(/\.d\.ts$/, types).replace(/(?<!\.d)\.js$/, js);
    written.push(file);
    const optional = options.optionalTypeImports ?? [];
    ts.sys.writeFile(file, file.endsWith(types) ? tolerateMissingPackages(text, optional) : text, bom);
  };
  const local = (file: ts.SourceFile) =>
    !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file) &&
    !file.fileName.includes("/node_modules/") && file.fileName.startsWith(options.rootDir + "/");
  const sources = options.closure
    ? program.getSourceFiles().filter((file) => local(file) && !options.omit?.includes(file.fileName))
    : options.rootNames.map((root) =>
      program.getSourceFile(root) ?? fail(`Cannot compile ${root}: not found`)
    );
  // Rewrite every specifier once before checking, so that a jsr: or https: import fails with its
  // own message rather than as a module TypeScript cannot find.
  for (const source of sources) {
    for (const { fileName } of ts.preProcessFile(source.text, true, true).importedFiles) {
      options.mapSpecifier(fileName, source.fileName);
    }
  }
  const diagnostics = options.typeCheck
    ? ts.getPreEmitDiagnostics(program)
    : [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics()];
  if (diagnostics.length) throw new CompileError(format(diagnostics, options.rootDir));

  for (const source of sources) {
    const root = source.fileName;
    const result = program.emit(source, writeFile, undefined, false, {
      before: [
        ...(options.eagerImports ? [eagerImports] : []),
        rewriteSpecifiers<ts.SourceFile>(options.mapSpecifier),
      ],
      afterDeclarations: [rewriteSpecifiers<ts.SourceFile | ts.Bundle>(options.mapSpecifier)],
    });
    if (result.emitSkipped || result.diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error)) {
      throw new CompileError(`Emit failed for ${root}\n${format(result.diagnostics, options.rootDir)}`);
    }
  }
  return written;
}

/**
 * A transformer that turns each `import("./…")` of a local module into `Promise.resolve(ns)`, where
 * `ns` is a namespace import of that module added at the top of the file (see `eagerImports`).
 */
const eagerImports: ts.TransformerFactory<ts.SourceFile> = (context) => (root) => {
  const { factory } = context;
  const added: ts.ImportDeclaration[] = [];
  const visit = (node: ts.Node): ts.Node => {
    if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!) &&
      node.arguments[0].text.startsWith(".")
    ) {
      const name = factory.createUniqueName("loaded");
      added.push(factory.createImportDeclaration(
        undefined,
        factory.createImportClause(false, undefined, factory.createNamespaceImport(name)),
        factory.createStringLiteral(node.arguments[0].text),
      ));
      return factory.createCallExpression(
        factory.createPropertyAccessExpression(factory.createIdentifier("Promise"), "resolve"),
        undefined,
        [name],
      );
    }
    return ts.visitEachChild(node, visit, context);
  };
  const visited = ts.visitEachChild(root, visit, context);
  return added.length ? factory.updateSourceFile(visited, [...added, ...visited.statements]) : visited;
};

/** A transformer that passes every module specifier of a file through `map`. */
function rewriteSpecifiers<T extends ts.SourceFile | ts.Bundle>(
  map: SpecifierMapper,
): ts.TransformerFactory<T> {
  return (context) => (root: T): T => {
    if (!ts.isSourceFile(root)) return root;
    const importer = ts.getOriginalNode(root, ts.isSourceFile)?.fileName ?? root.fileName;
    const { factory } = context;
    const literal = (node: ts.StringLiteral) => factory.createStringLiteral(map(node.text, importer));
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        return factory.updateImportDeclaration(
          node,
          node.modifiers,
          node.importClause,
          literal(node.moduleSpecifier),
          node.attributes,
        );
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        return factory.updateExportDeclaration(
          node,
          node.modifiers,
          node.isTypeOnly,
          node.exportClause,
          literal(node.moduleSpecifier),
          node.attributes,
        );
      }
      if (
        ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] && ts.isStringLiteral(node.arguments[0])
      ) {
        const [first, ...rest] = node.arguments;
        return factory.updateCallExpression(node, node.expression, node.typeArguments, [
          literal(first),
          ...rest,
        ]);
      }
      if (
        ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        return factory.updateImportTypeNode(
          node,
          factory.updateLiteralTypeNode(node.argument, literal(node.argument.literal)),
          node.attributes,
          node.qualifier,
          ts.visitNodes(node.typeArguments, visit, ts.isTypeNode),
          node.isTypeOf,
        );
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitEachChild(root, visit, context) as T;
  };
}

function format(diagnostics: readonly ts.Diagnostic[], root: string): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (file) => relative(root, file),
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  });
}

function fail(message: string): never {
  throw new CompileError(message);
}
