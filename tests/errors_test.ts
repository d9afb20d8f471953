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

    it("ServiceGraphQLError shows the server's first 200 characters, each value sent cut out", () => {
      const message = "Invalid value sent-value-01 " + "x".repeat(300);
      const err = new ServiceGraphQLError([{ message }], null, undefined, { v: "sent-value-01" });
      assert.equal(err.message, ("Invalid value … " + "x".repeat(300)).slice(0, 200));
    });

    it("ServiceGraphQLError never shows part of a value that ran past the text it searched", () => {
      // Searched: enough to leave 200 characters and the longest value's length (60 here) once every
      // value in them is cut out. Four long values cut out bring the secret after them to the front:
      // it must be in the text searched whole, never cut off after its first characters.
      const long = "L".repeat(60), secret = "secret-token-0123456789";
      const message = long.repeat(4) + "y".repeat(10) + secret + "z".repeat(400);
      const err = new ServiceGraphQLError([{ message }], null, undefined, { long, secret });
      assert.equal(err.message, ("…".repeat(4) + "y".repeat(10) + "…" + "z".repeat(400)).slice(0, 200));
    });

    it("ServiceGraphQLError searches for the values in the text it may show, not in a long message", () => {
      // A megabyte of message and five thousand values (ten thousand with their escaped forms, of 12
      // characters): each is looked for in (200 + 12) × 12 characters, not in the whole message (which
      // took seconds, blocking the process).
      const variables = Object.fromEntries(
        Array.from({ length: 5_000 }, (_, index) => [`v${index}`, `value-${index}`.padEnd(12, "-")]),
      );
      const message = "value-".repeat(170_000);
      const { replaceAll } = String.prototype;
      let searched = 0;
      String.prototype.replaceAll = function (this: string, ...args: Parameters<typeof replaceAll>) {
        searched += this.length;
        return replaceAll.apply(this, args);
      } as typeof replaceAll;
      let err: ServiceGraphQLError;
      try {
        err = new ServiceGraphQLError([{ message }], null, undefined, variables);
      } finally {
        String.prototype.replaceAll = replaceAll;
      }
      assert.equal(err.message, message.slice(0, 200));
      assert.ok(searched <= 10_000 * 212 * 12, `${searched} characters searched`);
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
    // Deno words the URL in its message; Bun keeps it in a field of its own. The cause is the runtime's
    // error as it is, behind a getter that JSON and Node's and Deno's inspect leave out (Bun's console
    // and Deno's report of an uncaught error do print it).
    // Made at run time: Bun prints the source lines around where an error was made.
    const secret = ["secret", "in", "query"].join("-");
    const url = `http://127.0.0.1:9/graphql?token=${secret}`;
    const deno = new TypeError(`error sending request for url (${url})`);
    const bun = Object.assign(new TypeError("Unable to connect. Is the computer able to access the url?"), {
      path: url,
      errno: 0,
    });
    const { Deno } = globalThis as unknown as { [name: string]: { inspect(value: unknown): string } };
    const renderings = [
      inspect,
      (err: unknown) => inspect({ err }),
      JSON.stringify,
      (err: unknown) => Deno?.inspect(err),
    ];
    const CASES: ReadonlyArray<[string, Error]> = [["as Deno words it", deno], ["as Bun keeps it", bun]];
    for (const [name, runtime] of CASES) {
      it(`${name}: reachable as cause, with its fields, and left out of JSON and of Node's and Deno's inspect`, () => {
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
