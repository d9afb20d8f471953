/**
 * One abort signal for a whole call: the caller's signals (client default and per request) and the
 * call's deadline combined. It bounds every attempt, the waits between attempts and the reading of
 * each body.
 *
 * We combine with one `AbortController` per call rather than `AbortSignal.any`: that is missing on
 * Safari before 17.4 and in edge-runtime, and on Node it keeps dependents of a long-lived signal
 * alive (nodejs/node#54614, #55351). A caller signal gets one listener however many calls are in
 * flight on it (Node warns past 10 listeners on one signal), removed when its last call ends. One
 * code path for every runtime, and nothing left behind.
 *
 * @module
 */

import { ServiceAbortError } from "./errors.ts";

/** The combined signal of one call. */
export interface CallSignal {
  /**
   * The signal to give to `fetch` and to waits; `undefined` when nothing can abort the call. Once
   * aborted, its reason is the call's `ServiceAbortError`.
   */
  readonly signal: AbortSignal | undefined;
  /**
   * The time (from `performance.now()`, which, as the timer, no clock step moves) at which the call
   * times out; `Infinity` without a timeout.
   */
  readonly deadline: number;
  /** Clears the timer and removes the listeners. Call exactly once, when the call settles. */
  done(): void;
}

const NEVER: CallSignal = { signal: undefined, deadline: Infinity, done() {} };

/** The calls in flight on each caller signal, and the one listener that tells them all. */
const watched = new WeakMap<AbortSignal, [calls: Set<() => void>, listener: () => void]>();

/** Calls `onAbort` when `signal` aborts; returns the function that stops watching. */
function watch(signal: AbortSignal, onAbort: () => void): () => void {
  let entry = watched.get(signal);
  if (!entry) {
    const calls = new Set<() => void>();
    const listener = () => {
      watched.delete(signal);
      for (const call of calls) call();
    };
    entry = [calls, listener];
    watched.set(signal, entry);
    signal.addEventListener("abort", listener, { once: true });
  }
  const [calls, listener] = entry;
  calls.add(onAbort);
  return () => {
    calls.delete(onAbort);
    if (calls.size === 0 && watched.get(signal) === entry) {
      watched.delete(signal);
      signal.removeEventListener("abort", listener);
    }
  };
}

/**
 * Combines caller signals and a timeout into one signal for a call.
 *
 * @param signals The caller's signals; `undefined` entries are skipped.
 * @param timeoutMs The call's timeout; `Infinity` (the default) for none.
 * @returns The combined signal, already aborted when a caller's signal was aborted beforehand.
 */
export function callSignal(
  signals: readonly (AbortSignal | undefined)[],
  timeoutMs: number = Infinity,
): CallSignal {
  const callers = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (callers.length === 0 && timeoutMs === Infinity) return NEVER;

  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const unwatch: Array<() => void> = [];
  const end = (reason: ServiceAbortError) => {
    if (controller.signal.aborted) return;
    cleanup();
    // The error is the signal's reason: a wait on the signal rejects with it (call.ts relies on that).
    controller.abort(reason);
  };
  const cleanup = () => {
    clearTimeout(timer);
    for (const stop of unwatch.splice(0)) stop();
  };

  // A caller's signal made by AbortSignal.timeout() ends the call as a timeout.
  const callerAbort = (signal: AbortSignal) =>
    end(
      new ServiceAbortError(
        (signal.reason as { name?: unknown } | null)?.name === "TimeoutError" ? "timeout" : "abort",
        signal.reason,
      ),
    );
  for (const signal of callers) {
    if (signal.aborted) {
      callerAbort(signal);
      break;
    }
    unwatch.push(watch(signal, () => callerAbort(signal)));
  }
  if (!controller.signal.aborted && timeoutMs < Infinity) {
    timer = setTimeout(() => end(new ServiceAbortError("timeout")), timeoutMs);
  }

  return {
    signal: controller.signal,
    deadline: performance.now() + timeoutMs,
    done: cleanup,
  };
}

/**
 * A signal of its own for one attempt, aborted with `signal`'s reason (the call's error) when
 * `signal` aborts, and the function that stops following it. Node's `fetch` leaves its listener on
 * the signal it is given until that signal is collected: one signal for all of a call's attempts
 * would gather one listener per attempt (Node warns past 100). Reusing the call's error as the reason,
 * rather than making one per attempt, also keeps what a hung getter's promise holds on to small.
 *
 * @param signal The call's signal, if anything can abort the call; not aborted yet (the caller
 * checks the call first).
 * @returns The attempt's signal (`undefined` with none) and the function that stops following.
 */
export function follow(signal: AbortSignal | undefined): [AbortSignal | undefined, () => void] {
  if (!signal) return [signal, () => {}];
  const controller = new AbortController();
  return [controller.signal, watch(signal, () => controller.abort(signal.reason))];
}

/**
 * Waits `ms`, or until `signal` aborts (then rejects with the signal's reason at once). The timer
 * and the listener are removed either way.
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
