/**
 * The hashing primitives SigV4 needs: the variant that JSR ships. It runs on `node:crypto` where the
 * runtime hands it out without an import (Deno 2, Node 20.16+, Bun: `process.getBuiltinModule`), and
 * on the Web Crypto API (`crypto_web.ts`) everywhere else (browsers, workers, Deno 1). No bundler
 * sees an import of `node:crypto`: its name is a string given to a function, so browser bundles stay
 * clean.
 *
 * Why both: each `crypto.subtle` call is an asynchronous hop to another thread, and a signature
 * waits on three in a row (two digests and an HMAC). On `node:crypto`, every function here answers
 * synchronously.
 *
 * Two pairs, the same on Web Crypto: {@link hmacKey} and {@link digest}, small, for `signRequest`;
 * {@link fastHmacKey} and {@link fastDigest}, for the client's signer, where HMAC is two SHA-256
 * hashes over the key's inner and outer pads (RFC 2104), each hash started once per key and copied
 * per message: Deno's `createHmac` costs several times what a hash does. A bundle holds only the
 * pair it uses.
 *
 * The npm build maps this file to `crypto_node.ts` for Node and Bun, and to `crypto_web.ts` for
 * browsers and workers (which then carry no `node:crypto` path); both export the same names with
 * the same signatures. Callers must accept a value or a Promise (see {@link MaybePromise}).
 *
 * @module
 */

import * as web from "./crypto_web.ts";

/** A value, or a Promise of it: what a primitive returns, depending on the variant. */
export type MaybePromise<T> = T | Promise<T>;

/** A SHA-256 hash in progress, as `node:crypto` makes it (the part used here). */
interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(encoding?: "hex"): Uint8Array & string;
  copy(): NodeHash;
}

/** The part of `node:crypto` used here. */
interface NodeCrypto {
  createHash(algorithm: "sha256"): NodeHash;
  createHmac(algorithm: "sha256", key: string | Uint8Array | ArrayBuffer): NodeHash;
}

/**
 * An HMAC-SHA256 key ready to sign with: an imported, non-extractable `CryptoKey` on Web Crypto; on
 * `node:crypto`, the secret itself ({@link hmacKey}), or the SHA-256 hashes of its inner and outer
 * pads ({@link fastHmacKey}).
 */
export type HmacKey =
  | CryptoKey
  | string
  | Uint8Array
  | ArrayBuffer
  | readonly [inner: NodeHash, outer: NodeHash];

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

const node = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process
  ?.getBuiltinModule?.("crypto") as NodeCrypto | undefined;

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key for {@link digest}. */
export const hmacKey: KeyMaker = (secret: string | Uint8Array | ArrayBuffer): MaybePromise<HmacKey> =>
  node ? secret : web.hmacKey(secret);

/** HMAC-SHA256 or SHA-256 (see {@link Digest}), with `createHmac` on `node:crypto`. */
export const digest: Digest = node
  ? ((key: string | Uint8Array | ArrayBuffer | 0, data: string, hex?: 1) =>
    (key ? node.createHmac("sha256", key) : node.createHash("sha256")).update(data).digest(
      hex && "hex",
    )) as Digest
  : web.digest;

/** Turns a secret (UTF-8 text or raw bytes) into an HMAC-SHA256 key for {@link fastDigest}. */
export const fastHmacKey: KeyMaker = node
  ? (secret) => {
    let bytes: Uint8Array = typeof secret == "string"
      ? new TextEncoder().encode(secret)
      : new Uint8Array(secret);
    // A key longer than SHA-256's 64-byte block is hashed first; a shorter one is padded with zeros.
    if (bytes.length > 64) bytes = node.createHash("sha256").update(bytes).digest();
    const pad = (mask: number) =>
      node.createHash("sha256").update(Uint8Array.from({ length: 64 }, (_, i) => bytes[i]! ^ mask));
    return [pad(0x36), pad(0x5c)] as const;
  }
  : web.hmacKey;

// The inner hash of an HMAC as bytes, for the outer hash: one array for every call (each runs to its end
// synchronously), since on Deno a new typed array costs about as much as hashing a short text.
const innerHash = /* @__PURE__ */ new Uint8Array(32);

/** Reads 64 lowercase hex digits into {@link innerHash}. */
const fromHex = (hex: string) => {
  for (let i = 0, code; i < 64; i++) {
    code = hex.charCodeAt(i);
    // "0" is 48, "a" 97. Each digit shifts its byte a nibble left: after its two digits, the byte
    // holds them alone.
    innerHash[i >> 1] = innerHash[i >> 1]! << 4 | (code > 57 ? code - 87 : code - 48);
  }
  return innerHash;
};

/**
 * HMAC-SHA256 or SHA-256 (see {@link Digest}), on `node:crypto` as two hashes over the key's pads.
 * The inner hash comes out as hex, read back into bytes: Deno hands out hex several times faster
 * than a `Buffer`.
 */
export const fastDigest: Digest = node
  ? ((key: readonly NodeHash[] | 0, data: string, hex?: 1) =>
    (key
      ? key[1]!.copy().update(fromHex(key[0]!.copy().update(data).digest("hex")))
      : node.createHash("sha256").update(data))
      .digest(hex && "hex")) as Digest
  : web.digest;

/** Why this runtime cannot sign, or `""` (see `crypto_web.ts`). */
export const signingProblem = (): string => node ? "" : web.signingProblem();
