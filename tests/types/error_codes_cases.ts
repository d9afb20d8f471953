/**
 * Type tests: narrowing by `code`: callers branch by `instanceof` or by `code`.
 * Each class has its own literal `code`, and `isServiceError` narrows to the union of the classes,
 * so comparing `code` narrows to one class with its properties, as `instanceof` does.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import {
  type AnyServiceError,
  type ErrorCode,
  isServiceError,
  ServiceAbortError,
  type ServiceAuthError,
  type ServiceGraphQLError,
  ServiceHttpError,
  type ServiceNetworkError,
  type ServiceResponseError,
} from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

/** Each class's `code` is its own literal. */
export function literalCodes(): void {
  assertType<IsExact<ServiceGraphQLError["code"], "GRAPHQL_ERROR">>();
  assertType<IsExact<ServiceHttpError["code"], "HTTP_ERROR">>();
  assertType<IsExact<ServiceAbortError["code"], "ABORTED">>();
  assertType<IsExact<ServiceNetworkError["code"], "NETWORK_ERROR">>();
  assertType<IsExact<ServiceResponseError["code"], "BAD_RESPONSE">>();
  assertType<IsExact<ServiceAuthError["code"], "AUTH_ERROR">>();
  assertType<IsExact<AnyServiceError["code"], Exclude<ErrorCode, "INVALID_ARGUMENT">>>();
}

/** `code` narrows a caught error to its class, as `instanceof` does. */
export function narrowsByCode(err: unknown): string | number {
  if (!isServiceError(err)) return "not ours";
  switch (err.code) {
    case "GRAPHQL_ERROR":
      assertType<IsExact<typeof err, ServiceGraphQLError>>();
      return err.errors.length;
    case "HTTP_ERROR":
      assertType<IsExact<typeof err, ServiceHttpError>>();
      return err.status;
    case "ABORTED":
      assertType<IsExact<typeof err, ServiceAbortError>>();
      return err.reason;
    case "NETWORK_ERROR":
    case "AUTH_ERROR":
      assertType<IsExact<typeof err, ServiceNetworkError | ServiceAuthError>>();
      return err.message;
    case "BAD_RESPONSE":
      assertType<IsExact<typeof err, ServiceResponseError>>();
      return err.status;
    default:
      assertType<IsExact<typeof err, never>>();
      return err;
  }
}

/** `instanceof` keeps the literal code. */
export function instanceofKeepsTheCode(err: unknown): void {
  if (err instanceof ServiceHttpError) assertType<IsExact<typeof err.code, "HTTP_ERROR">>();
  if (err instanceof ServiceAbortError) assertType<IsExact<typeof err.code, "ABORTED">>();
}

/** Narrowing by code, used wrongly. */
export function codeMistakes(err: AnyServiceError): void {
  if (err.code === "ABORTED") {
    // @ts-expect-error TS2339 'status': an aborted call has no HTTP status
    void err.status;
  }
  if (err.code === "HTTP_ERROR") {
    // @ts-expect-error TS2339 'reason': an HTTP error has no abort reason
    void err.reason;
  }
  // @ts-expect-error TS2367 '"INVALID_ARGUMENT"': argument errors are TypeError or RangeError, not ServiceErrors
  void (err.code === "INVALID_ARGUMENT");
}
