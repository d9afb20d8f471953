/**
 * The retry policy: which failures are retried, how long to wait between attempts (exponential
 * backoff with full jitter), and the server's `Retry-After`.
 *
 * @module
 */

import {
  type ServiceError,
  ServiceHttpError,
  ServiceNetworkError,
  type ServiceResponseError,
} from "./errors.ts";
import { describe, expectInteger, expectOptions, invalid, invalidValue, MAX_TIMER_MS } from "./validate.ts";

/**
 * The retry policy. Without `retry`, a request makes one attempt. With it, missing fields take the
 * defaults in {@link RETRY_DEFAULTS}.
 *
 * @example Retry 409 too (network errors, 5xx and 429 are retried anyway), and a mutation never
 * ```ts
 * import { type RetryOptions, ServiceHttpError } from "@seed/service-client";
 *
 * const retry: RetryOptions = {
 *   attempts: 4,
 *   shouldRetry: (err) => err instanceof ServiceHttpError && err.status === 409,
 * };
 * // Per request: `client.mutate(doc, variables, { retry: forMutations })`.
 * const forMutations: RetryOptions = { attempts: 1 };
 * console.log(retry.attempts, forMutations.attempts); // 4 1
 * ```
 */
export interface RetryOptions {
  /** The most attempts in all, the first one included (an integer from 1 to 100). Default 3. */
  readonly attempts?: number | undefined;
  /**
   * The backoff's base delay in ms (0 to 2,147,483,647): after attempt n fails, a random wait up to
   * `baseDelayMs * 2^(n-1)`. Default 250.
   */
  readonly baseDelayMs?: number | undefined;
  /**
   * The longest wait between two attempts in ms, and the longest `Retry-After` honoured: at least
   * `baseDelayMs`, at most 2,147,483,647. Default 10,000. (In a browser, a cross-origin
   * `Retry-After` is visible only when the server exposes it through
   * `Access-Control-Expose-Headers`; otherwise the backoff applies.)
   */
  readonly maxDelayMs?: number | undefined;
  /**
   * Decides the further cases: whether a failed attempt that the default rule does not retry is
   * retried. The default cases (network errors, 5xx and 429, see {@link isRetryable}) are always
   * retried while attempts remain, and never reach it; to send a request once, give it
   * `retry: { attempts: 1 }`. It sees the other `ServiceHttpError`s (a 409, say) and
   * `ServiceResponseError`s (a 2xx that is not GraphQL); `attempt` is the number of the attempt
   * that failed, from 1. Aborts, auth errors, bad input and GraphQL errors are never retried. It
   * may answer with a Promise or another thenable (the call's timeout and signal still apply while
   * it decides). If it throws or rejects, the call rejects with a `TypeError`
   * (`code: "INVALID_ARGUMENT"`) whose `cause` is what it threw; if it answers anything but a
   * boolean, with one whose `cause` is the attempt's error.
   */
  readonly shouldRetry?:
    | ((err: ServiceHttpError | ServiceResponseError, attempt: number) => boolean | PromiseLike<boolean>)
    | undefined;
}

/** The errors a retry decision sees: the failures of an attempt that another attempt may fix. */
type RetryCandidate = ServiceNetworkError | ServiceHttpError | ServiceResponseError;

/** A retry policy with every field set. */
export interface RetryPolicy {
  /** The most attempts in all. */
  readonly attempts: number;
  /** The backoff's base delay in ms. */
  readonly baseDelayMs: number;
  /** The longest wait in ms. */
  readonly maxDelayMs: number;
  /** The caller's decision on the further cases, if any. */
  readonly shouldRetry: RetryOptions["shouldRetry"];
}

/**
 * The defaults for the fields of {@link RetryOptions} that a caller leaves out.
 *
 * @example Read the defaults
 * ```ts
 * import { RETRY_DEFAULTS } from "@seed/service-client";
 *
 * console.log(RETRY_DEFAULTS); // { attempts: 3, baseDelayMs: 250, maxDelayMs: 10000 }
 * ```
 */
export const RETRY_DEFAULTS: {
  readonly attempts: 3;
  readonly baseDelayMs: 250;
  readonly maxDelayMs: 10_000;
} = {
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
};

/** One attempt only: the policy without a `retry` option. */
export const NO_RETRY: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, shouldRetry: undefined };

/**
 * Checks retry options and fills in the defaults.
 *
 * @throws {TypeError | RangeError} For an unknown key, a number that is not a whole number in
 * range, `maxDelayMs < baseDelayMs`, or a `shouldRetry` that is not a function.
 */
