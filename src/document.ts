/**
 * Turns what a caller passes as a document into the query text and operation name to send.
 *
 * Accepted: a string; codegen's `TypedDocumentString` (a `String` object carrying a phantom type);
 * a `DocumentNode` or `TypedDocumentNode`, including gql.tada's. A node is printed by our own printer,
 * loaded with `import()` at the first node, and the text is cached per node. Never its
 * `loc.source.body`: that is the text it was parsed from, which need not be the document any more
 * (graphql-tag drops a fragment interpolated twice from the definitions but not from the text;
 * graphql-tag/loader keeps a whole file's text on each operation; a `visit` keeps the root's `loc`).
 *
 * The types ride on the phantom `__apiType` field that all three tools declare, so typed documents
 * cost nothing at run time.
 *
 * @module
 */

import { chunkLoadFailed } from "./errors.ts";
import { fail } from "./validate.ts";

/**
 * The variables object of an operation.
 *
 * @example Any JSON-serializable object
 * ```ts
 * import type { Variables } from "@seed/service-client";
 *
 * const variables: Variables = { id: "1", filter: { tags: ["a", "b"] } };
 * console.log(JSON.stringify(variables));
 * ```
 */
export type Variables = Record<string, unknown>;

/**
 * The variables of a document whose variables are not typed: any object that the client sends as the
 * JSON object it is. A record (an object literal, a type alias) or a value of an interface or a class
 * passes; an array, a `Map` or `Set`, a `Date`, a function, a `Promise` (a forgotten `await`), a
 * `RegExp`, a boxed string, an `ArrayBuffer` or an object with `toJSON` does not, as the client
 * refuses those at run time.
 *
 * @example What passes and what does not
 * ```ts
 * import type { VariablesObject } from "@seed/service-client";
 *
 * interface PostVariables {
 *   id: string;
 * }
 * const fromInterface: PostVariables = { id: "1" };
 * const ok: VariablesObject[] = [{ id: "1" }, fromInterface];
 * // @ts-expect-error: an array is not sent as an object
 * const array: VariablesObject = [1, 2];
 * console.log(ok.length, typeof array); // 2 "object"
 * ```
 */
export type VariablesObject =
  | { readonly [name: string]: unknown; readonly toJSON?: never; readonly signal?: SignalVariable }
  | (object & {
    readonly forEach?: never;
    readonly getTime?: never;
    readonly apply?: never;
    readonly toJSON?: never;
    readonly then?: never;
    readonly exec?: never;
    readonly charAt?: never;
    readonly byteLength?: never;
    readonly signal?: SignalVariable;
  });

/**
 * A variable named `signal`: any value but an `AbortSignal`. Request options go third, after the
 * variables (`undefined` when there are none): `{ signal }` in the variables' place would be sent as a
 * variable and abort nothing, so it does not compile.
 *
 * @example A variable named signal, and where an AbortSignal goes
 * ```ts
 * import type { VariablesObject } from "@seed/service-client";
 *
 * const variables: VariablesObject = { signal: "wifi" };
 * const options = { signal: AbortSignal.abort() };
 * // @ts-expect-error: an AbortSignal is a request option, not a variable
 * const mistaken: VariablesObject = options;
 * console.log(variables.signal, typeof mistaken); // "wifi" "object"
 * ```
 */
export type SignalVariable =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly unknown[]
  | { readonly aborted?: never; readonly [key: string]: unknown };

/**
 * The phantom type field that `TypedDocumentNode`, codegen's `TypedDocumentString` and gql.tada's
 * documents all declare. It never exists at run time; it carries the result and variables types.
 *
 * @example A typed string document of your own
 * ```ts
 * import type { DocumentTypeDecoration } from "@seed/service-client";
 *
 * class TypedQuery<TData, TVariables> extends String implements DocumentTypeDecoration<TData, TVariables> {
 *   declare readonly __apiType?: (variables: TVariables) => TData;
 * }
 * const PostQuery = new TypedQuery<{ post: { title: string } }, { id: string }>("query Post($id: ID!) { post(id: $id) { title } }");
 * console.log(PostQuery.toString().startsWith("query")); // true
 * ```
 */
