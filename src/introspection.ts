/**
 * The standard introspection query, as `graphql`'s `getIntrospectionQuery()` builds it with its
 * default options (graphql 16), with insignificant whitespace removed: it sends the same tokens in
 * fewer bytes. `tests/introspection_test.ts` checks it token by token against `graphql`.
 *
 * Loaded with `import()` by `ServiceClient.introspect`, so it costs nothing to callers that never
 * introspect.
 *
 * @module
 */

/** The standard introspection query text (graphql 16's default), whitespace-minimized. */
export const INTROSPECTION_QUERY: string =
  "query IntrospectionQuery{__schema{queryType{name kind}mutationType{name kind}subscriptionType{name kind}" +
  "types{...FullType}directives{name description locations args{...InputValue}}}}" +
  "fragment FullType on __Type{kind name description fields(includeDeprecated:true){name description " +
  "args{...InputValue}type{...TypeRef}isDeprecated deprecationReason}inputFields{...InputValue}" +
  "interfaces{...TypeRef}enumValues(includeDeprecated:true){name description isDeprecated deprecationReason}" +
  "possibleTypes{...TypeRef}}fragment InputValue on __InputValue{name description type{...TypeRef}defaultValue}" +
  "fragment TypeRef on __Type{kind name ofType{name kind ofType{name kind ofType{name kind ofType{name kind " +
  "ofType{name kind ofType{name kind ofType{name kind ofType{name kind ofType{name kind}}}}}}}}}}";

/**
 * The query of the prepared document `ServiceClient.introspect` sends: this module itself, loaded
 * with `import()`, is that document (its `query`, and no `operationName`).
 */
export const query: string = INTROSPECTION_QUERY;
