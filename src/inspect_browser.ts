/**
 * The browser variant of `inspect.ts`, which the npm package loads under the `browser` and
 * `production` conditions together (a production build for browsers):
 * a browser's console never calls `Symbol.for("nodejs.util.inspect.custom")`, so there is no hook
 * to install, and its bytes stay out of browser bundles.
 *
 * @module
 */

/** Does nothing: browsers' consoles have no inspect hook (see `inspect.ts`). */
export function hideDataFromInspect(_prototype: Error): void {}
