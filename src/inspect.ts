/**
 * The inspect hook of the errors, in its own file so that the npm build can leave it out of browser
 * bundles: `util.inspect` (Node, Bun, workerd), `Deno.inspect` and the consoles built on them
 * honour `Symbol.for("nodejs.util.inspect.custom")`, a browser's console does not. Under the
 * `browser` and `production` conditions together (a production build for browsers) the package
 * loads `inspect_browser.ts` instead, which exports the same name and does nothing. Everywhere else
 * the hook stays: Node, workers, edge bundles, and `browser` alone (Jest's jsdom environment sets it,
 * and prints through Node's `util.inspect`).
 *
 * @module
 */

/** Stand-ins made by the hook, formatted as they are. */
const standIns = new WeakSet<object>();

/**
 * Makes `util.inspect` and `Deno.inspect` print errors of `prototype` without the server's data.
 * They print an error's `errors` array and `cause` even when those are not enumerable, so each error
 * is given a stand-in instead: a real `Error` with the same prototype, message, stack, cause and
 * enumerable fields, and nothing else.
 *
 * @example
 * ```ts
 * import { hideDataFromInspect } from "./inspect.ts";
 *
 * class LeakyError extends Error {}
 * hideDataFromInspect(LeakyError.prototype);
 * const error = new LeakyError("refused");
 * Object.defineProperty(error, "errors", { value: ["the server's words"] });
 * console.log(Deno.inspect(error).includes("the server's words")); // false
 * ```
 */
export function hideDataFromInspect(prototype: Error): void {
  Object.defineProperty(prototype, Symbol.for("nodejs.util.inspect.custom"), {
    value: function inspectWithoutData(this: Error): Error {
      if (standIns.has(this)) return this;
      const standIn = new Error(this.message, "cause" in this ? { cause: this.cause } : undefined);
      Object.setPrototypeOf(standIn, Object.getPrototypeOf(this));
      Object.defineProperty(standIn, "stack", { value: this.stack, configurable: true, writable: true });
      standIns.add(Object.assign(standIn, this));
      return standIn;
    },
  });
}
