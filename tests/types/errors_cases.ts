/**
 * Type tests: the error classes. `instanceof` narrows to each class and its
 * properties; `code` is the union of the stable codes, so a comparison with a code that does not
 * exist does not compile and a `switch` over it can be exhaustive.
 *
 * Nothing here runs: `deno task check` compiles it, and tests/types_test.ts checks that each
 * `@ts-expect-error` fails with the error code it names.
 *
 * @module
 */

import {
  type AbortReason,
  ErrorCode,
  type GraphQLFormattedError,
  isServiceError,
  type RetryOptions,
  ServiceAbortError,
  ServiceAuthError,
  ServiceError,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "../../mod.ts";
import { assertType, type IsExact } from "./_assert.ts";

type Codes =
  | "GRAPHQL_ERROR"
  | "HTTP_ERROR"
  | "ABORTED"
  | "NETWORK_ERROR"
  | "BAD_RESPONSE"
  | "AUTH_ERROR"
  | "INVALID_ARGUMENT";

/** The codes are a closed union of string literals, and `ErrorCode` names each. */
export function codes(): void {
  assertType<IsExact<ErrorCode, Codes>>();
  assertType<IsExact<typeof ErrorCode.Aborted, "ABORTED">>();
  assertType<IsExact<typeof ErrorCode.Http, "HTTP_ERROR">>();
  assertType<IsExact<ServiceError["code"], ErrorCode>>();
  // @ts-expect-error TS2540 'Aborted': the codes are constants
  ErrorCode.Aborted = "CANCELLED";
}

/** `instanceof` narrows an unknown error to each class, with its properties typed. */
export function narrowsByInstanceof(err: unknown): void {
  if (err instanceof ServiceGraphQLError) {
    assertType<IsExact<typeof err.errors, readonly GraphQLFormattedError[]>>();
    assertType<IsExact<typeof err.errors[number]["message"], string>>();
    assertType<IsExact<typeof err.data, unknown>>();
  } else if (err instanceof ServiceHttpError) {
    assertType<IsExact<typeof err.status, number>>();
    assertType<IsExact<typeof err.headers, Headers>>();
    assertType<IsExact<typeof err.errors, readonly GraphQLFormattedError[]>>();
  } else if (err instanceof ServiceAbortError) {
    assertType<IsExact<typeof err.reason, AbortReason>>();
    assertType<IsExact<AbortReason, "timeout" | "abort">>();
  } else if (err instanceof ServiceResponseError) {
    assertType<IsExact<typeof err.status, number>>();
    assertType<IsExact<typeof err.body, unknown>>();
  } else if (err instanceof ServiceNetworkError || err instanceof ServiceAuthError) {
    assertType<IsExact<typeof err.cause, unknown>>();
  } else if (err instanceof ServiceError) {
    assertType<IsExact<typeof err, ServiceError>>();
  }
}

/** `instanceof` narrowing, used wrongly: each property lives on its own class. */
export function instanceofMistakes(err: unknown): void {
  if (err instanceof ServiceGraphQLError) {
    // @ts-expect-error TS2339 'status': a GraphQL error is not an HTTP error
    void err.status;
  }
  if (err instanceof ServiceHttpError) {
    // @ts-expect-error TS2339 'reason': an HTTP error has no abort reason
    void err.reason;
  }
  if (err instanceof ServiceAbortError) {
    // @ts-expect-error TS2367 '"cancelled"': the reasons are "timeout" and "abort"
    void (err.reason === "cancelled");
  }
}

/** `code` on the base class: the closed union, so a `switch` over it is exhaustive. */
export function branchesByCode(err: unknown): string {
  if (!(err instanceof ServiceError)) return "not ours";
  switch (err.code) {
    case ErrorCode.GraphQL:
    case ErrorCode.Http:
    case ErrorCode.Network:
    case ErrorCode.BadResponse:
    case ErrorCode.Auth:
    case ErrorCode.InvalidArgument:
      return err.code;
    case "ABORTED":
      assertType<IsExact<typeof err.code, "ABORTED">>();
      return err.message;
    default:
      assertType<IsExact<typeof err.code, never>>();
      return err.code;
  }
}

/** `isServiceError` recognizes the errors of any loaded copy of the package. */
export function recognizesOurErrors(err: unknown): string {
  return isServiceError(err) ? err.code : "not ours";
}

/** `code` used wrongly: a code that does not exist. */
export function codeMistakes(err: ServiceError): void {
  // @ts-expect-error TS2367 '"ABORT"': the code is "ABORTED"
  void (err.code === "ABORT");
  // @ts-expect-error TS2339 'Timeout': ErrorCode has no such name
  void ErrorCode.Timeout;
}

/** The fields of a GraphQL error are known: a misspelt one does not compile. */
export function graphQLErrorFields(err: ServiceGraphQLError): void {
  const [first] = err.errors;
  assertType<IsExact<typeof first, GraphQLFormattedError | undefined>>();
  console.log(
    first?.errorType,
    first?.errorInfo,
    first?.data,
    first?.path,
    first?.locations,
    first?.extensions,
  );
  // @ts-expect-error TS2551 'errortype': the field is `errorType`
  console.log(first?.errortype);
}

/** `cause` is typed on every error, whatever the project's `lib` (tests/consumers compiles with es2020). */
export function causes(err: ServiceError): void {
  assertType<IsExact<typeof err.cause, unknown>>();
}

/**
 * `shouldRetry` sees the errors of the further cases (network errors are retried without asking it),
 * and their code narrows them.
 */
export function shouldRetrySees(): RetryOptions {
  return {
    shouldRetry: (err, attempt) => {
      assertType<IsExact<typeof err, ServiceHttpError | ServiceResponseError>>();
      // @ts-expect-error TS2367 '"ABORTED"': an abort is never retried, so shouldRetry never sees one
      if (err.code === "ABORTED") return false;
      // @ts-expect-error TS2367 '"NETWORK_ERROR"': a default case, retried without asking shouldRetry
      if (err.code === "NETWORK_ERROR") return false;
      return attempt < 3 && err.code === "HTTP_ERROR" && err.status === 409;
    },
  };
}
