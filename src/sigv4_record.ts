/**
 * The client's SigV4 signer: {@link recordSigner} bound to `crypto.ts` (which the npm build maps to
 * `crypto_node.ts`). Internal: `ServiceClient` loads it with `import()` in iam mode only.
 *
 * @module
 */

import { hmac, hmacHex, hmacKey, sha256Hex } from "./crypto.ts";
import { type RecordSigner, recordSigner } from "./sigv4_signer.ts";

/** Signs a client request; see {@link RecordSigner}. */
export const signRecord: RecordSigner = /* @__PURE__ */ recordSigner(hmacKey, hmac, hmacHex, sha256Hex);
