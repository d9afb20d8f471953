/**
 * Sentinel secrets shared by the local endpoint, the tests and the demo. Each is distinctive, so a
 * test can search any error output for it.
 *
 * @module
 */

import type { AuthOptions } from "../mod.ts";

/** The API key the endpoint accepts. */
export const API_KEY = "da2-sentinelapikey0000000000";
/** The user pool identity token the endpoint accepts. */
export const USERPOOL_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VycG9vbC1zZW50aW5lbCJ9.c2lnLXVzZXJwb29s";
/** The OIDC access token the endpoint accepts. */
export const OIDC_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvaWRjLXNlbnRpbmVsIn0.c2lnLW9pZGM";
/** The lambda authorizer token the endpoint accepts. */
export const LAMBDA_TOKEN = "lambda-sentinel-token-0000";
/** The region the endpoint's iam mode expects. */
export const REGION = "us-east-1";
/** IAM credentials the endpoint accepts (AWS's documentation example key). */
export const CREDENTIALS = {
  accessKeyId: "AKIDSENTINELEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSENTINELKEY",
  sessionToken: "IQoJb3JpZ2luX2VjSENTINELSESSIONTOKEN",
} as const;
/** One configuration per auth mode, each accepted by the local endpoint, named by its mode. */
export const AUTH_MODES: ReadonlyArray<readonly [string, AuthOptions]> = [
  ["apiKey", { type: "apiKey", apiKey: API_KEY }],
  ["userpool", { type: "userpool", jwtToken: USERPOOL_JWT }],
  ["oidc", { type: "oidc", jwtToken: OIDC_JWT }],
  ["lambda", { type: "lambda", authorizationToken: LAMBDA_TOKEN }],
  ["iam", { type: "iam", region: REGION, credentials: CREDENTIALS }],
];

/** Every secret above, for leak checks. */
export const SECRETS: readonly string[] = [
  API_KEY,
  USERPOOL_JWT,
  OIDC_JWT,
  LAMBDA_TOKEN,
  CREDENTIALS.secretAccessKey,
  CREDENTIALS.sessionToken,
];

/** What a test reads off a caught error: any error of the client, loosely typed for assertions. */
// deno-lint-ignore no-explicit-any
export type Caught = Error & Record<string, any>;

// Taken at load: a test may replace the globals to watch the client's own timers.
const { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;

/**
 * How long a call under test may take before the test fails instead of waiting forever. The
 * timeouts and aborts the tests expect to fire do so within about a second (a few tests add a 5 s
 * timeout only as a fallback that must not be reached), so this fires only when the client ignores
 * its timeout or abort.
 */
export const SETTLE_WITHIN_MS = 5_000;

/** The failure of a call that outlived `SETTLE_WITHIN_MS`. */
export class Unsettled extends Error {
  constructor(withinMs: number) {
    super(`The call did not settle within ${withinMs} ms: a timeout or abort was ignored`);
  }
}

/**
 * Settles as `promise` does, or fails once `withinMs` have passed: a client that ignores its
 * timeout or abort fails the test that relies on it, rather than leaving the run hanging.
 */
export function settlesWithin<T>(promise: Promise<T>, withinMs = SETTLE_WITHIN_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = startTimer(() => reject(new Unsettled(withinMs)), withinMs);
  });
  return Promise.race([promise, bound]).finally(() => stopTimer(timer));
}

/**
 * Resolves the reason `promise` rejects with, typed for assertions; fails if it resolves, or if it
 * has not settled within `SETTLE_WITHIN_MS`.
 */
export async function rejection(promise: Promise<unknown>): Promise<Caught> {
  try {
    await settlesWithin(promise);
  } catch (reason) {
    if (reason instanceof Unsettled) throw reason;
    return reason as Caught;
  }
  throw new Error("Expected the promise to reject, but it resolved");
}
