/**
 * The retry policy: which failures are retried, how long to wait between attempts (exponential
 * backoff with full jitter), and the server's `Retry-After`.
 *
 * @module
 */

import type { ServiceHttpError, ServiceResponseError } from "./errors.ts";
import { checkOptions, expectFunction, fail, integer } from "./validate.ts";

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
   * `baseDelayMs * 2^(n-1)`. Default 250, or `maxDelayMs` when that is given and shorter.
   */
  readonly baseDelayMs?: number | undefined;
  /**
   * The longest wait between two attempts in ms, and the longest `Retry-After` honoured: at least
   * `baseDelayMs`, at most 2,147,483,647. Default 10,000, or `baseDelayMs` when that is given and
   * longer. (In a browser, a cross-origin `Retry-After` is visible only when the server exposes it
   * through `Access-Control-Expose-Headers`; otherwise the backoff applies.)
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

/** A retry policy with every field set. */
export interface RetryPolicy {
  /** The most attempts in all. */
  readonly attempts: number;
  /** The backoff's base delay in ms. */
  readonly baseDelayMs: number;
  /** The longest wait in ms. */
  readonly maxDelayMs: number;
  /** The caller's decision on the further cases, if any. */
  readonly shouldRetry?: RetryOptions["shouldRetry"];
}

/**
 * The defaults that `retryPolicy` fills in: {@link RETRY_DEFAULTS}' values (the tests hold them equal),
 * private to this module, so that no other can change them. An app that never imports the frozen
 * public copy does not carry it.
 */
const DEFAULTS = { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * The defaults for the fields of {@link RetryOptions} that a caller leaves out. Frozen: a module
 * that assigns to it cannot change what every client retries (nor could it: clients read a private
 * copy).
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
} = /* @__PURE__ */ Object.freeze({ attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000 });

/**
 * Checks retry options and fills in the defaults. A delay given alone moves the other's default out of
 * its way: `{ maxDelayMs: 100 }` waits at most 100 ms (the base becomes 100 too), `{ baseDelayMs:
 * 20_000 }` may wait 20 s (so may the longest wait).
 *
 * @throws {TypeError | RangeError} For an unknown key, a number that is not a whole number in
 * range, `maxDelayMs < baseDelayMs` when both are given, or a `shouldRetry` that is not a function.
 */
export function retryPolicy(retry: unknown): RetryPolicy {
  const given = checkOptions(retry, "retry", {
    attempts: integer(1, 100),
    baseDelayMs: integer(0),
    maxDelayMs: integer(0),
    shouldRetry: expectFunction,
  }, "retry.") as Partial<RetryPolicy>;
  const policy = { ...DEFAULTS, shouldRetry: undefined, ...given };
  const { baseDelayMs, maxDelayMs } = policy;
  if (maxDelayMs < baseDelayMs) {
    if ("baseDelayMs" in given && "maxDelayMs" in given) {
      fail("retry.maxDelayMs", `at least retry.baseDelayMs (${baseDelayMs})`, maxDelayMs, true);
    }
    // The one given alone stands, and the other's default moves to it.
    policy.baseDelayMs = policy.maxDelayMs = given.baseDelayMs ?? maxDelayMs;
  }
  return policy;
}

/**
 * The default retry rule: network errors (no response was received), HTTP 5xx and HTTP 429. A
 * failure after the response's status arrived (a body cut short or not GraphQL) is a
 * `ServiceResponseError`, never retried by this rule: the status proves that the server received
 * the request, and it may have run a mutation. (A connection that breaks before the status may have
 * delivered the request too: a mutation that must not run twice takes `retry: { attempts: 1 }`.)
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
  // By code, as isServiceError tells them: an error of another copy of the package (the CommonJS one
  // beside the ESM one) is answered as one of this copy's.
  const { code, status } = err as { code?: string; status: number };
  return code == "NETWORK_ERROR" || code == "HTTP_ERROR" && (status > 499 || status == 429);
}
