/**
 * esbuild bundles of the built package, as an application bundler makes them: for the runtimes that
 * load code rather than packages (browser, worker, edge) and for the size budgets.
 * `@seed/service-client` resolves as an installed package would: through a `node_modules` folder (a
 * temporary symlink to `npm/`), so `exports`, `imports` and the conditions of each platform decide
 * which files are used.
 *
 * @module
 */

import * as esbuild from "esbuild";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUT as NPM_DIR, ROOT } from "../build_npm.ts";

/** A built output file. */
export interface OutputFile {
  /** Its path relative to the output folder, with `/` separators. */
  readonly path: string;
  readonly text: string;
  /** Whether it is an entry point (else a chunk). */
  readonly entry: boolean;
  /** The output files it imports, by path, and how: statically, or through `import()`. */
  readonly imports: ReadonlyArray<{ readonly path: string; readonly dynamic: boolean }>;
}

/** What to bundle and for which platform. */
export interface BundleOptions {
  /** Entry points: output name (no extension) → file path (relative to the root) or package specifier. */
  readonly entries: Readonly<Record<string, string>>;
  /**
   * `esm` with code splitting (chunks stay separate modules), one `iife` script, or one CommonJS
   * module (`cjs`: the external imports become `require` calls).
   */
  readonly format: "esm" | "iife" | "cjs";
  /** Resolution conditions besides esbuild's defaults for the browser platform. */
  readonly conditions?: readonly string[];
  /** Specifiers left for the runtime to resolve (an import map, for instance). */
  readonly external?: readonly string[];
  readonly minify?: boolean;
}

/**
 * Bundles in memory.
 *
 * @param options Entries, format and platform conditions.
 * @returns The output files: entries as `<name>.js`, chunks under `chunks/`.
 */
export async function bundle(options: BundleOptions): Promise<OutputFile[]> {
  const modules = mkdtempSync(join(tmpdir(), "service-client-resolve-"));
  try {
    mkdirSync(join(modules, "node_modules/@seed"), { recursive: true });
    symlinkSync(NPM_DIR, join(modules, "node_modules/@seed/service-client"), "dir");
    const outdir = join(modules, "out");
    const entryPoints = Object.entries(options.entries).map(([out, input]) => ({
      out,
      in: input.startsWith("@") ? input : join(ROOT, input),
    }));
    const result = await esbuild.build({
      entryPoints,
      bundle: true,
      write: false,
      absWorkingDir: ROOT,
      outdir,
      format: options.format,
      splitting: options.format === "esm",
      platform: "browser",
      target: "es2022",
      minify: options.minify ?? false,
      conditions: [...(options.conditions ?? [])],
      external: [...(options.external ?? [])],
      nodePaths: [join(modules, "node_modules")],
      chunkNames: "chunks/[name]-[hash]",
      metafile: true,
      logLevel: "silent",
    });
    const relativePath = (path: string) => path.slice(outdir.length + 1);
    const meta = new Map(
      Object.entries(result.metafile.outputs).map(([path, output]) => [join(ROOT, path), output]),
    );
    return result.outputFiles.map((file) => {
      const output = meta.get(file.path);
      return {
        path: relativePath(file.path),
        text: file.text,
        // Modules reached through import() are entry points to esbuild too; ours are the named ones.
        entry: !relativePath(file.path).startsWith("chunks/"),
        imports: (output?.imports ?? []).filter((item) => !item.external).map((item) => ({
          path: relativePath(join(ROOT, item.path)),
          dynamic: item.kind === "dynamic-import",
        })),
      };
    });
  } finally {
    rmSync(modules, { recursive: true, force: true });
  }
}

/** Stops esbuild's service, so that the process can exit. */
export async function stopBundler(): Promise<void> {
  await esbuild.stop();
}
