/**
 * `deno doc --lint` on the public entry points, with one documented exception: a public type may
 * reference a type imported from an npm package (here `graphql`'s `IntrospectionQuery`, the type
 * that `introspect()` must resolve so that `buildClientSchema` accepts it). Deno 2.9 still reports
 * those as `private-type-ref`, although the referenced type is public in its own package; upstream
 * agrees it should not (denoland/deno#27364) and stopped for jsr:/https: modules only
 * (denoland/deno#34339), while npm types resolve to file: paths. Every other diagnostic fails.
 *
 * Run: `deno run -A scripts/doc_lint.ts`
 *
 * @module
 */

import { readFileSync } from "node:fs";

const ENTRY_POINTS = ["mod.ts", "src/sigv4.ts", "src/realtime.ts"];
const NPM_TYPE_PACKAGES = ["graphql", "@graphql-typed-document-node/core"];

const output = new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...ENTRY_POINTS],
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).outputSync();
const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
const diagnostics = text.split(/\n(?=error\[)/).filter((block) => block.startsWith("error["));

let failures = 0;
for (const block of diagnostics) {
  if (isNpmTypeReference(block)) {
    console.log(`allowed (npm type, denoland/deno#27364): ${block.split("\n")[0]!.replace(/^error/, "")}`);
  } else {
    failures++;
    console.error(block.trim());
  }
}
if (!output.success && diagnostics.length === 0) {
  console.error(text);
  Deno.exit(1);
}
const untitled = symbolsWithoutTitledExample();
for (const name of untitled) console.error(`missing a titled @example: ${name}`);
failures += untitled.length;
console.log(`doc lint: ${diagnostics.length - failures + untitled.length} allowed, ${failures} failing`);
if (failures > 0) Deno.exit(1);

interface DocTag {
  kind: string;
  doc?: string;
}
interface DocDeclaration {
  kind?: string;
  def?: { kind?: string; methods?: Array<{ name: string; jsDoc?: { tags?: DocTag[] } }> };
  jsDoc?: { tags?: DocTag[] };
}

/** Every public symbol and public class method must carry an `@example` with a title line. */
function symbolsWithoutTitledExample(): string[] {
  const json = new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...ENTRY_POINTS],
    stdout: "piped",
  })
    .outputSync();
  const { nodes } = JSON.parse(new TextDecoder().decode(json.stdout)) as {
    nodes: Record<string, { symbols?: Array<{ name: string; declarations: DocDeclaration[] }> }>;
  };
  const titled = (tags: DocTag[] | undefined) =>
    (tags ?? []).some((tag) => tag.kind === "example" && !!tag.doc && !tag.doc.trimStart().startsWith("```"));
  const missing: string[] = [];
  for (const node of Object.values(nodes)) {
    for (const symbol of node.symbols ?? []) {
      // A re-export (`export type { X } from …`) is a reference: X is documented where it is declared.
      const declarations = symbol.declarations.filter((d) => (d.def?.kind ?? d.kind) !== "reference");
      if (declarations.length === 0) continue;
      if (!declarations.some((declaration) => titled(declaration.jsDoc?.tags))) missing.push(symbol.name);
      for (const method of declarations[0]?.def?.methods ?? []) {
        if (!titled(method.jsDoc?.tags)) missing.push(`${symbol.name}.${method.name}`);
      }
    }
  }
  return [...new Set(missing)];
}

/** Whether a diagnostic is a private-type-ref to a type the file imports from an npm package. */
function isNpmTypeReference(block: string): boolean {
  const name = /^error\[private-type-ref\]: .* references private type '([^']+)'/.exec(block)?.[1];
  const file = /--> (.+?):\d+:\d+/.exec(block)?.[1];
  if (!name || !file) return false;
  const source = readFileSync(file, "utf8");
  return NPM_TYPE_PACKAGES.some((pkg) =>
    new RegExp(`import type \\{[^}]*\\b${name}\\b[^}]*\\} from "${pkg.replace(/[/.]/g, "\\$&")}"`).test(
      source,
    )
  );
}
