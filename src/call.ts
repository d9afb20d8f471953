/**
 * One call of `ServiceClient`, from its checked arguments to its result: the request body and
 * headers, the combined signal, the attempts with their retries and waits, auth read per attempt and
 * SigV4 signed last, the clock-skew re-sign, and the response read into a result. `client.ts` holds
 * the public class; this module holds the work of a call.
 *
 * One race per call: the call's promise settles with its attempts, or rejects as soon as its signal
 * aborts (timeout, caller's signal), whatever the attempts are waiting on (a getter, fetch, the body,
 * `shouldRetry`, a lazy load). The attempts check the signal before each `fetch`, so a call that has
 * ended never sends.
 *
 * @module
 */

import { checkRegion, readAuth } from "./auth.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { type PreparedDocument, prepareDocument } from "./document.ts";
import {
  chunkLoadFailed,
  ServiceAbortError,
  ServiceAuthError,
  ServiceError,
  ServiceGraphQLError,
  ServiceNetworkError,
  ServiceResponseError,
} from "./errors.ts";
import { type ClientConfig, requestConfig } from "./options.ts";
import { discard, type GraphQLResult, readText, resultOf } from "./response.ts";
import { isRetryable, type RetryPolicy } from "./retry.ts";
import { fail, invalid, invalidDescribed, isObject, kindOf } from "./validate.ts";

/** The iam module, once an iam client has loaded it. */
let iam: typeof import("./iam.ts") | undefined;
/** The waits between attempts, once a call has had an attempt to retry. */
let backoff: typeof import("./backoff.ts") | undefined;

/**
 * A client's checked options, with its base headers (`content-type` and the client's, merged once)
 * and what it learns: one flat object, so that a call reads `state.url`, not `state.config.url`.
 */
export interface ClientState extends ClientConfig {
  /** The client's retry policy: one attempt without a `retry` option. */
  readonly retry: RetryPolicy;
  /** `content-type` and the client's headers. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The endpoint's origin and a slash: a response from anywhere else, by a fetch that does not say
   * whether it redirected, followed a redirect.
   */
  readonly origin: string;
  /** Server clock minus ours, learnt from a signature rejected for time (iam only: set by `iam.ts`). */
  clockOffsetMs?: number;
}

/** The state of a new client. */
export function clientState(config: ClientConfig): ClientState {
  return {
    // Without a `retry` option, one attempt only (its delays are never read).
    retry: { attempts: 1 },
    ...config,
    headers: { "content-type": "application/json; charset=UTF-8", ...config.headers },
    origin: new URL(config.url).origin + "/",
  } as ClientState;
}

/** The calls in flight on each caller signal. */
const watched = new WeakMap<AbortSignal, Set<() => void>>();

/** The one listener of every watched signal (`this`, as an event's listener is called): tells its calls. */
function tell(this: AbortSignal): void {
  watched.get(this)?.forEach((call) => call());
}

/**
 * Calls `onAbort` with a {@link ServiceAbortError} when `signal` aborts (at once when it has), and
 * returns what stops watching (nothing when it has). However many calls are in flight on one signal,
 * it holds one listener (Node warns past 10), removed when the last call ends: the caller's signal may
 * live as long as the app. The error's reason is `"timeout"` for a signal of `AbortSignal.timeout()`.
 */
export function watch(signal: AbortSignal, onAbort: (error: ServiceAbortError) => void): (() => void) | void {
  const abort = () =>
    onAbort(
      new ServiceAbortError(signal.reason?.name == "TimeoutError" ? "timeout" : "abort", signal.reason),
    );
  if (signal.aborted) return abort();
  let calls = watched.get(signal);
  if (!calls) {
    watched.set(signal, calls = new Set());
    signal.addEventListener("abort", tell);
  }
  calls.add(abort);
  return () => {
    calls.delete(abort);
    if (!calls.size) {
      watched.delete(signal);
      signal.removeEventListener("abort", tell);
    }
  };
}

/**
 * One call of the client whose state is `state`: checks it (a call without a state, by a client's
 * method taken off its object, is refused), then makes its attempts. With `unwrap`, resolves the
 * result's `data`, and rejects a result with errors (`ServiceGraphQLError`). `load` gives the document
 * to send, from `document`: by default `document` checked and, for a node, printed by a module loaded
 * the first time (inside the call, so that its timeout and signal cover the load, and a failed load is
 * retried as a network failure).
 *
 * The call ends early when the client's or the request's signal aborts (a signal made by
 * `AbortSignal.timeout()` counts as a timeout) or at its timeout (the earlier of the client's and
 * the request's): it rejects at once with a `ServiceAbortError`, whatever its attempt waits on, and
 * the attempt's `fetch` is aborted.
 */
