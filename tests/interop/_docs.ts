/**
 * The code blocks of the "Typed documents in depth" recipes, for generate.ts (which writes them
 * out as one small project per recipe) and docs_test.ts (which runs them).
 *
 * The recipes live in README.md's "Typed documents in depth" section once it holds code, and in
 * docs/typed-documents.md until then. A block whose first line names a file (`// src/main.ts`,
 * `# src/post.graphql`) is that file of its section's project; any other block is the section's
 * `example.ts`.
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Where generate.ts writes the recipes' projects. */
export const DOCS_OUT: string = join(dirname(fileURLToPath(import.meta.url)), "generated", "docs");
/** The URL and API key the recipes use, which the tests point at the local endpoint. */
export const EXAMPLE_URL = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";
/** The API key of the recipes, which the tests add to the local endpoint's keys. */
export const EXAMPLE_API_KEY = "da2-example";

const SECTION_TITLE = "## Typed documents in depth";

/** One code block of the recipes. */
export interface DocBlock {
  /** Where it comes from, for messages: `README.md:120`. */
  readonly where: string;
  /** The `###` heading above it, as a folder name. */
  readonly section: string;
  /** The fence's language: `ts`, `graphql`, `jsonc`. */
  readonly lang: string;
  /** The file it is, relative to its section's project. */
  readonly file: string;
  /** The code, as written. */
  readonly code: string;
}

/** The recipes' markdown and the name of the file it comes from. */
export function recipes(): { readonly source: string; readonly markdown: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(SECTION_TITLE);
  if (start !== -1) {
    const end = readme.indexOf("\n## ", start + SECTION_TITLE.length);
    const section = readme.slice(start, end === -1 ? undefined : end);
    if (section.includes("\n```")) {
      const line = readme.slice(0, start).split("\n").length;
      return { source: `README.md`, markdown: "\n".repeat(line - 1) + section };
    }
  }
  const docs = join(ROOT, "docs", "typed-documents.md");
  if (!existsSync(docs)) throw new Error(`No recipes: neither README.md's "${SECTION_TITLE}" nor ${docs}`);
  return { source: "docs/typed-documents.md", markdown: readFileSync(docs, "utf8") };
}

/** The code blocks of the recipes, in order. */
export function docBlocks(): DocBlock[] {
  const { source, markdown } = recipes();
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  let section = "";
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.startsWith("### ")) {
      section = line.slice(4).toLowerCase().replace(/[^a-z0-9.]+/g, "-").replace(/^-|-$/g, "");
      continue;
    }
    const fence = /^```(\w+)/.exec(line);
    if (!fence) continue;
    const start = index;
    const code: string[] = [];
    while (++index < lines.length && lines[index] !== "```") code.push(lines[index]!);
    const named = /^(?:\/\/|#) ([\w./-]+\.\w+)$/.exec(code[0] ?? "");
    const unnamed = blocks.filter((block) =>
      block.section === section && block.file.startsWith("example")
    ).length;
    blocks.push({
      where: `${source}:${start + 1}`,
      section,
      lang: fence[1]!,
      file: named ? named[1]! : `example${unnamed ? `_${unnamed + 1}` : ""}.ts`,
      code: code.join("\n") + "\n",
    });
  }
  return blocks;
}

/** Whether a block is a program to run against the endpoint: TypeScript that builds a client and calls it. */
export function isRunnable(block: DocBlock): boolean {
  return block.lang === "ts" && block.code.includes("new ServiceClient(") &&
    /\.(request|requestRaw|query|mutate)[<(]/.test(block.code);
}
