/**
 * Every code block of the typed-documents recipes is exercised: generate.ts wrote each recipe out
 * as a project and ran its tools (the introspect script, codegen in both modes, gql.tada's CLI);
 * `deno task test:interop` type-checks the projects; this file runs each program block against the
 * local endpoint, with the example URL pointed at it.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Endpoint, startEndpoint } from "../_server.ts";
import { docBlocks, DOCS_OUT, EXAMPLE_API_KEY, EXAMPLE_URL, isRunnable } from "./_docs.ts";

const BLOCKS = docBlocks();
const CODEGEN_OUTPUT = ["gql/graphql.ts", "gql/fragment-masking.ts"];

let endpoint: Endpoint;
const written: string[] = [];
before(async () => {
  endpoint = await startEndpoint();
  endpoint.apiKeys.add(EXAMPLE_API_KEY);
});
after(async () => {
  for (const file of written) rmSync(file, { force: true });
  await endpoint.close();
});

/** Runs a program block's file from its project, against the endpoint; resolves what it logged. */
async function run(file: string): Promise<string[]> {
  const copy = file.replace(/\.ts$/, ".run.ts");
  writeFileSync(copy, readFileSync(file, "utf8").replaceAll(EXAMPLE_URL, endpoint.url));
  written.push(copy);
  const logged: string[] = [];
  const log = console.log;
  console.log = (...values: unknown[]) => void logged.push(values.map(String).join(" "));
  try {
    await import(pathToFileURL(copy).href);
  } finally {
    console.log = log;
  }
  return logged;
}

describe("typed-documents recipes", () => {
  it("have a block for each tool, and each block is a file of its recipe's project", () => {
    const sections = new Set(BLOCKS.map((block) => block.section));
    assert.ok(sections.size >= 5, [...sections].join(", "));
    for (const block of BLOCKS) {
      const file = join(DOCS_OUT, block.section, block.file);
      assert.equal(readFileSync(file, "utf8"), block.code, `${block.where} was written to ${file}`);
    }
  });

  it("the generators ran in their projects: codegen in both document modes, gql.tada's CLI", () => {
    const codegen = BLOCKS.find((block) => block.file === "codegen.ts")!;
    for (const project of [codegen.section, `${codegen.section}-string-mode`]) {
      for (const output of CODEGEN_OUTPUT) {
        assert.ok(existsSync(join(DOCS_OUT, project, "src", output)), output);
      }
    }
    const string = readFileSync(
      join(DOCS_OUT, `${codegen.section}-string-mode`, "src/gql/graphql.ts"),
      "utf8",
    );
    assert.match(string, /export const PostDocument = new TypedDocumentString\(/);
    const tada = BLOCKS.find((block) => block.file === "tsconfig.json")!;
    assert.ok(existsSync(join(DOCS_OUT, tada.section, "src", "graphql-env.d.ts")));
  });

  const programs = BLOCKS.filter(isRunnable).map((block) => ({
    where: block.where,
    files: [join(DOCS_OUT, block.section, block.file)],
  }));
  const codegenMain = programs.find((program) => program.files[0]!.includes("code-generator"));
  if (codegenMain) {
    codegenMain.files.push(codegenMain.files[0]!.replace(/(code-generator[^/]*)/, "$1-string-mode"));
  }

  for (const { where, files } of programs) {
    for (const file of files) {
      it(`${where} runs against the endpoint (${file.slice(DOCS_OUT.length + 1)})`, async () => {
        const before = endpoint.requests.length;
        const logged = await run(file);
        assert.ok(endpoint.requests.length > before, "its requests reached the endpoint");
        assert.ok(logged.length > 0 && logged.every((line) => line.includes("Hello")), logged.join("\n"));
      });
    }
  }
});