export async function send(
  state: ClientState | undefined,
  document: unknown,
  variables: unknown,
  options: unknown,
  unwrap: boolean,
  load: (document: unknown) => PreparedDocument | Promise<PreparedDocument> = prepareDocument,
): Promise<unknown> {
  // A client's method called without its client (`const { request } = client`) has no state.
  if (!state) throw invalid("Called without its client: a method taken off it, or a Proxy of it");
  const request = requestConfig(options);
  const variablesText = checkVariables(variables);
  // The request's options over the client's (it sets only the ones it has); timeouts, signals and
  // headers are taken from both. With no `maxResponseBytes`, at most 16 MiB of a body is read.
  const { url, fetch, retry: policy, maxResponseBytes = 16_777_216, operationName } = {
    ...state,
    ...request,
  } as ClientState;
  const timeoutMs = Math.min(state.timeoutMs ?? Infinity, request.timeoutMs ?? Infinity);
  // On performance.now(), as the timer: a step of the wall clock changes nothing.
  const deadline = performance.now() + timeoutMs;
  let ended: ServiceAbortError | undefined,
    endCall: ((reason: ServiceAbortError) => void) | undefined,
    attemptController: AbortController | undefined,
    wait: ReturnType<typeof setTimeout> | undefined,
    body: string | undefined,
    sent: Record<string, string> | undefined;
  const end = (reason: ServiceAbortError) => {
    ended ??= reason;
    endCall?.(ended);
    attemptController?.abort(ended);
  };
  const throwIfEnded = () => {
    if (ended) throw ended;
  };
  // The client's signal and the request's, each watched when given.
  const stops = [state.signal, request.signal].map((caller) => caller && watch(caller, end));
  const timer = timeoutMs < Infinity ? setTimeout(() => end(new ServiceAbortError("timeout")), timeoutMs) : 0;

  const attempts = async (): Promise<GraphQLResult> => {
    for (let attempt = 1, resent = false, final = false;; attempt++) {
      try {
        throwIfEnded();
        body ??= serialize(await load(document), variablesText, operationName);
        // A call that ended while its document loaded calls no getter.
        throwIfEnded();
        // Auth is read now (a value at once, a getter awaited) and signed last; every attempt hands
        // fetch a headers object of its own, which a wrapping fetch may change freely.
        sent = await authorizeFor(state, url, body, { ...state.headers, ...request.headers });
        // A call that ended while its auth was read never sends. The attempt has a signal of its own:
        // Node's fetch leaves its listener on the signal it is given.
        throwIfEnded();
        attemptController = state.signal || request.signal || timeoutMs < Infinity
          ? new AbortController()
          : undefined;
        let response;
        try {
          response = await fetch(url, {
            method: "POST",
            headers: sent,
            body,
            redirect: "manual",
            ...attemptController && { signal: attemptController.signal },
          });
        } catch (cause) {
          // A call that ended aborted this fetch with the call's own error: that error stands, untouched.
          throwIfEnded();
          throw new ServiceNetworkError(cause);
        }
        // A fetch option that resolves no response (a wrapper that forgot to return it) is a bad
        // option, not a network failure: not retried, since the request may have been sent.
        if (!isObject(response)) fail("fetch result", "a Response", response);
        const { ok, status, redirected } = response;
        // A fetch that followed a redirect has sent the request, credentials included, elsewhere: what
        // came back is not the endpoint's answer. `redirected: false` is believed, so a `fetch` option
        // that sends to another host on purpose (a proxy, a mock) is answered (and the URL, which Deno
        // builds anew at each read, about 2 µs, is not read). With `redirected` set, the URL tells:
        // Bun 1.0 sets it on every response of a manual fetch, where the URL is the endpoint's. A
        // fetch with no `redirected` at all (an XMLHttpRequest polyfill, which follows) is judged by
        // its URL's origin.
        const at = redirected !== false && response.url;
        const elsewhere = at ? redirected ? at != url : !(at + "/").startsWith(state.origin) : redirected;
        let text: string | undefined, cause: unknown;
        if (elsewhere) discard(response.body);
        else {
          try {
            text = await readText(response, maxResponseBytes);
          } catch (err) {
            cause = err;
          }
        }
        // Once the status has arrived, the server may have run the operation: a 2xx body that cannot
        // be read is not a network failure (retried by default) but a response error. A non-2xx
        // status stands without its body. A redirect, or a body too large, is final: another attempt
        // would send the credentials there again, or read as much again.
        if (elsewhere || ok && text == null) {
          final = !cause;
          throw new ServiceResponseError(
            status,
            elsewhere
              ? "it comes from a redirect"
              : cause
              ? "the body could not be read"
              : "the body is larger than maxResponseBytes",
            undefined,
            cause,
          );
        }
        return resultOf(response, text);
      } catch (err) {
        throwIfEnded();
        // Only a failure of the exchange is retried: not an auth error, a bad argument or a
        // shouldRetry's error.
        if (!(err instanceof ServiceError) || err instanceof ServiceAuthError) throw err;
        // A signature refused for time never ran: it is signed again at the server's time, once.
        if (!resent && iam?.learnClockSkew(state, err)) {
          resent = true;
          attempt--;
          continue;
        }
        const retryable = isRetryable(err);
        if (final || attempt >= policy.attempts || !retryable && !policy.shouldRetry) throw err;
        backoff ??= await import("./backoff.ts").catch(() => {
          throw err;
        });
        // A call that ended while the chunk loaded asks no shouldRetry.
        throwIfEnded();
        const delay = await backoff.nextDelay(policy, err, attempt, retryable);
        // An abort while shouldRetry decided ends the call as an abort.
        throwIfEnded();
        // No wait that would end past the call's deadline: the error now is more useful than a timeout later.
        if (delay == null || performance.now() + delay >= deadline) throw err;
        // An end of the call clears this timer (below): nothing is left to wake this loop.
        await new Promise((resolve) => wait = setTimeout(resolve, delay));
      }
    }
  };

  try {
    // One race per call: whatever the attempts wait on (a getter, fetch, the body, shouldRetry, a lazy
    // load, a wait), the call ends when it is ended.
    const result = await new Promise<GraphQLResult>((resolve, reject) => {
      endCall = reject;
      attempts().then(resolve, reject);
    });
    if (unwrap && result.errors) {
      // What was sent stays out of the server's words: the variables as the body holds them (the
      // caller's object may have changed since, even into one that cannot be serialized), the key or
      // token and the signature (the last attempt's headers).
      throw new ServiceGraphQLError(result.errors, result.data, result.extensions, [
        JSON.parse(body!).variables,
        sent,
      ]);
    }
    return unwrap ? result.data : result;
  } finally {
    clearTimeout(timer);
    clearTimeout(wait);
    stops.forEach((stop) => stop?.());
  }
}

