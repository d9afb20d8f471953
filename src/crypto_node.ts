/**
 * The hashing primitives SigV4 needs, on `node:crypto`: the variant the npm build maps in place of
 * `crypto.ts` for Node and Bun (and for Deno running the npm package). Same names and signatures as
 * `crypto.ts`, but every function returns its result synchronously: the signer's `await`s then cost
 * next to nothing.
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
 * and on runtimes without `createSecretKey` (Bun 1.0.0, for one); or, for {@link fastDigest} on
 * Deno, the SHA-256 hashes of the key's inner and outer pads.
 */
export type HmacKey = nodeCrypto.KeyObject | string | Uint8Array | readonly nodeCrypto.Hash[];

/**
 * HMAC-SHA256 of the UTF-8 bytes of `data` under `key`, or their SHA-256 without one (`0`): as raw
 * bytes, or as lowercase hex with `1`.
 */
export interface Digest<Key = HmacKey> {
  (key: Key | 0, data: string, hex: 1): MaybePromise<string>;
  (key: Key | 0, data: string): MaybePromise<Uint8Array | ArrayBuffer>;
}

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key. */
export type KeyMaker<Key = HmacKey> = (secret: string | Uint8Array | ArrayBuffer) => MaybePromise<Key>;

// One-shot hashing (Node 20.12+, 21.7+) skips the Hash object; Node 18 has only createHash.
const oneShotHash =
  (nodeCrypto as { hash?: (algorithm: string, data: string, encoding?: "hex") => string }).hash;

const onDeno = "Deno" in globalThis;
const keyObjects = !onDeno && typeof nodeCrypto.createSecretKey == "function";

/** SHA-256 of the UTF-8 bytes of `data`, as raw bytes, or as lowercase hex with `hex`. */
function sha256(data: string, hex?: 1): Uint8Array | string {
  if (hex && oneShotHash) return oneShotHash("sha256", data, "hex");
  const hash = nodeCrypto.createHash("sha256").update(data);
  return hex ? hash.digest("hex") : hash.digest();
}

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key for {@link digest}. */
export const hmacKey: KeyMaker = (secret: string | Uint8Array | ArrayBuffer): HmacKey => {
  const key = secret instanceof ArrayBuffer ? new Uint8Array(secret) : secret;
  if (!keyObjects) return key;
  return typeof key === "string" ? nodeCrypto.createSecretKey(key, "utf8") : nodeCrypto.createSecretKey(key);
};

/** HMAC-SHA256 or SHA-256 (see {@link Digest}), with `createHmac`. */
export const digest: Digest =
  ((key: nodeCrypto.KeyObject | string | Uint8Array | 0, data: string, hex?: 1) => {
    if (!key) return sha256(data, hex);
    const hmac = nodeCrypto.createHmac("sha256", key).update(data);
    return hex ? hmac.digest("hex") : hmac.digest();
  }) as Digest;

/**
 * Turns a secret into an HMAC-SHA256 key for {@link fastDigest}: on Deno, whose `createHmac` costs
 * several times what a hash does, the hashes of the key's inner and outer pads (RFC 2104), to be
 * copied per message; elsewhere, what {@link hmacKey} makes.
 */
export const fastHmacKey: KeyMaker = (secret: string | Uint8Array | ArrayBuffer): HmacKey => {
  if (!onDeno) return hmacKey(secret) as HmacKey;
  let bytes: Uint8Array = typeof secret == "string"
    ? new TextEncoder().encode(secret)
    : new Uint8Array(secret);
  // A key longer than SHA-256's 64-byte block is hashed first; a shorter one is padded with zeros.
  if (bytes.length > 64) bytes = nodeCrypto.createHash("sha256").update(bytes).digest();
  const pad = (mask: number) =>
    nodeCrypto.createHash("sha256").update(Uint8Array.from({ length: 64 }, (_, i) => bytes[i]! ^ mask));
  return [pad(0x36), pad(0x5c)];
};

// The inner hash of an HMAC as bytes, for the outer hash: one array for every call (each runs to its end
// synchronously), since on Deno a new typed array (a `Buffer` from `digest()` too) costs about as much as
// hashing a short text, and hex comes out several times faster.
const innerHash = new Uint8Array(32);

/** HMAC-SHA256 or SHA-256 (see {@link Digest}): on Deno, two hashes over the key's pads; elsewhere {@link digest}. */
export const fastDigest: Digest = ((key: HmacKey | 0, data: string, hex?: 1) => {
  if (!Array.isArray(key)) return digest(key as nodeCrypto.KeyObject, data, hex!);
  const [inner, outer] = key as readonly nodeCrypto.Hash[];
  const innerHex = inner!.copy().update(data).digest("hex");
  for (let i = 0; i < 64; i++) {
    const code = innerHex.charCodeAt(i); // "0" is 48, "a" 97
    innerHash[i >> 1] = (i & 1 ? innerHash[i >> 1]! << 4 : 0) | (code > 57 ? code - 87 : code - 48);
  }
  const hash = outer!.copy().update(innerHash);
  return hex ? hash.digest("hex") : hash.digest();
}) as Digest;

/** Why this runtime cannot sign, or `""`: it always can, on `node:crypto`. */
export const signingProblem = (): string => "";
