/**
 * What the client does in iam mode only: sign an attempt with SigV4, and learn the server's clock
 * when AWS refuses a signature for time. Internal: `ServiceClient` loads this module with `import()`
 * the first time an iam client sends, so that clients of the other four modes never download it.
 * It imports no module the client's entry imports (only types): a bundler would otherwise split
 * those into a chunk of their own. Its signer is {@link recordSigner} bound to `crypto.ts` (which
 * the npm build maps to `crypto_node.ts`).
 *
 * @module
 */

import type { ClientState } from "./call.ts";
import { fastDigest, fastHmacKey } from "./crypto.ts";
import type { ServiceError, ServiceHttpError } from "./errors.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { type RecordSigner, recordSigner } from "./sigv4_signer.ts";

export { signingProblem } from "./crypto.ts";

/** Signs a client request; see {@link RecordSigner}. */
const signRecord: RecordSigner = /* @__PURE__ */ recordSigner(fastHmacKey, fastDigest);

/** The headers to send for one attempt, SigV4's included, signed at the client's corrected time. */
export function signAttempt(
  state: ClientState,
  url: string,
  region: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  credentials: AwsCredentials,
): Promise<Record<string, string>> {
  return signRecord(url, headers, body, {
    region,
    service: "appsync",
    credentials,
    date: new Date(Date.now() + (state.clockOffsetMs ?? 0)),
  });
}

/**
 * A refusal for time, as AWS words it: "Signature expired: 20240506T070809Z is now earlier than
 * 20240506T071309Z (20240506T071809Z - 5 min.)" or "Signature not yet current: … (… + 5 min.)". The
 * time in parentheses is the server's (captured when present).
 */
const TIME_REFUSAL = /signature (?:expired|not yet current)(?:.*\((\d{8}T\d{6}Z) [+-] \d+ min\.\))?/i;

/**
 * When the service rejected an iam signature for time (a 403 or 400 whose errors hold AWS's words; any
 * other failure of an attempt is no such refusal),
 * remembers the server's clock offset and returns `true`: the request never ran, so it is re-signed
 * and resent once, with or without a retry policy.
 *
 * The server's time has two witnesses: the response's `Date`, and the time AWS names in its words.
 * Only a plausible time counts (see {@link plausible}). When both are plausible they must agree
 * within 5 minutes, or neither is believed (a `Date` of year 9998 beside AWS's real time is a
 * broken proxy or clock, not the server's time); when one is, it is taken (a browser page reads a
 * cross-origin `Date` only if the server lists it in `Access-Control-Expose-Headers`, and a server
 * may word its refusal without a time). With none, the refusal is thrown as it is. The offset itself
 * is never bounded: a device whose clock is years off is the case this correction exists for.
 */
export function learnClockSkew(state: ClientState, failure: ServiceError): boolean {
  const err = failure as Partial<ServiceHttpError>;
  // The module is shared by every client once one iam client loaded it: only an iam client learns.
  // A signature problem comes back as a 403, or a 400 (a response error of such a status has no `errors`).
  const refusal = state.auth.type == "iam" && (err.status === 403 || err.status === 400) &&
    err.errors?.map((e) => TIME_REFUSAL.exec(e.message)).find(Boolean);
  const [serverTime, other] = refusal
    ? [err.headers!.get("date"), refusal[1]?.replace(/(....)(..)(..)T(..)(..)/, "$1-$2-$3T$4:$5:")]
      .map((text) => Date.parse(text!)).filter(plausible)
    : [];
  if (!serverTime || Math.abs(serverTime - (other ?? serverTime)) > 300_000) return false;
  state.clockOffsetMs = serverTime - Date.now();
  return true;
}

/**
 * Whether a server's time can be right: not before 2024 (no server's clock is behind the day this
 * code was written: a `Date` of 1970, or text that `Date.parse` reads leniently, is wrong), and a year
 * short of 9999 (x-amz-date has four-digit years: the corrected clock must not outgrow them while
 * the client lives). A device's clock may be off by any amount; it is the server's that is checked.
 */
const plausible = (time: number) => time > Date.UTC(2024, 0) && time < Date.UTC(9999, 0);
