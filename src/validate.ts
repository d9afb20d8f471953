/**
 * Argument checks shared by the client's constructor and its request methods. They throw
 * `TypeError` or `RangeError` carrying `code: "INVALID_ARGUMENT"`, with a message that says what is
 * wrong and what was given. Values that may be secret are described by their type only.
 *
 * @module
 */

import { ErrorCode } from "./errors.ts";

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
 *   // "INVALID_ARGUMENT" "Unknown option `timeout` in the client options: did you mean `timeoutMs`?"
 * }
 * ```
 */
export type InvalidArgumentError = (TypeError | RangeError) & { readonly code: "INVALID_ARGUMENT" };

/** Builds a `TypeError` (or `RangeError`) with the `INVALID_ARGUMENT` code. */
export function invalid(message: string, range = false): InvalidArgumentError {
  const err = range ? new RangeError(message) : new TypeError(message);
  return Object.assign(err, { code: ErrorCode.InvalidArgument as "INVALID_ARGUMENT" });
}

/** Describes a value for a message: numbers and booleans as they are, everything else by type. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "string":
      return value === "" ? "an empty string" : "a string";
    case "undefined":
      return "undefined";
    case "function":
      return "a function";
    default:
      return typeof value === "object" ? "an object" : `a ${typeof value}`;
  }
}

/** Whether `value` is a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws unless `value` is a plain object. */
export function expectObject(value: unknown, field: string): asserts value is Record<string, unknown> {
  if (!isObject(value)) {
    throw invalid(`Invalid ${field}: expected an object, current value is ${describe(value)}`);
  }
}

/**
 * Throws for a key of `value` that is not in `known`, naming the closest known key, so that a typo
 * such as `timeout` for `timeoutMs` is loud instead of silently ignored.
 */
export function rejectUnknownKeys(value: object, known: readonly string[], where: string): void {
  for (const key in value) {
    if (known.includes(key)) continue;
    const hint = closest(key, known);
    throw invalid(`Unknown option \`${key}\` in ${where}${hint ? `: did you mean \`${hint}\`?` : ""}`);
  }
}

/** The longest delay a timer can hold in every runtime (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Throws unless `value` is a whole number in `[min, max]` (so never `NaN` or `Infinity`). */
export function expectInteger(
  value: unknown,
  field: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw invalid(`Invalid ${field}: expected an integer, current value is ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    const bound = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw invalid(`Invalid ${field}: expected an integer ${bound}, current value is ${value}`, true);
  }
  return value;
}

function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const lower = key.toLowerCase();
  for (const candidate of known) {
    const c = candidate.toLowerCase();
    const score = c.startsWith(lower) || lower.startsWith(c) || isAbbreviation(lower, c)
      ? 1
      : distance(lower, c);
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return bestScore <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Whether `short` is `long` with letters left out, from the same first letter (`secretKey`, `secretAccessKey`). */
function isAbbreviation(short: string, long: string): boolean {
  if (short.length < 4 || short[0] !== long[0]) return false;
  let i = 0;
  for (const char of long) if (char === short[i]) i++;
  return i === short.length;
}

/** Levenshtein distance, small strings only. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
