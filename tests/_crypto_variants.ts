/**
 * The crypto variants the signer tests run on, beside the one this runtime loads.
 *
 * @module
 */

import type * as webPrimitives from "../src/crypto.ts";

/**
 * `crypto.ts` as pages and Deno 1 run it, on Web Crypto: a fresh copy of the module, loaded while
 * `process.getBuiltinModule` is out of sight. Under Deno only, which runs the source (the built
 * package's tests import compiled files, which this cannot reload).
 */
export async function webCryptoCopy(): Promise<typeof webPrimitives | undefined> {
  if (!("Deno" in globalThis) || !globalThis.crypto?.subtle) return undefined;
  const host = (globalThis as { process?: { getBuiltinModule?: unknown } }).process;
  const saved = host?.getBuiltinModule;
  if (host) host.getBuiltinModule = undefined;
  try {
    return await import(new URL("../src/crypto.ts", import.meta.url).href + "?web-crypto");
  } finally {
    if (host) host.getBuiltinModule = saved;
  }
}