export function retryPolicy(retry: unknown): RetryPolicy {
  if (retry === undefined) return NO_RETRY;
  expectOptions(retry, "retry", ["attempts", "baseDelayMs", "maxDelayMs", "shouldRetry"]);
  const policy = { ...RETRY_DEFAULTS } as Record<string, unknown>;
  for (const key in RETRY_DEFAULTS) {
    if (retry[key] !== undefined) {
      policy[key] = expectInteger(
        retry[key],
        `retry.${key}`,
        key === "attempts" ? 1 : 0,
        key === "attempts" ? 100 : MAX_TIMER_MS,
      );
    }
  }
  const { baseDelayMs, maxDelayMs } = policy as { baseDelayMs: number; maxDelayMs: number };
  if (maxDelayMs < baseDelayMs) {
    throw invalidValue("retry.maxDelayMs", `at least retry.baseDelayMs (${baseDelayMs})`, maxDelayMs, true);
  }
  const { shouldRetry } = retry;
  if (shouldRetry !== undefined && typeof shouldRetry !== "function") {
    throw invalidValue("retry.shouldRetry", "a function", shouldRetry);
  }
  return { ...policy, shouldRetry } as RetryPolicy;
}

/**
 * The default retry rule: network errors, HTTP 5xx and HTTP 429.
 *
 * @param err A failed attempt's error.
 * @returns Whether the default policy retries it.
 *
 * @example Which failures the default policy retries
 * ```ts
 * import { isRetryable, ServiceHttpError } from "@seed/service-client";
 *
 * console.log(isRetryable(new ServiceHttpError(503, "", new Headers()))); // true
 * console.log(isRetryable(new ServiceHttpError(400, "", new Headers()))); // false
 * ```
 */
export function isRetryable(err: unknown): boolean {
  return err instanceof ServiceNetworkError ||
    err instanceof ServiceHttpError && (err.status >= 500 || err.status === 429);
}

/**
 * Whether to retry after `attempt` failed with `err`, per the policy: the default rule, then the
 * caller's `shouldRetry` for the further cases (a Promise when it answers with one).
 *
 * @throws {TypeError} When `shouldRetry` throws or rejects (its error is the `cause`), or answers
 * anything but a boolean (the cause is `err`).
 */
export function shouldRetry(
  policy: RetryPolicy,
  err: RetryCandidate,
  attempt: number,
): boolean | Promise<boolean> {
  if (attempt >= policy.attempts) return false;
  if (isRetryable(err)) return true;
  if (!policy.shouldRetry) return false;
  const threw = (cause: unknown): never => {
    throw invalid("retry.shouldRetry threw, so the request was not retried", false, cause);
  };
  // A truthy answer such as "yes" is not taken for a yes: a mistake there is loud, not a silent no.
  const decided = (answer: unknown) => {
    if (typeof answer !== "boolean") {
      throw invalid(
        `Invalid answer from retry.shouldRetry: expected a boolean, current value is ${describe(answer)}`,
        false,
        err,
      );
    }
    return answer;
  };
  let answer: unknown;
  try {
    // Not a network error here: isRetryable took those.
    answer = policy.shouldRetry(err as ServiceHttpError | ServiceResponseError, attempt);
    // A Promise is awaited, and so is a thenable of another library or realm (Bluebird, an iframe's).
    if (typeof (answer as { then?: unknown } | null)?.then === "function") {
      return Promise.resolve(answer).then(decided, threw);
    }
  } catch (cause) {
    return threw(cause);
  }
  return decided(answer);
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
  if (err instanceof ServiceHttpError && (err.status === 429 || err.status === 503)) {
    // A date is read against the server's clock (its `Date`), as the client's may be off by minutes.
    const asked = retryAfterMs(
      err.headers.get("retry-after"),
      Date.parse(err.headers.get("date")!) || Date.now(),
    );
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
  if (!value) return undefined;
  // RFC 9110: whole seconds, or an HTTP date, which starts with the day's name and holds a time (its
  // three forms: "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6
  // 08:49:37 1994"). Date.parse alone would also read "1.5" or "in 5" as dates in 2001. Every HTTP date
  // is in GMT, but the third form does not say so, and Date.parse reads a date without a zone as local
  // time: " GMT" goes after its year.
  const date = /^\s*\d+\s*$/.test(value)
    ? now + +value * 1000
    : /^\s*[a-z]{3,9},? .*\d\d:\d\d:\d\d/i.test(value)
    ? Date.parse(value.replace(/\d{4}\s*$/, "$& GMT"))
    : NaN;
  return date === date ? Math.max(0, date - now) : undefined;
}
