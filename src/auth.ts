/**
 * The five auth modes: their option types, their checks at construction, and the value each adds
 * to a request. Every key, token and credential may be a value or a sync/async function; a function
 * is called once per attempt, so a rotated key or refreshed token takes effect on the next attempt.
 *
 * Tokens are sent as they are: no `Bearer ` prefix (the service rejects it for user pools and
 * treats it as OIDC for lambda). `iam` signing lives in `iam.ts` (on `sigv4_signer.ts`), loaded with
 * `import()` on first use so other modes never load it.
 *
 * @module
 */

import type { AwsCredentials } from "./sigv4.ts";
import { ServiceAuthError } from "./errors.ts";
import {
  badText,
  describe,
  expectOptions,
  fail,
  invalidDescribed,
  isObject,
  OLD_NAMES,
  RENAMED,
} from "./validate.ts";

/**
 * A value, or a sync or async function returning it, read again on every attempt.
 *
 * @example Three ways to give a token
 * ```ts
 * import type { Getter } from "@seed/service-client";
 *
 * const fixed: Getter<string> = "token";
 * const sync: Getter<string> = () => "token";
 * const async: Getter<string> = () => Promise.resolve("token");
 * console.log(typeof fixed, typeof sync, typeof async);
 * ```
 */
export type Getter<T> = T | (() => T | Promise<T>);

/**
 * API key mode: sends `x-api-key`. For public or demo use; a key bundled into a client can be
 * extracted, and it carries no per-user identity. Rotate it by returning a new value from a getter.
 *
 * @example A key read on every attempt
 * ```ts
 * import type { ApiKeyAuth } from "@seed/service-client";
 *
 * let key = "da2-first";
 * const auth: ApiKeyAuth = { type: "apiKey", apiKey: () => key };
 * key = "da2-rotated";
 * console.log(auth.type); // "apiKey"
 * ```
 */
export interface ApiKeyAuth {
  /** Selects API key mode. */
  readonly type: "apiKey";
  /** The API key (`da2-…`), or a getter returning it. */
  readonly apiKey: Getter<string>;
  /** Not part of this mode. */
  readonly jwtToken?: undefined;
  /** Not part of this mode. */
  readonly authorizationToken?: undefined;
  /** Not part of this mode. */
  readonly region?: undefined;
  /** Not part of this mode. */
  readonly credentials?: undefined;
}

/**
 * User pool mode: sends the identity token (a JWT) in `Authorization`, without `Bearer `.
 *
 * @example A token refreshed by your auth library
 * ```ts
 * import type { UserPoolAuth } from "@seed/service-client";
 *
 * const session = { getIdToken: () => Promise.resolve("eyJ...") };
 * const auth: UserPoolAuth = { type: "userpool", jwtToken: () => session.getIdToken() };
 * console.log(auth.type); // "userpool"
 * ```
 */
export interface UserPoolAuth {
  /** Selects user pool mode. */
  readonly type: "userpool";
  /** The identity token, or a getter returning a fresh one. */
  readonly jwtToken: Getter<string>;
  /** Not part of this mode. */
  readonly apiKey?: undefined;
  /** Not part of this mode. */
  readonly authorizationToken?: undefined;
  /** Not part of this mode. */
  readonly region?: undefined;
  /** Not part of this mode. */
  readonly credentials?: undefined;
}

/**
 * OpenID Connect mode: sends the access token (a JWT) in `Authorization`, without `Bearer `.
 *
 * @example An access token
 * ```ts
 * import type { OidcAuth } from "@seed/service-client";
 *
 * const auth: OidcAuth = { type: "oidc", jwtToken: "eyJ..." };
 * console.log(auth.type); // "oidc"
 * ```
 */
export interface OidcAuth {
  /** Selects OIDC mode. */
  readonly type: "oidc";
  /** The access token, or a getter returning a fresh one. */
  readonly jwtToken: Getter<string>;
  /** Not part of this mode. */
  readonly apiKey?: undefined;
  /** Not part of this mode. */
  readonly authorizationToken?: undefined;
  /** Not part of this mode. */
  readonly region?: undefined;
  /** Not part of this mode. */
  readonly credentials?: undefined;
}

/**
 * Lambda authorizer mode: sends the opaque token in `Authorization`, without any prefix.
 *
 * @example An opaque token
 * ```ts
 * import type { LambdaAuth } from "@seed/service-client";
 *
 * const auth: LambdaAuth = { type: "lambda", authorizationToken: "custom-token" };
 * console.log(auth.type); // "lambda"
 * ```
 */
