// Tests for src/errors.ts on its own: the guard that recognizes the errors of any loaded copy of the
// package, and the messages each class writes. (What the client throws, and when, is tested against the
// local endpoint in the other files; that no secret reaches an error is in secrets_test.ts.)
// node:test and node:assert/strict only, so this file also runs on Node and Bun.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import {
  ErrorCode,
  isServiceError,
  RETRY_DEFAULTS,
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

    it("returns false, never throws, for an error whose name is not a string", () => {
      for (const name of [undefined, null, 42, Symbol("x"), {}]) {
        const error = Object.assign(new Error("x"), { code: "HTTP_ERROR" });
        (error as { name: unknown }).name = name;
        assert.equal(isServiceError(error), false, String(name));
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
        "Request aborted",
      );
      assert.equal(new ServiceAbortError("abort", "logout").cause, "logout");
    });
  });

  describe("exported constants", () => {
    it("ErrorCode and RETRY_DEFAULTS are frozen: no module can change what every client does", () => {
      for (const constant of [ErrorCode, RETRY_DEFAULTS]) {
        assert.ok(Object.isFrozen(constant));
        assert.throws(() => {
          "use strict";
          (constant as Record<string, unknown>).attempts = 100;
        }, TypeError);
      }
      assert.equal(RETRY_DEFAULTS.attempts, 3);
    });
  });

  describe("the runtime's error behind a network error", () => {
    // Deno words the URL in its message; Bun keeps it in a field of its own, and prints a cause's
    // message and fields with the error. Each shape is checked with what prints it.
    // Made at run time: Bun prints the source lines around where an error was made.
    const secret = ["secret", "in", "query"].join("-");
    const url = `http://127.0.0.1:9/graphql?token=${secret}`;
    const deno = new TypeError(`error sending request for url (${url})`);
    const bun = Object.assign(new TypeError("Unable to connect. Is the computer able to access the url?"), {
      path: url,
      errno: 0,
    });
    const { Deno, Bun } = globalThis as unknown as { [name: string]: { inspect(value: unknown): string } };
    const CASES: ReadonlyArray<[string, Error, ReadonlyArray<(err: unknown) => string | undefined>]> = [
      ["as Deno words it", deno, [
        inspect,
        (err) => inspect({ err }),
        JSON.stringify,
        (err) => Deno?.inspect(err),
      ]],
      ["as Bun keeps it", bun, [
        inspect,
        (err) => inspect({ err }),
        JSON.stringify,
        (err) => JSON.stringify((err as Error).cause),
        (err) => Bun?.inspect(err),
      ]],
    ];
    for (const [name, runtime, renderings] of CASES) {
      it(`${name}: reachable as cause, with its fields, and printed by no inspect (a fetch error can quote the URL)`, () => {
        const err = new ServiceNetworkError(runtime);
        assert.equal(err.cause, runtime);
        assert.equal((err.cause as { path?: string }).path, (runtime as { path?: string }).path);
        for (const render of renderings) {
          const text = render(err);
          if (text !== undefined) assert.ok(!text.includes(secret), text);
        }
      });
    }
  });
});
