/**
 * The hashing primitives SigV4 needs, on the Web Crypto API (`crypto.subtle`): the variant for
 * browsers, workers, Deno and Bun. Every function here returns a Promise.
 *
 * The npm build maps this file to `crypto_node.ts`, which exports the same names with the same
 * signatures on `node:crypto` and returns plain values. Callers must accept either (see
 * {@link MaybePromise}) and wait only when they get a Promise.
 *
 * @module
 */

/** A value, or a Promise of it: what a primitive returns, depending on the variant. */
export type MaybePromise<T> = T | Promise<T>;

/** An HMAC-SHA256 key ready to sign with: an imported, non-extractable `CryptoKey` here. */
export type HmacKey = CryptoKey;

const utf8 = (text: string) => new TextEncoder().encode(text);
// reduce, not Array.from with a map function: in a signature, on Deno, that one costs ~10 µs more.
const hex = (buffer: ArrayBuffer) =>
  new Uint8Array(buffer).reduce((text, byte) => text + (byte | 256).toString(16).slice(1), "");

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key. */
export const hmacKey = (secret: string | Uint8Array | ArrayBuffer): MaybePromise<HmacKey> =>
  crypto.subtle.importKey(
    "raw",
    (typeof secret == "string" ? utf8(secret) : secret) as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );

/** HMAC-SHA256 of the UTF-8 bytes of `data`, as raw bytes. */
export const hmac = (key: HmacKey, data: string): MaybePromise<Uint8Array | ArrayBuffer> =>
  crypto.subtle.sign("HMAC", key, utf8(data));

/** HMAC-SHA256 of the UTF-8 bytes of `data`, as lowercase hex. */
export const hmacHex = (key: HmacKey, data: string): MaybePromise<string> =>
  (hmac(key, data) as Promise<ArrayBuffer>).then(hex);

/** SHA-256 of the UTF-8 bytes of `data`, as lowercase hex. */
export const sha256Hex = (data: string): MaybePromise<string> =>
  crypto.subtle.digest("SHA-256", utf8(data)).then(hex);

/**
 * Why this runtime cannot sign, or `""`: browsers have `crypto.subtle` on secure pages only (https,
 * localhost). In this module, so that the words ship in the iam chunk only.
 */
export const signingProblem = (): string =>
  globalThis.crypto?.subtle
    ? ""
    : "cannot be signed: this runtime has no Web Crypto (crypto.subtle), which browsers give secure pages only (https, localhost)";
