// Tests for src/errors.ts on its own: the guard that recognizes the errors of any loaded copy of the
// package, and the messages each class writes. (What the client throws, and when, is tested against the
// local endpoint in the other files; that no secret reaches an error is in secrets_test.ts.)
// node:test and node:assert/strict only, so this file also runs on Node and Bun.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  isServiceError,
  ServiceAbortError,
  ServiceAuthError,
  ServiceError,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "../mod.ts";

/** An error as another copy of the package makes it (the CommonJS build next to the ESM one): not ours by class. */
function foreign(name: string, code: string): Error {
  const error = new Error("from another copy");
  error.name = name;
  return Object.assign(error, { code });
}

describe("errors", () => {
  describe("isServiceError", () => {
    it("recognizes an error of this copy of every class", () => {
      for (
        const error of [
          new ServiceGraphQLError([{ message: "m" }]),
          new ServiceHttpError(503, "Service Unavailable", new Headers()),
          new ServiceAbortError("timeout"),
          new ServiceNetworkError(new TypeError("fetch failed")),
          new ServiceResponseError(200, "body is not JSON", "<html>"),
          new ServiceAuthError("apiKey", "getter threw"),
        ]
      ) {
        assert.ok(error instanceof ServiceError);
        assert.equal(isServiceError(error), true, error.name);
      }
    });

    it("recognizes another copy's error of every class by its name and code", () => {
      const CLASSES: ReadonlyArray<[string, string]> = [
        ["ServiceGraphQLError", "GRAPHQL_ERROR"],
        ["ServiceHttpError", "HTTP_ERROR"],
        ["ServiceAbortError", "ABORTED"],
        ["ServiceNetworkError", "NETWORK_ERROR"],
        ["ServiceResponseError", "BAD_RESPONSE"],
        ["ServiceAuthError", "AUTH_ERROR"],
      ];
      for (const [name, code] of CLASSES) {
        const error = foreign(name, code);
        assert.ok(!(error instanceof ServiceError));
        assert.equal(isServiceError(error), true, name);
      }
    });

    it("does not take an error for ours on a code alone, on a near code, or when it is not an Error", () => {
      assert.equal(isServiceError(foreign("Error", "HTTP_ERROR")), false, "another library's HTTP_ERROR");
      assert.equal(isServiceError(foreign("ServiceHttpError", "MY_HTTP_ERROR")), false, "a code around ours");
      assert.equal(isServiceError(foreign("ServiceHttpError", "HTTP_ERRORS")), false, "a code around ours");
      assert.equal(
        isServiceError(foreign("ServiceError", "INVALID_ARGUMENT")),
        false,
        "bad input is a TypeError",
      );
      assert.equal(isServiceError({ name: "ServiceHttpError", code: "HTTP_ERROR" }), false, "a plain object");
      assert.equal(isServiceError(undefined), false);
    });
  });

  describe("names", () => {
    it("each class has its own name, as logs and stack traces print it", () => {
      const errors = [
        new ServiceGraphQLError([{ message: "x" }]),
        new ServiceHttpError(500, "", new Headers()),
        new ServiceAbortError("abort"),
        new ServiceNetworkError(new Error("x")),
        new ServiceResponseError(200, "x", undefined),
        new ServiceAuthError("apiKey", "x"),
      ];
      assert.deepEqual(errors.map((err) => err.name), [
        "ServiceGraphQLError",
        "ServiceHttpError",
        "ServiceAbortError",
        "ServiceNetworkError",
        "ServiceResponseError",
        "ServiceAuthError",
      ]);
      assert.equal(ServiceError.prototype.name, "ServiceError");
      assert.match(String(errors[2]!.stack), /^ServiceAbortError: /);
    });
  });

  describe("messages", () => {
    it("ServiceHttpError names the status only: the reason phrase is the server's text", () => {
      const err = new ServiceHttpError(503, "Service Unavailable", new Headers());
      assert.equal(err.message, "HTTP 503");
      assert.equal(err.statusText, "Service Unavailable");
      assert.equal(new ServiceHttpError(503, "", new Headers()).message, "HTTP 503");
    });

    it("ServiceAbortError says which of the timeout and the caller's signal ended the call", () => {
      assert.equal(new ServiceAbortError("timeout").message, "Request timed out");
      assert.equal(
        new ServiceAbortError("abort", "logout").message,
        "Request aborted by the caller's signal",
      );
      assert.equal(new ServiceAbortError("abort", "logout").cause, "logout");
    });
  });
});