export interface LambdaAuth {
  /** Selects lambda authorizer mode. */
  readonly type: "lambda";
  /** The opaque token, or a getter returning it. */
  readonly authorizationToken: Getter<string>;
  /** Not part of this mode. */
  readonly apiKey?: undefined;
  /** Not part of this mode. */
  readonly jwtToken?: undefined;
  /** Not part of this mode. */
  readonly region?: undefined;
  /** Not part of this mode. */
  readonly credentials?: undefined;
}

/**
 * IAM mode: signs each attempt with AWS Signature Version 4 (service `appsync`, the given region).
 * `credentials` may be a provider (for STS or identity pools), called once per attempt.
 *
 * @example Credentials from a provider
 * ```ts
 * import type { IamAuth } from "@seed/service-client";
 *
 * const auth: IamAuth = {
 *   type: "iam",
 *   region: "us-east-1",
 *   credentials: () => Promise.resolve({ accessKeyId: "ASIA...", secretAccessKey: "...", sessionToken: "..." }),
 * };
 * console.log(auth.region); // "us-east-1"
 * ```
 */
export interface IamAuth {
  /** Selects IAM mode. */
  readonly type: "iam";
  /** The endpoint's region, such as `us-east-1` (letters, digits, `_`, `-`). Never guessed from the host. */
  readonly region: string;
  /** The credentials, or a sync or async provider returning fresh ones. */
  readonly credentials: Getter<AwsCredentials>;
  /** Not part of this mode. */
  readonly apiKey?: undefined;
  /** Not part of this mode. */
  readonly jwtToken?: undefined;
  /** Not part of this mode. */
  readonly authorizationToken?: undefined;
}

/**
 * The auth configuration: one of the five modes, selected by `type`.
 *
 * @example Pick a mode at run time
 * ```ts
 * import type { AuthOptions } from "@seed/service-client";
 *
 * function authFor(user: string | undefined): AuthOptions {
 *   return user ? { type: "userpool", jwtToken: user } : { type: "apiKey", apiKey: "da2-public" };
 * }
 * console.log(authFor(undefined).type); // "apiKey"
 * ```
 */
export type AuthOptions = ApiKeyAuth | UserPoolAuth | OidcAuth | LambdaAuth | IamAuth;

/** The field that holds each mode's secret, and the header it goes into (`iam` signs instead). */
const FIELDS = {
  apiKey: ["apiKey", "x-api-key"],
  userpool: ["jwtToken", "authorization"],
  oidc: ["jwtToken", "authorization"],
  lambda: ["authorizationToken", "authorization"],
  iam: ["credentials"],
} as const;

/**
 * The characters of a region and of an access key ID: both go into the Authorization header's
 * Credential parameter, the region into the credential scope too.
 */
const SCOPE_TEXT = /^[\w-]+$/;

/** `Object.prototype.__lookupGetter__`: a property's getter, its own or along the prototype chain. */
const lookupGetter: (this: object, key: string) => unknown =
  (Object.prototype as unknown as { __lookupGetter__: typeof lookupGetter }).__lookupGetter__;

/** The keys of credentials the signer reads. */
const CREDENTIAL_KEYS = ["accessKeyId", "secretAccessKey", "sessionToken"];

/**
 * The field of `auth`'s mode that holds its secret, and the header it goes into (none for iam), read
 * at construction and at every attempt (a `type` changed since is checked again).
 *
 * @throws {TypeError} With `code: "INVALID_ARGUMENT"` for an unknown `type`.
 */
function fieldsOf(auth: Record<string, unknown>): readonly [field: string, header?: string] {
  const { type } = auth;
  if (!Object.hasOwn(FIELDS, type as string)) {
    // An older client's name (`API_KEY`, or `mode: "API_KEY_MODE"`) gets the new one. Only such a
    // name or a short word (a misspelt mode) is quoted: a longer one may be a key in the wrong field.
    const old = OLD_NAMES[(type ?? auth.mode) as string];
    throw invalidDescribed(
      "auth.type",
      "one of " + Object.keys(FIELDS).join(", "),
      (typeof type == "string" && (old || /^\w{1,12}$/.test(type)) ? `"${type}"` : describe(type)) +
        (old ? `; write \`type: "${old}"\`` + RENAMED : ""),
    );
  }
  return FIELDS[type as keyof typeof FIELDS];
}

