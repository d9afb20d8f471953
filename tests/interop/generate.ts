/**
 * Generates what the interop tests import, into generated/ (git-ignored), from what the repository
 * keeps: the local endpoint's schema (tests/fixtures/schema.graphql), the operations in operations/,
 * and the typed-documents recipes.
 *
 * - generated/codegen-node/, generated/codegen-string/: GraphQL Code Generator's client preset
 *   (codegen/, installed with `npm ci --prefix tests/interop/codegen`) in both document modes;
 * - generated/tada/: our own `introspect()` against the local endpoint, written as introspection
 *   JSON, and gql.tada's CLI (`gql-tada generate-output`) turning it into `graphql-env.d.ts`;
 * - generated/docs/: each recipe written out as a small project: its `introspect.ts` run against
 *   the endpoint, then codegen (as configured, and again in string mode) and gql.tada's CLI run in
 *   their projects, as a user would run them.
 *
 * Run by `deno task test:interop` before the type check and the tests.
 *
 * @module
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ServiceClient } from "@seed/service-client";
import { startEndpoint } from "../_server.ts";
import { API_KEY } from "../_fixtures.ts";
import { docBlocks, DOCS_OUT, EXAMPLE_API_KEY, EXAMPLE_URL, ROOT } from "./_docs.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, "generated");
const CODEGEN = join(HERE, "codegen", "node_modules", "@graphql-codegen", "cli", "cjs", "bin.js");
const GQL_TADA = join(ROOT, "node_modules", "gql.tada", "bin", "cli.js");

/** Runs a Node CLI in `cwd`, and throws if it fails. */
function node(script: string, args: string[], cwd: string): void {
  const result = spawnSync("node", [script, ...args], { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    throw new Error(`node ${script} ${args.join(" ")} (in ${cwd}) failed with status ${result.status}`);
  }
}

/** The tsconfig.json that points gql.tada at an introspection file. */
function tadaTsconfig(schema: string, output: string): string {
  const plugin = { name: "gql.tada/ts-plugin", schema, tadaOutputLocation: output };
  return JSON.stringify({ compilerOptions: { strict: true, plugins: [plugin] } }, null, 2) + "\n";
}

for (
  const [tool, path, install] of [
    ["GraphQL Code Generator", CODEGEN, "npm ci --prefix tests/interop/codegen"],
    ["gql.tada", GQL_TADA, "deno install"],
  ] as const
) {
  if (!existsSync(path)) throw new Error(`${tool} is not installed (${path}): run \`${install}\` first`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

console.log("codegen: client preset, documentNode and string modes");
node(CODEGEN, ["--config", "codegen.ts"], join(HERE, "codegen"));

const endpoint = await startEndpoint();
endpoint.apiKeys.add(EXAMPLE_API_KEY);
try {
  console.log("gql.tada: our introspect(), then gql-tada generate-output");
  const client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
  const tada = join(OUT, "tada");
  mkdirSync(tada, { recursive: true });
  writeFileSync(join(tada, "introspection.json"), JSON.stringify(await client.introspect(), null, 2) + "\n");
  writeFileSync(join(tada, "tsconfig.json"), tadaTsconfig("./introspection.json", "./graphql-env.d.ts"));
  node(GQL_TADA, ["generate-output"], tada);

  console.log("docs: the typed-documents recipes, one project each");
  const blocks = docBlocks();
  for (const block of blocks) {
    const file = join(DOCS_OUT, block.section, block.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, block.code);
  }
  const introspects = blocks.filter((block) => block.lang === "ts" && block.code.includes(".introspect()"));
  if (introspects.length !== 1) {
    throw new Error(`Expected one recipe that introspects, found ${introspects.length}`);
  }
  const schemaProject = join(DOCS_OUT, introspects[0]!.section);
  const script = join(schemaProject, "introspect.run.ts");
  writeFileSync(script, introspects[0]!.code.replaceAll(EXAMPLE_URL, endpoint.url));
  const cwd = Deno.cwd();
  Deno.chdir(schemaProject);
  try {
    await import(pathToFileURL(script).href);
  } finally {
    Deno.chdir(cwd);
  }
  const schema = join(schemaProject, "schema.json");
  if (!existsSync(schema)) throw new Error(`The introspect recipe did not write ${schema}`);

  const codegens = blocks.filter((block) => block.file === "codegen.ts");
  const tadas = blocks.filter((block) => block.file === "tsconfig.json");
  if (codegens.length !== 1 || tadas.length !== 1) {
    throw new Error(
      `Expected one codegen.ts and one tsconfig.json recipe, found ${codegens.length}, ${tadas.length}`,
    );
  }
  const codegen = join(DOCS_OUT, codegens[0]!.section);
  const codegenString = `${codegen}-string-mode`;
  cpSync(codegen, codegenString, { recursive: true });
  const config = readFileSync(join(codegen, "codegen.ts"), "utf8");
  const modes = config.split('documentMode: "documentNode"').length - 1;
  if (modes !== 1) throw new Error(`Expected the codegen recipe to set documentMode: "documentNode" once`);
  writeFileSync(
    join(codegenString, "codegen.ts"),
    config.replace('documentMode: "documentNode"', 'documentMode: "string"'),
  );
  for (const project of [codegen, codegenString]) {
    cpSync(schema, join(project, "schema.json"));
    symlinkSync(join(HERE, "codegen", "node_modules"), join(project, "node_modules"), "dir");
    node(CODEGEN, ["--config", "codegen.ts", "--silent"], project);
  }
  const tadaProject = join(DOCS_OUT, tadas[0]!.section);
  cpSync(schema, join(tadaProject, "schema.json"));
  node(GQL_TADA, ["generate-output"], tadaProject);
} finally {
  await endpoint.close();
}
console.log(`generated ${OUT.slice(ROOT.length + 1)}/`);
