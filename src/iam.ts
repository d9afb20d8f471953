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
import { hmac, hmacHex, hmacKey, sha256Hex } from "./crypto.ts";
import type { ServiceHttpError } from "./errors.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { type RecordSigner, recordSigner } from "./sigv4_signer.ts";

export { signingProblem } from "./crypto.ts";

/** Signs a client request; see {@link RecordSigner}. */
const signRecord: RecordSigner = /* @__PURE__ */ recordSigner(hmacKey, hmac, hmacHex, sha256Hex);

/** The headers to send for one attempt, SigV4's included, signed at the client's corrected time. */
export function signAttempt(
  state: ClientState,
  region: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  credentials: AwsCredentials,
): Promise<Record<string, string>> {
  return signRecord(state.config.url, headers, body, {
    region,
    service: "appsync",
    credentials,
    date: new Date(Date.now() + state.clockOffsetMs),
  });
}

/**
 * A refusal for time, as AWS words it: "Signature expired: 20240506T070809Z is now earlier than
 * 20240506T071309Z (20240506T071809Z - 5 min.)" or "Signature not yet current: … (… + 5 min.)". The
 * time in parentheses is the server's (captured when present).
 */
const TIME_REFUSAL = /signature (?:expired|not yet current)(?:.*\((\d{8}T\d{6}Z) [+-] \d+ min\.\))?/i;

/**
 * When the service rejected an iam signature for time (a 403 or 400 whose errors hold AWS's words),
 * remembers the server's clock offset and returns `true`: the request never ran, so it is re-signed
 * and resent once, with or without a retry policy. The server's time is the response's `Date`, or,
 * when that cannot be read (a browser page reads a cross-origin `Date` only if the server lists it
 * in `Access-Control-Expose-Headers`), the time in the message. With neither, the refusal is thrown
 * as it is.
 */
export function learnClockSkew(state: ClientState, err: ServiceHttpError): boolean {
  // A signature problem comes back as a 403, or a 400.
  const refusal = (err.status === 403 || err.status === 400) &&
    err.errors.map((e) => TIME_REFUSAL.exec(e.message)).find(Boolean);
  const serverTime = refusal &&
    (Date.parse(err.headers.get("date")!) ||
      Date.parse(refusal[1]?.replace(/(....)(..)(..)T(..)(..)/, "$1-$2-$3T$4:$5:")!));
  // A time before 1970 or past 9999 cannot be an x-amz-date (four-digit years): such a Date is wrong,
  // and taking it would make every later signature fail before it is sent.
  if (!(serverTime && serverTime > 0 && serverTime < Date.UTC(1e4, 0))) return false;
  state.clockOffsetMs = serverTime - Date.now();
  return true;
}
