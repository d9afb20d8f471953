/**
 * GraphQL Code Generator's config for the interop tests: the client preset over the local
 * endpoint's schema and the operations in ../operations/, in both document modes. Run from this
 * folder by ../generate.ts; the output goes to ../generated/ (git-ignored).
 *
 * `importExtension: ".ts"` and `useTypeImports` make the output import as Deno (and TypeScript's
 * `allowImportingTsExtensions`) resolve it; they change nothing else.
 */
import type { CodegenConfig } from "@graphql-codegen/cli";

const output = { importExtension: ".ts", useTypeImports: true } as const;

const config: CodegenConfig = {
  schema: "../../fixtures/schema.graphql",
  documents: ["../operations/*.graphql"],
  generates: {
    "../generated/codegen-node/": { preset: "client", config: { ...output, documentMode: "documentNode" } },
    "../generated/codegen-string/": { preset: "client", config: { ...output, documentMode: "string" } },
  },
  silent: true,
};

export default config;
