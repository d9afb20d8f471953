/**
 * Size budget (a), a user of everything: all five auth modes, a string document, a typed document
 * node (printed by the lazily loaded printer), `introspect()`, retries, timeouts and
 * the error classes. Every chunk of its bundle counts. Bundled by `scripts/size.ts`, never run.
 *
 * @module
 */

import {
  type AuthOptions,
  type DocumentNode,
  type DocumentTypeDecoration,
  isServiceError,
  ServiceAbortError,
  ServiceClient,
  ServiceGraphQLError,
} from "@seed/service-client";

const url = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";
const token = () => "token";
const modes: AuthOptions[] = [
  { type: "apiKey", apiKey: "da2-example" },
  { type: "userpool", jwtToken: token },
  { type: "oidc", jwtToken: token },
  { type: "lambda", authorizationToken: token },
  {
    type: "iam",
    region: "us-east-1",
    credentials: () => Promise.resolve({ accessKeyId: "AKID", secretAccessKey: "secret" }),
  },
];

/** A typed document as codegen emits it: an AST without `loc`. */
const PostQuery: DocumentNode & DocumentTypeDecoration<{ post: { title: string } }, { id: string }> = {
  kind: "Document",
  definitions: [{
    kind: "OperationDefinition",
    operation: "query",
    name: { kind: "Name", value: "Post" },
    variableDefinitions: [],
    selectionSet: {
      kind: "SelectionSet",
      selections: [{ kind: "Field", name: { kind: "Name", value: "hello" } }],
    },
  } as { kind: string }],
};

/** Uses every feature once per mode. */
export async function everything(): Promise<void> {
  for (const auth of modes) {
    const client = new ServiceClient({ url, auth, retry: { attempts: 3 } });
    try {
      await client.request<{ hello: string }>("query { hello }", undefined, { timeoutMs: 5_000 });
      const { post } = await client.request(PostQuery, { id: "1" });
      console.log(post.title, await client.introspect());
    } catch (err) {
      if (err instanceof ServiceGraphQLError) console.error(err.errors);
      else if (err instanceof ServiceAbortError) console.error(err.reason);
      else if (isServiceError(err)) console.error(err.code);
    }
  }
}
