/**
 * Type tests: the auth union. Each mode accepts its own
 * fields as values or getters; a missing field, a field of another mode, a field of the wrong type
 * and a getter of the wrong shape do not compile.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import type {
  ApiKeyAuth,
  AuthOptions,
  AwsCredentials,
  Getter,
  IamAuth,
  LambdaAuth,
  OidcAuth,
  ServiceClientOptions,
  UserPoolAuth,
} from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

declare function auth(value: AuthOptions): void;
declare function options(value: ServiceClientOptions): void;
declare const key: string;
declare const credentials: AwsCredentials;
declare function refresh(): Promise<string>;
declare function provide(): Promise<AwsCredentials>;

/** Every mode, with its fields as values, sync getters and async getters. */
export function accepted(): void {
  auth({ type: "apiKey", apiKey: "da2-key" });
  auth({ type: "apiKey", apiKey: () => key });
  auth({ type: "apiKey", apiKey: async () => await refresh() });
  auth({ type: "userpool", jwtToken: "id-token" });
  auth({ type: "userpool", jwtToken: () => key });
  auth({ type: "userpool", jwtToken: () => Promise.resolve(key) });
  auth({ type: "oidc", jwtToken: "access-token" });
  auth({ type: "oidc", jwtToken: async () => await refresh() });
  auth({ type: "lambda", authorizationToken: "opaque" });
  auth({ type: "lambda", authorizationToken: () => key });
  auth({ type: "lambda", authorizationToken: async () => await refresh() });
  auth({ type: "iam", region: "us-east-1", credentials: { accessKeyId: "AKID", secretAccessKey: "secret" } });
  auth({
    type: "iam",
    region: "us-east-1",
    credentials: { accessKeyId: "A", secretAccessKey: "S", sessionToken: "T" },
  });
  auth({ type: "iam", region: "us-east-1", credentials: () => credentials });
  // The AWS SDK's credentials, written out: their extra fields are accepted (and not used).
  auth({
    type: "iam",
    region: "us-east-1",
    credentials: {
      accessKeyId: "A",
      secretAccessKey: "S",
      sessionToken: "T",
      expiration: new Date(),
      credentialScope: "us-east-1",
      accountId: "123456789012",
    },
  });
  auth({ type: "iam", region: "us-east-1", credentials: async () => await provide() });
  options({ url: "https://example.com/graphql", auth: { type: "apiKey", apiKey: key } });
  options({ url: new URL("https://example.com/graphql"), auth: { type: "oidc", jwtToken: () => key } });
}

/** The union is discriminated by `type`: each branch sees exactly its mode's interface. */
export function narrowsByType(value: AuthOptions): Getter<string> | Getter<AwsCredentials> {
  switch (value.type) {
    case "apiKey":
      assertType<IsExact<typeof value, ApiKeyAuth>>();
      return value.apiKey;
    case "userpool":
      assertType<IsExact<typeof value, UserPoolAuth>>();
      return value.jwtToken;
    case "oidc":
      assertType<IsExact<typeof value, OidcAuth>>();
      return value.jwtToken;
    case "lambda":
      assertType<IsExact<typeof value, LambdaAuth>>();
      return value.authorizationToken;
    case "iam":
      assertType<IsExact<typeof value, IamAuth>>();
      return value.credentials;
    default:
      assertType<IsExact<typeof value, never>>();
      return value;
  }
}

/** A mode without its required field. */
export function missingField(): void {
  // @ts-expect-error TS2345 'apiKey': apiKey mode without apiKey
  auth({ type: "apiKey" });
  // @ts-expect-error TS2345 'jwtToken': userpool mode without jwtToken
  auth({ type: "userpool" });
  // @ts-expect-error TS2345 'jwtToken': oidc mode without jwtToken
  auth({ type: "oidc" });
  // @ts-expect-error TS2345 'authorizationToken': lambda mode without authorizationToken
  auth({ type: "lambda" });
  // @ts-expect-error TS2345 'region': iam mode without region
  auth({ type: "iam", credentials });
  // @ts-expect-error TS2345 'credentials': iam mode without credentials
  auth({ type: "iam", region: "us-east-1" });
  // @ts-expect-error TS2345 'type': no type at all
  auth({ apiKey: "da2-key" });
  // @ts-expect-error TS2345 'auth': a client without auth
  options({ url: "https://example.com/graphql" });
}

