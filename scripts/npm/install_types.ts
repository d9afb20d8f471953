/**
 * Installs the packages of `node_types/deno.lock` (`@types/node` and its `undici-types`, the Node
 * types the npm build compiles against) into `node_types/node_modules/`, by their tarballs alone: each is checked against the lock's `integrity` (SHA-512)
 * before it is unpacked. `deno install` would fetch the registry's document of `@types/node` first,
 * 9 MB of metadata for half a megabyte of types; this fetches the tarballs only.
 *
 * The lock is the pin: to move to other versions, change `node_types/deno.json` and run
 * `deno install` in that folder (which rewrites its deno.lock), then commit both. The registry is `NPM_CONFIG_REGISTRY`'s,
 * or npm's.
 *
 * Usage: `deno run -A scripts/npm/install_types.ts` (`deno task build:npm` runs it); does nothing
 * when the locked versions are there already.
 *
 * @module
 */

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL("./node_types/", import.meta.url));
const MODULES = join(HERE, "node_modules");

/** A package of the lock: `@types/node`, `18.19.130`, `sha512-…`. */
export interface LockedPackage {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
}

/** The packages of a deno.lock (version 5), each with the integrity the lock gives it. */
export function lockedPackages(lock: { npm?: Record<string, { integrity?: string }> }): LockedPackage[] {
  return Object.entries(lock.npm ?? {}).map(([key, entry]) => {
    const at = key.indexOf("@", 1);
    const name = key.slice(0, at);
    const version = key.slice(at + 1).split("_")[0]!;
    if (at < 1 || !entry.integrity?.startsWith("sha512-")) {
      throw new Error(`deno.lock: ${key} has no sha512 integrity`);
    }
    return { name, version, integrity: entry.integrity };
  });
}

/** The files of a tar archive (regular files only), by path; pax `path` records honoured. */
export function untar(archive: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const text = (from: number, length: number) =>
    new TextDecoder().decode(archive.subarray(from, from + length)).replace(/\0.*$/s, "");
  let offset = 0;
  let paxPath: string | undefined;
  while (offset + 512 <= archive.length) {
    const name = text(offset, 100);
    if (!name) break; // the two empty blocks that end the archive
    const size = parseInt(text(offset + 124, 12).trim() || "0", 8);
    const type = text(offset + 156, 1) || "0";
    const prefix = text(offset + 345, 155);
    const body = archive.subarray(offset + 512, offset + 512 + size);
    if (type === "x") {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(body))?.[1];
    } else {
      if (type === "0") files.set(paxPath ?? (prefix ? `${prefix}/${name}` : name), body.slice());
      paxPath = undefined;
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Base64 of the SHA-512 of some bytes, as `integrity` writes it after `sha512-`. */
async function sha512(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
  return btoa(String.fromCharCode(...digest));
}

/**
 * Fetches a package's tarball, checks it against its integrity, and unpacks it into
 * `<modules>/<name>/` (npm's `package/` folder stripped).
 */
export async function installTarball(pkg: LockedPackage, registry: string, modules: string): Promise<void> {
  const url = `${registry.replace(/\/$/, "")}/${pkg.name}/-/${pkg.name.split("/").pop()}-${pkg.version}.tgz`;
  const response = await fetch(url);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  const tgz = new Uint8Array(await response.arrayBuffer());
  const actual = `sha512-${await sha512(tgz)}`;
  if (actual !== pkg.integrity) {
    throw new Error(
      `${pkg.name}@${pkg.version}: the tarball's integrity is ${actual}, the lock says ${pkg.integrity}`,
    );
  }
  const tar = new Uint8Array(
    await new Response(new Blob([tgz]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer(),
  );
  const target = join(modules, pkg.name);
  const staging = `${target}.partial`;
  rmSync(staging, { recursive: true, force: true });
  for (const [path, bytes] of untar(tar)) {
    const relative = normalize(path.replace(/^[^/]*\//, ""));
    if (relative.startsWith("..") || relative.startsWith("/")) throw new Error(`${url}: unsafe path ${path}`);
    mkdirSync(dirname(join(staging, relative)), { recursive: true });
    writeFileSync(join(staging, relative), bytes);
  }
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  renameSync(staging, target);
}

/** Whether `<modules>/<name>` holds the locked version. */
function installed(pkg: LockedPackage, modules: string): boolean {
  const manifest = join(modules, pkg.name, "package.json");
  return existsSync(manifest) &&
    (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version ===
      pkg.version;
}

if (import.meta.main) {
  const lock = JSON.parse(readFileSync(join(HERE, "deno.lock"), "utf8"));
  const registry = Deno.env.get("NPM_CONFIG_REGISTRY") || "https://registry.npmjs.org";
  const missing = lockedPackages(lock).filter((pkg) => !installed(pkg, MODULES));
  for (const pkg of missing) await installTarball(pkg, registry, MODULES);
  if (missing.length) {
    console.error(
      `Installed ${missing.map((pkg) => `${pkg.name}@${pkg.version}`).join(", ")} for the npm build`,
    );
  }
}
