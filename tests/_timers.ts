/**
 * The client's own timers, told from the runtime's and the test's by where they were started: for the
 * tests that prove a call leaves none behind. Apart from `_fixtures.ts`, which the runtime checks
 * bundle: `import.meta.url` here is resolved at load.
 *
 * @module
 */

/**
 * The directories of the client's sources, to tell their timers from the runtime's and the test's:
 * `src/` beside the tests, and the npm build's `esm/src/` (its tests are compiled to `npm/tests/`).
 */
const SOURCES = ["../src/", "../esm/src/"].map((path) => new URL(path, import.meta.url));

/**
 * Wraps `setTimeout`/`clearTimeout` until `restore()` and counts the timers scheduled from the
 * client's sources that are still pending (neither cleared nor fired).
 */
export function trackClientTimers(): { pending(): number; restore(): void } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const pending = new Set<unknown>();
  const fromClient = (stack = "") =>
    SOURCES.some((dir) => stack.includes(dir.href) || stack.includes(decodeURIComponent(dir.pathname)));
  globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = realSet(() => {
      pending.delete(handle);
      handler(...args);
    }, ms);
    if (fromClient(new Error().stack)) pending.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  return {
    pending: () => pending.size,
    restore() {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}