/** A field of another mode, next to the mode's own field. */
export function fieldOfAnotherMode(): void {
  // @ts-expect-error TS2345 'jwtToken': jwtToken is not an apiKey field
  auth({ type: "apiKey", apiKey: key, jwtToken: key });
  // @ts-expect-error TS2345 'authorizationToken': authorizationToken is not an apiKey field
  auth({ type: "apiKey", apiKey: key, authorizationToken: key });
  // @ts-expect-error TS2345 'region': region is not an apiKey field
  auth({ type: "apiKey", apiKey: key, region: "us-east-1" });
  // @ts-expect-error TS2345 'credentials': credentials are not an apiKey field
  auth({ type: "apiKey", apiKey: key, credentials });
  // @ts-expect-error TS2345 'apiKey': apiKey is not an userpool field
  auth({ type: "userpool", jwtToken: key, apiKey: key });
  // @ts-expect-error TS2345 'authorizationToken': authorizationToken is not an userpool field
  auth({ type: "userpool", jwtToken: key, authorizationToken: key });
  // @ts-expect-error TS2345 'credentials': credentials are not an userpool field
  auth({ type: "userpool", jwtToken: key, credentials });
  // @ts-expect-error TS2345 'apiKey': apiKey is not an oidc field
  auth({ type: "oidc", jwtToken: key, apiKey: key });
  // @ts-expect-error TS2345 'region': region is not an oidc field
  auth({ type: "oidc", jwtToken: key, region: "us-east-1" });
  // @ts-expect-error TS2345 'jwtToken': jwtToken is not a lambda field
  auth({ type: "lambda", authorizationToken: key, jwtToken: key });
  // @ts-expect-error TS2345 'apiKey': apiKey is not a lambda field
  auth({ type: "lambda", authorizationToken: key, apiKey: key });
  // @ts-expect-error TS2345 'apiKey': apiKey is not an iam field
  auth({ type: "iam", region: "us-east-1", credentials, apiKey: key });
  // @ts-expect-error TS2345 'jwtToken': jwtToken is not an iam field
  auth({ type: "iam", region: "us-east-1", credentials, jwtToken: key });
  // @ts-expect-error TS2345 'authorizationToken': authorizationToken is not an iam field
  auth({ type: "iam", region: "us-east-1", credentials, authorizationToken: key });
  // @ts-expect-error TS2353 'token': a field of no mode
  auth({ type: "apiKey", apiKey: key, token: key });
}

/**
 * The same mistakes through a variable (no excess-property check): the `?: undefined` fields still
 * reject them.
 */
export function fieldOfAnotherModeThroughAVariable(): void {
  const userpoolWithKey = { type: "userpool" as const, jwtToken: key, apiKey: key };
  const apiKeyWithRegion = { type: "apiKey" as const, apiKey: key, region: "us-east-1" };
  const iamWithToken = { type: "iam" as const, region: "us-east-1", credentials, authorizationToken: key };
  // @ts-expect-error TS2345 'apiKey': apiKey is not a userpool field
  auth(userpoolWithKey);
  // @ts-expect-error TS2345 'region': region is not an apiKey field
  auth(apiKeyWithRegion);
  // @ts-expect-error TS2345 'authorizationToken': authorizationToken is not an iam field
  auth(iamWithToken);
}

/** Another mode's field given as `undefined` is left out, in the types as at run time. */
export function fieldOfAnotherModeUndefined(region?: string): void {
  auth({ type: "apiKey", apiKey: key, region: undefined });
  auth({ type: "userpool", jwtToken: key, apiKey: undefined, credentials: undefined });
  const config = { type: "apiKey" as const, apiKey: key, region };
  // @ts-expect-error TS2345 'region': a region that may be a string is another mode's field
  auth(config);
}

/** A field of the wrong type, or an unknown mode. */
export function wrongFieldType(): void {
  // @ts-expect-error TS2322: the API key is a string
  auth({ type: "apiKey", apiKey: 42 });
  // @ts-expect-error TS2322: the JWT is a string, not null
  auth({ type: "userpool", jwtToken: null });
  // @ts-expect-error TS2345 'jwtToken': the OIDC token is a string, not undefined
  auth({ type: "oidc", jwtToken: undefined });
  // @ts-expect-error TS2353 'token': the lambda token is a string, not an object
  auth({ type: "lambda", authorizationToken: { token: key } });
  // @ts-expect-error TS2322: the region is a string
  auth({ type: "iam", region: 1, credentials });
  // @ts-expect-error TS2322: credentials are an object, not a string
  auth({ type: "iam", region: "us-east-1", credentials: "AKID:secret" });
  // @ts-expect-error TS2322 'secretAccessKey': credentials without secretAccessKey
  auth({ type: "iam", region: "us-east-1", credentials: { accessKeyId: "AKID" } });
  // @ts-expect-error TS2322: the session token is a string
  auth({ type: "iam", region: "us-east-1", credentials: { ...credentials, sessionToken: 1 } });
  // @ts-expect-error TS2322 '"cognito"': an unknown mode
  auth({ type: "cognito", jwtToken: key });
  // @ts-expect-error TS2820 '"apikey"': mode names are case-sensitive
  auth({ type: "apikey", apiKey: key });
  // @ts-expect-error TS2322: the url is a string or URL
  options({ url: 443, auth: { type: "apiKey", apiKey: key } });
}

/** A getter of the wrong shape: not a string result, a required parameter, or a getter where none is allowed. */
export function wrongGetterShape(): void {
  // @ts-expect-error TS2322: an API key getter returns a string
  auth({ type: "apiKey", apiKey: () => 42 });
  // @ts-expect-error TS2322: an async JWT getter resolves a string
  auth({ type: "userpool", jwtToken: () => Promise.resolve({ token: key }) });
  // @ts-expect-error TS2322: a getter may resolve a string, but not undefined
  auth({ type: "oidc", jwtToken: () => Promise.resolve(key ? key : undefined) });
  // @ts-expect-error TS2322: getters take no argument
  auth({ type: "lambda", authorizationToken: (previous: string) => previous });
  // @ts-expect-error TS2322: a credentials provider returns complete credentials
  auth({ type: "iam", region: "us-east-1", credentials: () => Promise.resolve({ accessKeyId: "AKID" }) });
  // @ts-expect-error TS2322: a credentials provider returns an object, not a string
  auth({ type: "iam", region: "us-east-1", credentials: () => "AKID:secret" });
  // @ts-expect-error TS2322: the region is a plain string, never a getter
  auth({ type: "iam", region: () => "us-east-1", credentials });
}