/**
 * `headers` plus the auth of `state`'s client for a POST of `body` to `url`: the header of a header
 * mode, or the SigV4 headers of iam. Auth is read now: getters and providers are called again.
 */
export async function authorizeFor(
  state: ClientState,
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const { auth } = state;
  const secret = await readAuth(auth, headers);
  if (auth.type != "iam") return secret as Record<string, string>;
  iam ??= await import("./iam.ts").catch(chunkLoadFailed);
  const problem = iam.signingProblem();
  if (problem) throw new ServiceAuthError("credentials", problem);
  return iam.signAttempt(state, url, checkRegion(auth.region), body, headers, secret as AwsCredentials);
}

/**
 * Refuses variables that JSON would not send as the object they are, and returns their JSON text
 * (none for none), written now: what the caller changes in its object afterwards is not sent.
 */
export function checkVariables(variables: unknown): string | undefined {
  if (variables == null) return;
  // Variables may hold anything sensitive: even a number is described by its type only.
  if (!isObject(variables)) fail("variables", "an object", variables, false, true);
  // A Map, a Date, a boxed string or an object with a toJSON would not be sent as the object it is.
  const kind = kindOf(variables);
  if (kind != "Object" || typeof variables.toJSON == "function") {
    throw invalidDescribed(
      "variables",
      "a plain object",
      kind == "Object" ? "an object with a toJSON method" : "a " + kind,
    );
  }
  try {
    return JSON.stringify(variables);
  } catch (cause) {
    throw invalid("Invalid variables: not serializable to JSON (a BigInt, or a cycle?)", false, cause);
  }
}

/** The request body: the document's text and operation name, then the variables' JSON text as it was written. */
export function serialize(document: PreparedDocument, variables?: string, operationName?: string): string {
  const named = JSON.stringify({
    query: document.query,
    operationName: operationName ?? document.operationName,
  });
  return named.slice(0, -1) + (variables ? ',"variables":' + variables : "") + "}";
}
