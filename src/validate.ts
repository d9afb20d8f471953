/**
 * The argument checks of the client, its requests and the realtime entry. They throw `TypeError`
 * (or `RangeError` for a number out of range) carrying `code: "INVALID_ARGUMENT"`, with one message
 * shape: what field, what was expected, what was given. A value that may be secret is described by
 * its type only.
 *
 * @module
 */

/**
 * A `TypeError` or `RangeError` thrown for a bad argument, with the stable code `INVALID_ARGUMENT`.
 *
 * @example A typo caught at construction
 * ```ts
 * import { type InvalidArgumentError, ServiceClient } from "@seed/service-client";
 *
 * try {
 *   new ServiceClient({
 *     url: "https://example.com/graphql",
 *     auth: { type: "apiKey", apiKey: "k" },
 *     // @ts-expect-error: `timeout` is not an option (it is `timeoutMs`)
 *     timeout: 5,
 *   });
 * } catch (err) {
 *   console.log((err as InvalidArgumentError).code, (err as Error).message);
 *   // "INVALID_ARGUMENT" "Unknown option `timeout` in options: did you mean `timeoutMs`?"
 * }
 * ```
 */
export type InvalidArgumentError = (TypeError | RangeError) & { readonly code: "INVALID_ARGUMENT" };

/** The longest delay a timer can hold in every runtime (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Builds a `TypeError` (or, with `range`, a `RangeError`) with the `INVALID_ARGUMENT` code. */
export function invalid(message: string, range?: boolean, cause?: unknown): InvalidArgumentError {
  const err = new (range ? RangeError : TypeError)(message, { cause }) as TypeError & { code: string };
  err.code = "INVALID_ARGUMENT";
  return err as InvalidArgumentError;
}

/** The error for a field that is not what was expected, the value described by the caller. */
export function invalidDescribed(
  field: string,
  expected: string,
  current: string,
  range?: boolean,
): InvalidArgumentError {
  return invalid(`Invalid ${field}: expected ${expected}, current value is ${current}`, range);
}

/**
 * Describes a value for a message: numbers and booleans as they are (unless `secret`: a key or a
 * token given as a number must not reach a log), everything else by type. A blank string is
 * described as empty: it is refused as an empty one is.
 */
export const describe = (value: unknown, secret?: boolean): string =>
  value == null || !secret && /^(number|boolean|bigint)$/.test(typeof value)
    ? value + ""
    : Array.isArray(value)
    ? "an array"
    : typeof value == "string" && !value.trim()
    ? "an empty string"
    : typeof value == "object"
    ? "an object"
    : "a " + typeof value;

/** Whether `value` is a plain object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value == "object" && value !== null && !Array.isArray(value);

/**
 * What kind of object `value` is, by its `Symbol.toStringTag` or built-in class: `Object` for a
 * literal, a class instance or a null-prototype object; `Map`, `Date`, `Headers`, … otherwise.
 */
export const kindOf = (value: object): string => Object.prototype.toString.call(value).slice(8, -1);

/** Text a header can carry (RFC 9110 field-value: tab, visible ASCII, space, Latin-1). */
export const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * What is wrong with a string a request will carry (a key, a token, a region), or `undefined`:
 * not a string, blank, or with a character outside `pattern`. Described by type only: it may be a
 * secret.
 */
export const badText = (value: unknown, pattern: RegExp = HEADER_TEXT): string | undefined =>
  typeof value != "string" || !value.trim()
    ? describe(value, true)
    : pattern.test(value)
    ? undefined
    : "a string with a character it cannot hold";

/**
 * The names an older client used, and the option each became here: an unknown key or an auth type
 * found in this table is answered with its new name, and a key with where it goes now, wherever it
 * was found (0.x had `apiUrl` inside `auth`).
 */
export const OLD_NAMES: Readonly<Record<string, string>> = {
  // No prototype: a key such as `toString` is not an older client's name.
  __proto__: null as never,
  apiUrl: "url` beside `auth",
  mode: "auth.type",
  API_KEY_MODE: "apiKey",
  API_KEY: "apiKey",
  AMAZON_COGNITO_USER_POOLS: "userpool",
  OPENID_CONNECT: "oidc",
  AWS_LAMBDA: "lambda",
  AWS_IAM: "iam",
};

/** What a message adds after a name that an older client used: where to read about the change. */
export const RENAMED = " (renamed: see docs/migration.md)";

/**
 * Throws unless `value` is a plain object, then for any key not in `known`: naming the known key it
 * resembles (whatever the case, one a prefix of the other: `timeout` for `timeoutMs`), or an older
 * client's name, or else listing the known keys. A key set to `undefined` counts as absent, as it
 * does in the types. With `loose`, an unknown key is refused only when it resembles a known one.
 */
export function expectOptions(
  value: unknown,
  field: string,
  known: readonly string[],
  loose?: boolean,
): asserts value is Record<string, unknown> {
  if (!isObject(value)) fail(field, "an object", value);
  for (const key in value) {
    if (known.includes(key) || value[key] === undefined) continue;
    const old = OLD_NAMES[key];
    const typed = key.toLowerCase();
    const hint = old ??
      known.find((name) => (name = name.toLowerCase()).startsWith(typed) || typed.startsWith(name));
    if (hint || !loose) {
      throw invalid(
        `Unknown option \`${key}\` in ${field}: ` +
          (hint ? `did you mean \`${hint}\`?` + (old ? RENAMED : "") : "expected one of " + known.join(", ")),
      );
    }
  }
}

/** Checks one option: returns the value to keep, or throws naming `field`. */
export type Check = (value: unknown, field: string) => unknown;

/**
 * Throws the error for a field that is not what was expected, {@link describe}ing the value (a
 * `secret` by its type only): a statement, or an expression in a check.
 */
export function fail(
  field: string,
  expected: string,
  value: unknown,
  range?: boolean,
  secret?: boolean,
): never {
  throw invalidDescribed(field, expected, describe(value, secret), range);
}

/**
 * Returns `value` if it is a function, or throws naming `field`; when `value` stands for the global
 * function `global` (`fetch`, `WebSocket`), which this runtime lacks, the error says so.
 */
export const expectFunction = (value: unknown, field: string, global?: string): unknown =>
  typeof value == "function" ? value : fail(
    field,
    "a function" + (global && value === undefined ? ` (this runtime has no global ${global})` : ""),
    value,
  );

/** A check of a whole number from `min` to `max` (the longest timer by default). */
export const integer = (min: number, max = MAX_TIMER_MS): Check => (value, field) =>
  typeof value == "number" && value >= min && value <= max && value % 1 == 0
    ? value
    : fail(field, `an integer from ${min} to ${max}`, value, typeof value == "number");

/**
 * The one checker of an options object: throws unless `options` is an object of the keys of
 * `checks` only (see {@link expectOptions}), then returns the checked value of each key it sets,
 * each named `prefix` + key. The first `required` keys are checked even when absent.
 *
 * @throws {TypeError | RangeError} Naming the field and its current value.
 */
export function checkOptions(
  options: unknown,
  field: string,
  checks: Readonly<Record<string, Check>>,
  prefix: string,
  required = 0,
): Record<string, unknown> {
  expectOptions(options, field, Object.keys(checks));
  const result: Record<string, unknown> = {};
  Object.entries(checks).forEach(([key, check], index) => {
    if (options[key] !== undefined || index < required) result[key] = check(options[key], prefix + key);
  });
  return result;
}
