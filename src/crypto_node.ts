/**
 * The hashing primitives SigV4 needs, on `node:crypto`: the variant the npm build maps in place of
 * `crypto.ts` for Node and Bun. Same names and signatures as `crypto.ts`, but every function
 * returns its result synchronously: the signer's `await`s then cost next to nothing.
 *
 * It needs no global `crypto`, so it works on Node 18.17, where `globalThis.crypto` is missing.
 * Its size does not count against the browser bundle: it is written for speed.
 *
 * @module
 */

import * as nodeCrypto from "node:crypto";

/** A value, or a Promise of it: what a primitive returns, depending on the variant. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * An HMAC-SHA256 key ready to sign with: a secret `KeyObject` on Node and Bun, where HMAC with one is
 * faster than with raw bytes (by a fifth on Node 20); the secret itself on Deno, where it is slower,
 * and on runtimes without `createSecretKey` (Bun 1.0.0, for one).
 */
export type HmacKey = nodeCrypto.KeyObject | string | Uint8Array;

// One-shot hashing (Node 20.12+, 21.7+) skips the Hash object; Node 18 has only createHash.
const oneShotHash =
  (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

const keyObjects = !("Deno" in globalThis) && typeof nodeCrypto.createSecretKey == "function";

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key. */
export function hmacKey(secret: string | Uint8Array | ArrayBuffer): MaybePromise<HmacKey> {
  const key = secret instanceof ArrayBuffer ? new Uint8Array(secret) : secret;
  if (!keyObjects) return key;
  return typeof key === "string" ? nodeCrypto.createSecretKey(key, "utf8") : nodeCrypto.createSecretKey(key);
}

/** HMAC-SHA256 of the UTF-8 bytes of `data`, as raw bytes. */
export function hmac(key: HmacKey, data: string): MaybePromise<Uint8Array | ArrayBuffer> {
  return nodeCrypto.createHmac("sha256", key).update(data).digest();
}

/** HMAC-SHA256 of the UTF-8 bytes of `data`, as lowercase hex. */
export function hmacHex(key: HmacKey, data: string): MaybePromise<string> {
  return nodeCrypto.createHmac("sha256", key).update(data).digest("hex");
}

/** SHA-256 of the UTF-8 bytes of `data`, as lowercase hex. */
export function sha256Hex(data: string): MaybePromise<string> {
  return oneShotHash
    ? oneShotHash("sha256", data, "hex")
    : nodeCrypto.createHash("sha256").update(data).digest("hex");
}

/** Why this runtime cannot sign, or `""`: it always can, on `node:crypto`. */
export const signingProblem = (): string => "";
