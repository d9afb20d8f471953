/**
 * The five auth modes: their option types, their checks at construction, and the value each adds
 * to a request. Every key, token and credential may be a value or a sync/async function; a function
 * is called once per attempt, so a rotated key or refreshed token takes effect on the next attempt.
 *
 * Tokens are sent as they are: no `Bearer ` prefix (the service rejects it for user pools and
 * treats it as OIDC for lambda). `iam` signing lives in `sigv4.ts`, loaded with `import()` on first
 * use so other modes never load it.
 *
 * @module
 */

import type { AwsCredentials } from "./sigv4.ts";
import { ServiceAuthError } from "./errors.ts";
import { describe, expectObject, invalid, rejectUnknownKeys } from "./validate.ts";

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
  readonly jwtToken?: never;
  /** Not part of this mode. */
  readonly authorizationToken?: never;
  /** Not part of this mode. */
  readonly region?: never;
  /** Not part of this mode. */
  readonly credentials?: never;
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
  readonly apiKey?: never;
  /** Not part of this mode. */
  readonly authorizationToken?: never;
  /** Not part of this mode. */
  readonly region?: never;
  /** Not part of this mode. */
  readonly credentials?: never;
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
  readonly apiKey?: never;
  /** Not part of this mode. */
  readonly authorizationToken?: never;
  /** Not part of this mode. */
  readonly region?: never;
  /** Not part of this mode. */
  readonly credentials?: never;
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
  readonly apiKey?: never;
  /** Not part of this mode. */
  readonly jwtToken?: never;
  /** Not part of this mode. */
  readonly region?: never;
  /** Not part of this mode. */
  readonly credentials?: never;
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
  /** The region of the endpoint, such as `us-east-1`. Never guessed from the host name. */
  readonly region: string;
  /** The credentials, or a sync or async provider returning fresh ones. */
  readonly credentials: Getter<AwsCredentials>;
  /** Not part of this mode. */
  readonly apiKey?: never;
  /** Not part of this mode. */
  readonly jwtToken?: never;
  /** Not part of this mode. */
  readonly authorizationToken?: never;
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
  iam: ["credentials", ""],
} as const;

/**
 * Checks an auth configuration at construction, for JavaScript callers too. Messages describe
 * values by type only: a secret never appears.
 *
 * @throws {TypeError} For a non-object, an unknown `type`, a missing, empty or mistyped field, or
 * a field of another mode.
 */
export function checkAuth(auth: unknown): asserts auth is AuthOptions {
  expectObject(auth, "auth");
  const type = auth.type;
  if (typeof type !== "string" || !Object.hasOwn(FIELDS, type)) {
    const shown = typeof type === "string" ? `"${type.slice(0, 40)}"` : describe(type);
    throw invalid(
      `Invalid auth.type: expected one of ${Object.keys(FIELDS).join(", ")}; current value is ${shown}`,
    );
  }
  const field = FIELDS[type as keyof typeof FIELDS][0];
  const known = type === "iam" ? ["type", "region", "credentials"] : ["type", field];
  rejectUnknownKeys(auth, known, `auth for type "${type}"`);
  const value = auth[field];
  if (type === "iam") {
    if (typeof auth.region !== "string" || auth.region === "") {
      throw invalid(
        `Invalid auth.region: expected a non-empty string, current value is ${describe(auth.region)}`,
      );
    }
    if (typeof value === "object" && value !== null) credentialsOf(value, "throw");
    else if (typeof value !== "function") throw missing(field, "an object or a function", value);
  } else if (typeof value !== "function" && (typeof value !== "string" || value === "")) {
    throw missing(field, "a non-empty string or a function", value);
  }
}

function missing(field: string, expected: string, value: unknown): TypeError {
  return invalid(`Invalid auth.${field}: expected ${expected}, current value is ${describe(value)}`);
}

/**
 * The header name and value this mode adds, read now (getters are called).
 *
 * @throws {ServiceAuthError} When a getter throws or returns an unusable value.
 */
export async function authHeader(auth: Exclude<AuthOptions, IamAuth>): Promise<[string, string]> {
  const [field, header] = FIELDS[auth.type];
  const source = (auth as unknown as Record<string, Getter<unknown>>)[field];
  const value = await read(source, field);
  if (typeof value !== "string" || value === "") {
    throw new ServiceAuthError(field, `returned ${describe(value)}, expected a non-empty string`);
  }
  return [header, headerSafe(value, field)];
}

/**
 * The credentials for this attempt, read now (a provider is called).
 *
 * @throws {ServiceAuthError} When a provider throws or returns unusable credentials.
 */
export async function readCredentials(auth: IamAuth): Promise<AwsCredentials> {
  return credentialsOf(await read(auth.credentials, "credentials"), "auth");
}

async function read(source: unknown, field: string): Promise<unknown> {
  if (typeof source !== "function") return source;
  try {
    return await source();
  } catch (cause) {
    throw new ServiceAuthError(field, "getter threw", cause);
  }
}

/** Validates credentials; `mode` picks a construction-time TypeError or a per-attempt ServiceAuthError. */
function credentialsOf(value: unknown, mode: "throw" | "auth"): AwsCredentials {
  const fail = (problem: string) =>
    mode === "throw"
      ? invalid(`Invalid auth.credentials: ${problem}`)
      : new ServiceAuthError("credentials", problem);
  if (typeof value !== "object" || value === null) throw fail(`expected an object, got ${describe(value)}`);
  if (mode === "throw") {
    rejectUnknownKeys(value, ["accessKeyId", "secretAccessKey", "sessionToken"], "auth.credentials");
  }
  const { accessKeyId, secretAccessKey, sessionToken } = value as Record<string, unknown>;
  for (const [name, field] of [["accessKeyId", accessKeyId], ["secretAccessKey", secretAccessKey]] as const) {
    if (typeof field !== "string" || field === "") {
      throw fail(`${name} must be a non-empty string, current value is ${describe(field)}`);
    }
  }
  if (sessionToken !== undefined && typeof sessionToken !== "string") {
    throw fail(`sessionToken must be a string when given, current value is ${describe(sessionToken)}`);
  }
  if (mode === "auth") {
    headerSafe(accessKeyId as string, "credentials.accessKeyId");
    if (sessionToken) headerSafe(sessionToken, "credentials.sessionToken");
  }
  return value as AwsCredentials;
}

/**
 * Rejects a value that is not a valid header value (RFC 9110 field-value: tab, space, visible
 * ASCII, Latin-1): a control character (CR, LF, NUL, DEL, ESC, …) or one beyond Latin-1. Fetch
 * refuses some of these only when sending (a network error, then retried) and Bun sends them.
 */
function headerSafe(value: string, field: string): string {
  if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) {
    throw new ServiceAuthError(
      field,
      "returned a value that cannot be sent in a header (a control character, or non-Latin-1)",
    );
  }
  return value;
}
