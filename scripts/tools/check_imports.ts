/**
 * Checks that the dev tools' configuration (scripts/tools/deno.json) maps every import of the root
 * deno.json to the same package and version: the scripts that run with it import the library's
 * sources, and so the root's packages too, which must not resolve to another version there. Run by
 * `deno task check`; prints each difference and fails on any.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The differences between the root's imports and the tools' (empty when the tools have them all). */
export function importDrift(root: Record<string, string>, tools: Record<string, string>): string[] {
  return Object.entries(root).flatMap(([name, target]) =>
    tools[name] === target ? [] : [`"${name}": root has ${target}, tools have ${tools[name] ?? "nothing"}`]
  );
}

if (import.meta.main) {
  const read = (path: string) =>
    (JSON.parse(readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")) as {
      imports: Record<string, string>;
    }).imports;
  const drift = importDrift(read("../../deno.json"), read("./deno.json"));
  if (drift.length) {
    console.error(
      `scripts/tools/deno.json must map the root's imports as the root does:\n  ${drift.join("\n  ")}`,
    );
    Deno.exit(1);
  }
  console.log("scripts/tools/deno.json maps the root's imports as the root does");
}