export interface DocumentTypeDecoration<TData, TVariables> {
  /** Phantom: the operation as a function from its variables to its result. */
  readonly __apiType?: (variables: TVariables) => TData;
}

/**
 * A parsed GraphQL document, as `graphql`'s `parse`, `graphql-tag`, codegen and gql.tada produce
 * it. Declared structurally, so the package's types need no `graphql` install.
 *
 * @example A document node as codegen emits it (no `loc`)
 * ```ts
 * import type { DocumentNode } from "@seed/service-client";
 *
 * const HelloQuery: DocumentNode = {
 *   kind: "Document",
 *   definitions: [{ kind: "OperationDefinition" }],
 * };
 * console.log(HelloQuery.definitions.length); // 1
 * ```
 */
export interface DocumentNode {
  /** Always `"Document"`. */
  readonly kind: "Document";
  /** The operations and fragments. */
  readonly definitions: ReadonlyArray<{ readonly kind: string }>;
  /** Where the document was parsed from, when the parser kept it. Not read: the client prints `definitions`. */
  readonly loc?: { readonly source: { readonly body: string } } | undefined;
}

/**
 * A document the client can send: a GraphQL string, a `DocumentNode`, or a typed document
 * (`TypedDocumentNode`, codegen's `TypedDocumentString`, gql.tada's documents) from which the
 * result and variables types are inferred.
 *
 * A string constant annotated `Document<TData, TVariables>` is narrowed to `string` by TypeScript and
 * loses both types: give the types at the call (`request<TData, TVariables>(…)`), or keep them on the
 * string with `as`, as below.
 *
 * @example A string typed by hand, the types kept by an assertion
 * ```ts
 * import type { DocumentTypeDecoration } from "@seed/service-client";
 *
 * type Hello = { hello: string };
 * const HelloQuery = "query { hello }" as string & DocumentTypeDecoration<Hello, Record<string, never>>;
 * console.log(HelloQuery); // "query { hello }"
 * ```
 */
export type Document<TData = unknown, TVariables = Variables> =
  | string
  | DocumentTypeDecoration<TData, TVariables>
  | (DocumentNode & { readonly __apiType?: never });

/** The text and operation name sent for a document. */
export interface PreparedDocument {
  /** The query text. */
  readonly query: string;
  /** The operation name taken from the document, when it holds exactly one named operation. */
  readonly operationName?: string | undefined;
}

/** A parsed document node, loosely: what the printer and the name lookup need. */
interface DocumentLike {
  readonly kind: "Document";
  readonly definitions: ReadonlyArray<{ readonly kind: string; readonly name?: { readonly value: string } }>;
}

const prepared = new WeakMap<object, PreparedDocument>();

/**
 * The text (and, for nodes, the operation name) to send for `document`.
 *
 * @param document What the caller passed.
 * @returns The prepared document, or a promise of it when a node must be printed.
 * @throws {TypeError} When `document` is not a non-empty string, `String` or document node.
 */
export function prepareDocument(document: unknown): PreparedDocument | Promise<PreparedDocument> {
  const node = document as DocumentLike;
  // A string is sent as it is; a node, printed once and remembered. A blank text, given or printed,
  // is refused as a document that is neither is.
  const checked = (query: string | undefined) =>
    query?.trim() ? query : fail("document", "a GraphQL string or document node", query ?? document);
  if (typeof document == "string" || document instanceof String) return { query: checked(document + "") };
  if (node?.kind != "Document" || !Array.isArray(node.definitions)) checked(undefined);
  return prepared.get(node) ??
    import("./print.ts").then(({ print }) => {
      const operations = node.definitions.filter((definition) => definition?.kind == "OperationDefinition");
      const result = {
        query: checked(print(node as never)),
        operationName: operations[1] ? undefined : operations[0]?.name?.value,
      };
      prepared.set(node, result);
      return result;
    }, chunkLoadFailed);
}
