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

const ENTRY_POINTS = ["mod.ts", "src/sigv4.ts"];
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
console.log(`doc lint: ${diagnostics.length - failures} allowed, ${failures} failing`);
if (failures > 0) Deno.exit(1);

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
