/**
 * One call of `ServiceClient`, from its checked arguments to its result: the request body and
 * headers, the combined signal, the attempts with their retries and waits, auth read per attempt and
 * SigV4 signed last, the clock-skew re-sign, and the response read into a result. `client.ts` holds
 * the public class; this module holds the work of a call.
 *
 * @module
 */

import { authHeader, checkRegion, type IamAuth, readCredentials } from "./auth.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { type PreparedDocument, prepareDocument } from "./document.ts";
import {
  chunkLoadFailed,
  ServiceAuthError,
  ServiceGraphQLError,
  ServiceHttpError,
  ServiceNetworkError,
  ServiceResponseError,
} from "./errors.ts";
import { type ClientConfig, type FetchResponse, requestConfig } from "./options.ts";
import { type GraphQLResult, resultOf } from "./response.ts";
import { retryDelay, type RetryPolicy, shouldRetry } from "./retry.ts";
import { type CallSignal, callSignal, follow, sleep } from "./signal.ts";
import { invalid, invalidDescribed, invalidValue, isObject, kindOf } from "./validate.ts";

/** The iam module, once an iam client has loaded it. */
let iam: typeof import("./iam.ts") | undefined;
const CONTENT_TYPE = "application/json; charset=UTF-8";

/** A client's checked options, its base headers, and the server's clock offset it learnt (iam only). */
export interface ClientState {
  readonly config: ClientConfig;
  /** `content-type` and the client's headers, merged once: every attempt sends a copy of its own. */
  readonly headers: Readonly<Record<string, string>>;
  /** The last key or token found sendable (see `authHeader`). */
  sendable?: string;
  /** `headers` with the auth header's name (its value empty), made at the first attempt: what attempts copy. */
  withAuthSlot?: Readonly<Record<string, string>>;
  /** Server clock minus ours, learnt from a signature rejected for time. */
  clockOffsetMs: number;
}

/** The base headers of a client. */
export function clientState(config: ClientConfig): ClientState {
  return { config, headers: { "content-type": CONTENT_TYPE, ...config.headers }, clockOffsetMs: 0 };
}

/**
 * One call: checks and prepares it, then attempts it. Synchronous up to the first attempt (bad input
 * throws here; the public methods turn that into a rejection), and a call that nothing can abort,
 * retry or re-sign is its one attempt: one async function from the start to the result. With
 * `unwrap`, resolves the result's `data`, and rejects a result with errors (`ServiceGraphQLError`).
 * `load` gives the document to send; by default `document`, checked and, for a node, printed by a
 * module loaded the first time (so the call's timeout and signal cover that load, and a failed load
 * is retried as a network failure).
 */
export function send(
  state: ClientState,
  document: unknown,
  variables: unknown,
  options: unknown,
  unwrap: boolean,
  load: () => PreparedDocument | Promise<PreparedDocument> = () => prepareDocument(document),
): Promise<unknown> {
  const { config } = state;
  const request = requestConfig(options);
  let prepared: PreparedDocument | Promise<PreparedDocument> | undefined = load();
  const bodyOf = (ready: PreparedDocument) =>
    serialize(ready.query, variables, request.operationName ?? ready.operationName);
  const headers = request.headers ? { ...state.headers, ...request.headers } : state.headers;
  const policy = request.retry ?? config.retry;
  // The earlier of the two timeouts; Infinity when neither is set.
  const timeoutMs = Math.min(config.timeoutMs ?? Infinity, request.timeoutMs ?? Infinity);
  if (
    !config.signal && !request.signal && timeoutMs === Infinity && policy.attempts === 1 &&
    config.auth.type !== "iam"
  ) {
    return prepared instanceof Promise
      ? prepared.then((ready) => sendOnce(state, bodyOf(ready), headers, undefined, unwrap))
      : sendOnce(state, bodyOf(prepared), headers, undefined, unwrap);
  }
  // A call aborted before its first attempt never reads the load: its failure must not go unhandled.
  if (prepared instanceof Promise) prepared.catch(() => {});
  const body = prepared instanceof Promise
    ? () => {
      // The first attempt takes the load begun above; an attempt after a failed load loads again.
      const ready = prepared ?? load();
      prepared = undefined;
      return Promise.resolve(ready).then(bodyOf);
    }
    : bodyOf(prepared);
  return attempts(
    state,
    policy,
    body,
    headers,
    callSignal([config.signal, request.signal], timeoutMs),
    unwrap,
  );
}

/**
 * The attempts of one call under `policy` (the request's, or the client's), the waits between them,
 * and the clock-skew re-sign (iam). `body` is the body to send, or what makes it once the document
 * is ready.
 */
async function attempts(
  state: ClientState,
  policy: RetryPolicy,
  body: string | (() => Promise<string>),
  headers: Readonly<Record<string, string>>,
  call: CallSignal,
  unwrap: boolean,
): Promise<unknown> {
  const { config } = state;
  try {
    let resentForClock = false;
    for (let attempt = 1;; attempt++) {
      let result: GraphQLResult;
      // A signal of the attempt's own (see `follow`), so that fetch's listeners do not pile up; it
      // follows the call until the attempt is settled (and, for a failed one, its backoff wait over).
      const [attemptSignal, stopFollowing] = follow(call.signal);
      try {
        throwIfAborted(call);
        if (typeof body !== "string") body = await untilAborted(body(), attemptSignal);
        result = await sendOnce(state, body, headers, attemptSignal, false) as GraphQLResult;
      } catch (err) {
        throwIfAborted(call);
        if (
          !(err instanceof ServiceNetworkError || err instanceof ServiceHttpError ||
            err instanceof ServiceResponseError)
        ) {
          throw err;
        }
        if (
          !resentForClock && config.auth.type === "iam" && err instanceof ServiceHttpError &&
          iam?.learnClockSkew(state, err)
        ) {
          resentForClock = true;
          attempt--;
          continue;
        }
        let retry = shouldRetry(policy, err, attempt);
        // A caller's shouldRetry may answer later: the call's timeout and signal still apply.
        if (retry instanceof Promise) retry = await untilAborted(retry, call.signal);
        // An abort while a synchronous shouldRetry decided ends the call as one during an async one.
        throwIfAborted(call);
        const delay = retry ? retryDelay(policy, err, attempt) : undefined;
        if (delay === undefined || performance.now() + delay >= call.deadline) throw err;
        // An abort rejects the wait with the call's ServiceAbortError (the reason its signal carries).
        await sleep(delay, call.signal);
        continue;
      } finally {
        stopFollowing();
      }
      return unwrap ? dataOf(result) : result;
    }
  } finally {
    call.done();
  }
}

