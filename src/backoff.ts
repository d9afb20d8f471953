/**
 * Whether a call retries, and how long it waits before its next attempt: the caller's `shouldRetry`
 * for the cases the default rule does not retry, then backoff with full jitter, or the server's
 * `Retry-After`. Internal: the client loads this module with `import()` when an attempt that its
 * policy may retry has failed, so that calls that never fail, or never retry, do not download it; it
 * imports no module of the client's entry (types only), so that a bundler keeps it one chunk. When it
 * cannot be loaded (the network is gone), the attempt's own error is thrown: no retry could succeed
 * then.
 *
 * @module
 */

import type { ServiceError, ServiceHttpError, ServiceResponseError } from "./errors.ts";
import type { RetryPolicy } from "./retry.ts";

/**
 * The wait before the attempt after `attempt`, or `undefined` for no retry: an error the default
 * rule retries (`retryable`) is retried; another only when the caller's `shouldRetry` says so.
 *
 * @throws {TypeError} (as a rejection) When `shouldRetry` throws, rejects or answers anything but a
 * boolean.
 */
export async function nextDelay(
  policy: RetryPolicy,
  err: ServiceError,
  attempt: number,
  retryable: boolean,
): Promise<number | undefined> {
  return retryable || await shouldRetry(policy, err as ServiceHttpError, attempt)
    ? retryDelay(policy, err, attempt)
    : undefined;
}

/**
 * The caller's `shouldRetry` asked about `err` (a Promise when it answers with one, or with any
 * thenable: Bluebird's, another realm's).
 *
 * @throws {TypeError} With `code: "INVALID_ARGUMENT"` when `shouldRetry` throws or rejects (its error
 * is the `cause`), or answers anything but a boolean (the cause is `err`): a truthy answer such as
 * "yes" is not taken for a yes, a mistake there is loud, not a silent no.
 */
export function shouldRetry(
  policy: RetryPolicy,
  err: ServiceHttpError | ServiceResponseError,
  attempt: number,
): boolean | Promise<boolean> {
  const refuse = (message: string, cause: unknown): never => {
    throw Object.assign(new TypeError(message, { cause }), { code: "INVALID_ARGUMENT" });
  };
  const threw = (cause: unknown) => refuse("retry.shouldRetry threw, so the request was not retried", cause);
  const decided = (answer: unknown) =>
    typeof answer == "boolean" ? answer : refuse(
      `Invalid answer from retry.shouldRetry: expected a boolean, got ${
        answer == null ? answer : typeof answer == "object" ? "an object" : "a " + typeof answer
      }`,
      err,
    );
  let answer: unknown;
  try {
    answer = policy.shouldRetry!(err, attempt);
  } catch (cause) {
    return threw(cause);
  }
  return typeof (answer as { then?: unknown } | null)?.then == "function"
    ? Promise.resolve(answer).then(decided, threw)
    : decided(answer);
}

/**
 * How long to wait before the attempt after `attempt`: the server's `Retry-After` on 429/503 when
 * it sent one (an HTTP date counted from the response's `Date`, or from now without one), else
 * full jitter over `baseDelayMs * 2^(attempt-1)`, capped at `maxDelayMs`. Returns `undefined` when
 * `Retry-After` asks for more than `maxDelayMs`: the caller then stops.
 */
export function retryDelay(
  policy: RetryPolicy,
  err: ServiceError,
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  const { code, status, headers } = err as ServiceHttpError;
  if (code == "HTTP_ERROR" && (status == 429 || status == 503)) {
    // A date is read against the server's clock (its `Date`), as the client's may be off by minutes.
    const asked = retryAfterMs(headers.get("retry-after"), Date.parse(headers.get("date")!) || Date.now());
    if (asked !== undefined) return asked <= policy.maxDelayMs ? asked : undefined;
  }
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
}

/**
 * Parses `Retry-After`: delay-seconds or an HTTP date.
 *
 * @param value The header value.
 * @param now The current time in ms.
 * @returns The delay in ms (0 for a date in the past), or `undefined` when absent or unparsable.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  // RFC 9110: whole seconds, or an HTTP date, which starts with the day's name and holds a time (its
  // three forms: "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6
  // 08:49:37 1994"). Date.parse alone would also read "1.5" or "in 5" as dates in 2001. Every HTTP date
  // is in GMT, but the third form does not say so, and Date.parse reads a date without a zone as local
  // time: " GMT" goes after its year.
  const date = /^\s*\d+\s*$/.test(value!)
    ? now + +value! * 1000
    : /^\s*[a-z]{3,9},? .*\d\d:\d\d:\d\d/i.test(value!)
    ? Date.parse(value!.replace(/\d{4}\s*$/, "$& GMT"))
    : NaN;
  return date === date ? Math.max(0, date - now) : undefined;
}
