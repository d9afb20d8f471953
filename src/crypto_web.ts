/**
 * The hashing primitives SigV4 needs, on the Web Crypto API (`crypto.subtle`) alone: what the npm
 * package's web build (browsers, workers, bundlers for the web) loads in place of `crypto.ts`, and
 * what `crypto.ts` falls back to where the runtime hands out no `node:crypto`. It holds no
 * `node:crypto` path, which a page could never take: a browser's iam chunk is the smaller for it.
 *
 * Every primitive answers with a Promise: each `crypto.subtle` call is an asynchronous hop. The fast
 * pair is the plain pair here (see `crypto.ts`).
 *
 * @module
 */

import type { Digest, KeyMaker } from "./crypto.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Turns a secret (UTF-8 text or raw bytes) into a non-extractable HMAC-SHA256 `CryptoKey`. */
export const hmacKey: KeyMaker = (secret: string | Uint8Array | ArrayBuffer): Promise<CryptoKey> =>
  crypto.subtle.importKey(
    "raw",
    (typeof secret == "string" ? utf8(secret) : secret) as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );

/** HMAC-SHA256 under a key of {@link hmacKey}, or SHA-256 without one (see `Digest` in `crypto.ts`). */
// reduce, not Array.from with a map function: in a signature, on Deno, that one costs ~10 µs more.
export const digest: Digest =
  ((key: CryptoKey | 0, data: string, hex?: 1) =>
    (key ? crypto.subtle.sign("HMAC", key, utf8(data)) : crypto.subtle.digest("SHA-256", utf8(data))).then((
      bytes,
    ) =>
      hex
        ? new Uint8Array(bytes).reduce((text, byte) => text + (byte | 256).toString(16).slice(1), "")
        : bytes
    )) as Digest;

/**
 * The client's signer's pair: the plain pair, on Web Crypto (exported under both names, so that the
 * bundle holds no alias of them).
 */
export { digest as fastDigest, hmacKey as fastHmacKey };

/**
 * Why this runtime cannot sign, or `""`: browsers have `crypto.subtle` on secure pages only (https,
 * localhost). In this module, so that the words ship in the iam chunk only.
 */
export const signingProblem = (): string =>
  globalThis.crypto?.subtle
    ? ""
    : "cannot be signed: this runtime has no Web Crypto (crypto.subtle), which browsers give secure pages only (https, localhost)";