/**
 * One attempt: read auth now (a value at once, a getter awaited), sign last, send, read the
 * response, and with `unwrap` its `data`.
 */
async function sendOnce(
  state: ClientState,
  body: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal | undefined,
  unwrap: boolean,
): Promise<unknown> {
  const { auth, url, fetch } = state.config;
  // Auth is read again for every attempt (a key or token changed in the auth object counts too), and
  // every attempt hands fetch a headers object of its own, which a wrapping fetch may change freely.
  let authorized: Record<string, string>;
  if (auth.type === "iam") {
    authorized = await untilAborted(sign(state, auth, state.config.url, body, headers), signal);
  } else {
    let header = authHeader(auth, state);
    if (header instanceof Promise) header = await untilAborted(header, signal);
    // Cloned from a copy that already holds the auth header's name: V8 clones that fast, where adding
    // the name to a fresh copy costs about half a microsecond (a tenth of the client's overhead on Node).
    const template = headers === state.headers && (state.withAuthSlot ??= { ...headers, [header[0]]: "" });
    authorized = template && header[0] in template ? { ...template } : { ...headers };
    authorized[header[0]] = header[1];
  }
  let response: FetchResponse | undefined;
  let text: string | undefined;
  try {
    // Raced against the signal, as the getters are: a fetch wrapper that drops `init.signal`, or its
    // body that never ends, cannot keep the call past its timeout or its caller's abort.
    response = await untilAborted(
      fetch(url, { method: "POST", headers: authorized, body, signal: signal ?? null, redirect: "manual" }),
      signal,
    );
    text = await untilAborted(response.text(), signal);
  } catch (cause) {
    // A non-2xx status stands even when its body cannot be read (a 401 stays a 401, not retried).
    if (!response || response.ok) throw new ServiceNetworkError(cause);
  }
  const result = resultOf(response!, text);
  return unwrap ? dataOf(result) : result;
}

/** The `data` of a result; a result with errors throws them as a `ServiceGraphQLError`. */
function dataOf(result: GraphQLResult): unknown {
  if (result.errors?.length) throw new ServiceGraphQLError(result.errors, result.data, result.extensions);
  return result.data;
}

/**
 * The headers to send in iam mode, SigV4's included. The credentials are read now (a provider is
 * called), while the iam module loads the first time; then the signer's own Promise is returned,
 * with no async layer of ours, when the credentials are a value.
 */
function sign(
  state: ClientState,
  auth: IamAuth,
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  credentials: AwsCredentials | Promise<AwsCredentials> = readCredentials(auth),
): Promise<Record<string, string>> {
  if (credentials instanceof Promise || !iam) {
    return Promise.all([credentials, iam ?? import("./iam.ts").catch(chunkLoadFailed)]).then(
      ([ready, module]) => {
        iam = module;
        return sign(state, auth, url, body, headers, ready);
      },
    );
  }
  const problem = iam.signingProblem();
  if (problem) throw new ServiceAuthError("credentials", problem);
  return iam.signAttempt(state, url, checkRegion(auth.region), body, headers, credentials);
}

/** `headers` plus the auth of `state`'s client for a POST of `body` to `url` (see `authorize` in `client.ts`). */
export async function authorizeFor(
  state: ClientState,
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const { auth } = state.config;
  if (auth.type === "iam") return sign(state, auth, url, body, headers);
  const [name, value] = await authHeader(auth, state);
  return { ...headers, [name]: value };
}

/** Throws the call's `ServiceAbortError` once its signal has fired. */
function throwIfAborted(call: CallSignal): void {
  if (call.signal?.aborted) throw call.signal.reason;
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts (at once if it already has: a getter
 * may abort the call's signal before returning its promise); the listener is removed either way.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal
    ? new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort);
      // Promise.resolve: a fetch option that returns a Response itself, not a Promise, works here too.
      Promise.resolve(promise).then(resolve, reject).finally(() =>
        signal.removeEventListener("abort", onAbort)
      );
    })
    : promise;
}

function serialize(query: string, variables: unknown, operationName: string | undefined): string {
  if (variables != null) {
    // Variables may hold anything sensitive: even a number is described by its type only.
    if (!isObject(variables)) throw invalidValue("variables", "an object", variables, false, true);
    // A Map, a Date, a boxed string or an object with a toJSON would not be sent as the object it is.
    const kind = kindOf(variables);
    if (kind !== "Object" || typeof variables.toJSON === "function") {
      throw invalidDescribed(
        "variables",
        "a plain object",
        kind === "Object" ? "an object with a toJSON method" : "a " + kind,
      );
    }
  }
  try {
    return JSON.stringify({ query, variables: variables ?? undefined, operationName });
  } catch (cause) {
    throw invalid(
      "Invalid variables: they cannot be serialized to JSON (a BigInt, or a cycle?)",
      false,
      cause,
    );
  }
}
