/**
 * Argument checks shared by the client's constructor and its request methods. They throw
 * `TypeError` or `RangeError` carrying `code: "INVALID_ARGUMENT"`, with a message that says what is
 * wrong and what was given. Values that may be secret are described by their type only.
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

/**
 * The error for a field whose value is not what was expected: names the field and describes the
 * value (a `secret` by its type only).
 */
export function invalidValue(
  field: string,
  expected: string,
  value: unknown,
  range?: boolean,
  secret?: boolean,
): InvalidArgumentError {
  return invalidDescribed(field, expected, describe(value, secret), range);
}

/** The error of {@link invalidValue}, with the current value described by the caller. */
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
export function describe(value: unknown, secret?: boolean): string {
  const type = typeof value;
  return value == null || !secret && /^(number|boolean|bigint)$/.test(type)
    ? String(value)
    : Array.isArray(value)
    ? "an array"
    : type == "string" && !(value as string).trim()
    ? "an empty string"
    : type == "object"
    ? "an object"
    : "a " + type;
}

/** Whether `value` is a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value == "object" && value !== null && !Array.isArray(value);
}

/**
 * What kind of object `value` is, by its `Symbol.toStringTag` or built-in class: `Object` for a
 * literal, a class instance or a null-prototype object; `Map`, `Date`, `Headers`, … otherwise.
 */
export function kindOf(value: object): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}

/**
 * The names an older client used, and the option each became here: an unknown key or an auth type
 * found in this table is answered with its new name.
 */
export const OLD_NAMES: Readonly<Record<string, string>> = {
  // No prototype: a key such as `toString` is not an older client's name.
  __proto__: null as never,
  apiUrl: "url",
  mode: "type",
  API_KEY_MODE: "apiKey",
  API_KEY: "apiKey",
  AMAZON_COGNITO_USER_POOLS: "userpool",
  OPENID_CONNECT: "oidc",
  AWS_LAMBDA: "lambda",
  AWS_IAM: "iam",
};

/** What a message adds after the name that an older client used: where to read about the change. */
export const MIGRATION = " (a name of an older client: see the migration guide, docs/migration.md)";

/**
 * Throws unless `value` is a plain object, then for any key not in `known`: naming the closest
 * known key (a typo such as `timeout` for `timeoutMs`, or an older client's name), or else listing
 * the known keys. A key set to `undefined` counts as absent, as it does in the types. With
 * `typosOnly`, an unknown key is refused only when it resembles a known one.
 */
export function expectOptions(
  value: unknown,
  field: string,
  known: readonly string[],
  typosOnly?: boolean,
): asserts value is Record<string, unknown> {
  if (!isObject(value)) throw invalidValue(field, "an object", value);
  for (const key in value) {
    if (known.includes(key) || value[key] === undefined) continue;
    const old = OLD_NAMES[key];
    const hint = old ?? known.find((candidate) => resembles(key.toLowerCase(), candidate.toLowerCase()));
    if (hint || !typosOnly) {
      throw invalid(
        `Unknown option \`${key}\` in ${field}: ` +
          (hint
            ? `did you mean \`${hint}\`?` + (old ? MIGRATION : "")
            : "expected one of " + known.join(", ")),
      );
    }
  }
}

/**
 * Why a value cannot be a header value (RFC 9110 field-value: tab, space, visible ASCII, Latin-1),
 * or `undefined`. Fetch refuses some of these only when sending (a network error, then retried),
 * and Bun sends them.
 */
export function headerProblem(value: string): string | undefined {
  return /[^\t\x20-\x7e\x80-\xff]/.test(value)
    ? "a value that cannot be sent in a header (a control character, or non-Latin-1)"
    : undefined;
}

/** Throws unless `value` is a whole number in `[min, max]` (so never `NaN` or `Infinity`). */
export function expectInteger(value: unknown, field: string, min: number, max = MAX_TIMER_MS): number {
  if (typeof value != "number" || value !== value) throw invalidValue(field, "an integer", value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalidValue(field, `an integer from ${min} to ${max}`, value, true);
  }
  return value;
}

/** A typo of `known`: one is a prefix of the other, or `typed` is `known` with letters left out. */
function resembles(typed: string, known: string): boolean {
  if (known.startsWith(typed) || typed.startsWith(known)) return true;
  let matched = 0;
  for (const char of known) if (char === typed[matched]) matched++;
  return typed.length > 3 && typed[0] === known[0] && matched === typed.length;
}