/**
 * Checks an auth configuration at construction, for JavaScript callers too. Messages describe
 * values by type only: a secret never appears (an unknown `type` is quoted only when it is a short
 * word, as a mode's name is, and not a key set in the wrong field). A key, token or credentials given
 * as a function or read through a property getter is not read here: it is read, and checked, at
 * every attempt.
 *
 * @returns `auth`, checked.
 * @throws {TypeError} For a non-object, an unknown `type`, a missing, blank or mistyped field, a
 * key, token or credentials a header cannot carry (a line break, say), or a field of another mode.
 */
export function checkAuth(auth: unknown): AuthOptions {
  if (!isObject(auth)) fail("auth", "an object", auth);
  const { type } = auth;
  const [field] = fieldsOf(auth);
  expectOptions(auth, "auth", type == "iam" ? ["type", "region", field] : ["type", field]);
  if (type == "iam") checkRegion(auth.region);
  // A value read through a property getter (its own or a class's `get`), as one given as a function,
  // is read at every attempt only. (`__lookupGetter__` looks along the prototype chain.)
  if (!lookupGetter.call(auth, field) && typeof auth[field] != "function") {
    const [key, bad] = secretProblem(field, auth[field]);
    if (bad) {
      throw invalidDescribed(
        "auth." + key,
        (key == "credentials" ? "an object" : "a non-empty string") + (key == field ? " or a function" : ""),
        bad,
      );
    }
  }
  return auth as unknown as AuthOptions;
}

/**
 * The iam region, checked: at construction, and again at every attempt (all of `auth` is read again),
 * since a `/`, a space or a comma makes a signature no server can check.
 *
 * @throws {TypeError} With `code: "INVALID_ARGUMENT"` for a region that is not a non-empty string of
 * letters, digits, `_` and `-`.
 */
export function checkRegion(region: unknown): string {
  const bad = badText(region, SCOPE_TEXT);
  if (bad) throw invalidDescribed("auth.region", "a region such as us-east-1", bad);
  return region as string;
}

/**
 * What is wrong with the secret held in `field` (`credentials` for iam), as the field that holds it
 * and the value's description, or `undefined`. Credentials may hold other fields (the AWS SDKs' carry
 * an expiration, say), but not one that looks like a misspelt key (`SessionToken`, as STS names it).
 */
function secretProblem(field: string, value: unknown): [field: string, bad?: string | undefined] {
  if (field != "credentials") return [field, badText(value)];
  if (!isObject(value)) return [field, describe(value, true)];
  expectOptions(value, "auth.credentials", CREDENTIAL_KEYS, true);
  for (const key of CREDENTIAL_KEYS) {
    // No session token, or an empty one (an unset environment variable), is none: long-term keys have none.
    const bad = (key != "sessionToken" || (value[key] ?? "") !== "") &&
      badText(value[key], key == "accessKeyId" ? SCOPE_TEXT : undefined);
    if (bad) return [field + "." + key, bad];
  }
  return [field];
}

/**
 * Reads the secret of `auth` for one attempt: `headers` with the header a header mode adds, or the
 * credentials of iam. A property getter or a getter function is called now; what it gives is checked.
 *
 * @throws {ServiceAuthError} (as a rejection) When a getter throws (or rejects) or gives an unusable
 * value.
 */
export async function readAuth(
  auth: AuthOptions,
  headers: Readonly<Record<string, string>>,
): Promise<Record<string, string> | AwsCredentials> {
  const [field, header] = fieldsOf(auth as unknown as Record<string, unknown>);
  let value: unknown, problem;
  try {
    value = (auth as unknown as Record<string, unknown>)[field];
    if (typeof value == "function") value = await value();
  } catch (cause) {
    throw new ServiceAuthError(field, "getter threw", cause);
  }
  try {
    problem = secretProblem(field, value);
  } catch (cause) {
    // A misspelt key (`SessionToken`), or a field whose own getter threw.
    throw new ServiceAuthError(
      field,
      (cause as { code?: string }).code ? "has a misspelt key" : "could not be read",
      cause,
    );
  }
  if (problem[1]) throw new ServiceAuthError(problem[0], "is " + problem[1]);
  // Trimmed, as fetch trims a header's value: the socket's JSON headers carry what HTTP sends.
  return header ? { ...headers, [header]: (value as string).trim() } : value as AwsCredentials;
}
