/**
 * Measures what a newcomer's first commands download: copies the repository's tracked files (as a
 * fresh clone has them: no `node_modules/`, nothing ignored) to a temporary folder, gives Deno an
 * empty cache (`DENO_DIR`), and runs the given tasks there one after the other through a local
 * HTTP proxy that counts every byte received from the network (npm metadata and tarballs alike,
 * TLS included). Deno's own binary is not counted: it is the one running this script.
 *
 * Usage: `deno run -A scripts/footprint.ts [--limit-mb 25] [--rev REV] [--keep] demo test`
 *
 * `--rev REV` takes the files of a commit (`git archive`) instead of the working tree's.
 *
 * Deno and npm take the proxy from `HTTPS_PROXY`; a download by a tool that ignored it would not be
 * counted. With an empty cache Deno must fetch whatever npm package the tasks use, so a total of 0
 * means that the proxy was bypassed, and fails too.
 *
 * Prints the bytes each task received and the total, and the size of the `node_modules/` it left;
 * fails when a task fails (a task that stops early downloads less) or when the total is above
 * `--limit-mb` (megabytes of 1,000,000 bytes).
 *
 * @module
 */

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/** A local proxy (CONNECT for https, absolute URLs for http) that counts the bytes it relays. */
export interface CountingProxy {
  /** `http://127.0.0.1:port`. */
  readonly url: string;
  /** Bytes received from the network so far. */
  readonly received: () => number;
  /** Bytes sent to the network so far. */
  readonly sent: () => number;
  /** Stops listening and closes every relayed connection. */
  readonly close: () => Promise<void>;
}

/** The end of an HTTP request's head, or -1. */
function headEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) return i + 1;
  }
  return -1;
}

/** Starts a counting proxy on 127.0.0.1 (port chosen by the system). */
export function startCountingProxy(): CountingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const relays: Promise<void>[] = [];
  let received = 0;
  let sent = 0;

  const closeQuietly = (conn: Deno.Conn) => {
    if (!open.delete(conn)) return;
    try {
      conn.close();
    } catch {
      // already closed by the other side
    }
  };

  /** Copies `from` to `to`, counting, until either side ends. */
  const pipe = async (from: Deno.Conn, to: Deno.Conn, count: (n: number) => void) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        count(n);
        let written = 0;
        while (written < n) written += await to.write(buffer.subarray(written, n));
      }
    } catch {
      // a reset or a closed socket ends the relay like an end of stream does
    }
    closeQuietly(from);
    closeQuietly(to);
  };

  const serve = async (client: Deno.Conn) => {
    open.add(client);
    let head = new Uint8Array(0);
    let end = -1;
    const chunk = new Uint8Array(16 * 1024);
    while (end === -1) {
      const n = await client.read(chunk).catch(() => null);
      if (n === null || head.length > 64 * 1024) return closeQuietly(client);
      const next = new Uint8Array(head.length + n);
      next.set(head);
      next.set(chunk.subarray(0, n), head.length);
      head = next;
      end = headEnd(head);
    }
    const requestLine = new TextDecoder().decode(head.subarray(0, head.indexOf(13)));
    const [method = "", target = ""] = requestLine.split(" ");
    let hostname: string;
    let port: number;
    if (method === "CONNECT") {
      const colon = target.lastIndexOf(":");
      hostname = target.slice(0, colon).replace(/^\[|\]$/g, "");
      port = Number(target.slice(colon + 1));
    } else {
      const url = URL.parse(target);
      if (!url) return closeQuietly(client);
      hostname = url.hostname.replace(/^\[|\]$/g, "");
      port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    }
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({ hostname, port });
    } catch {
      await client.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n"))
        .catch(() => 0);
      return closeQuietly(client);
    }
    open.add(upstream);
    if (method === "CONNECT") {
      await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      const rest = head.subarray(end);
      if (rest.length) {
        sent += rest.length;
        await upstream.write(rest);
      }
    } else {
      sent += head.length;
      await upstream.write(head);
    }
    await Promise.all([
      pipe(client, upstream, (n) => sent += n),
      pipe(upstream, client, (n) => received += n),
    ]);
  };

  const accepting = (async () => {
    for await (const conn of listener) relays.push(serve(conn).catch(() => closeQuietly(conn)));
  })().catch(() => {});

  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    sent: () => sent,
    close: async () => {
      listener.close();
      for (const conn of [...open]) closeQuietly(conn);
      await accepting;
      await Promise.all(relays);
    },
  };
}

/** Copies the tracked files of the working tree (what a fresh clone holds, with local edits). */
function copyTracked(to: string): number {
  const listed = new Deno.Command("git", { args: ["ls-files", "-z"], cwd: ROOT, stdout: "piped" })
    .outputSync();
  if (!listed.success) throw new Error("git ls-files failed: run this inside the repository");
  let count = 0;
  for (const path of new TextDecoder().decode(listed.stdout).split("\0")) {
    if (!path) continue;
    const source = join(ROOT, path);
    let stat;
    try {
      stat = statSync(source);
    } catch {
      continue; // deleted in the working tree, not yet committed
    }
    if (!stat.isFile()) continue;
    mkdirSync(dirname(join(to, path)), { recursive: true });
    copyFileSync(source, join(to, path));
    count++;
  }
  return count;
}

/** Writes the files of a commit, as `git archive` gives them. */
async function exportRevision(rev: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  const archive = new Deno.Command("git", {
    args: ["archive", "--format=tar", rev],
    cwd: ROOT,
    stdout: "piped",
  })
    .outputSync();
  if (!archive.success) throw new Error(`git archive ${rev} failed`);
  const tar = new Deno.Command("tar", { args: ["-x", "-C", to], stdin: "piped" }).spawn();
  const writer = tar.stdin.getWriter();
  await writer.write(archive.stdout);
  await writer.close();
  if (!(await tar.status).success) throw new Error(`unpacking ${rev} failed`);
}

/** Bytes under a folder (files only; links not followed). */
function diskUsage(path: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += diskUsage(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

if (import.meta.main) {
  const args = [...Deno.args];
  let limit = Infinity;
  let keep = false;
  let rev: string | undefined;
  const tasks: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--limit-mb") limit = Number(args[++i]);
    else if (arg === "--keep") keep = true;
    else if (arg === "--rev") rev = args[++i];
    else tasks.push(arg.split(" "));
  }
  if (!tasks.length || Number.isNaN(limit)) {
    console.error("Usage: deno run -A scripts/footprint.ts [--limit-mb N] [--rev REV] [--keep] TASK...");
    Deno.exit(2);
  }

  const work = mkdtempSync(join(tmpdir(), "footprint-"));
  const clone = join(work, "clone");
  const cache = join(work, "deno-dir");
  mkdirSync(cache);
  if (rev) {
    await exportRevision(rev, clone);
    console.log(`Fresh copy of ${rev} in ${clone}; empty DENO_DIR ${cache}`);
  } else {
    const files = copyTracked(clone);
    console.log(
      `Fresh copy of the working tree: ${files} tracked files in ${clone}; empty DENO_DIR ${cache}`,
    );
  }

  const proxy = startCountingProxy();
  const env: Record<string, string> = {
    DENO_DIR: cache,
    HTTPS_PROXY: proxy.url,
    HTTP_PROXY: proxy.url,
    NO_PROXY: "127.0.0.1,localhost,::1",
    NPM_CONFIG_CACHE: join(work, "npm-cache"),
  };
  let failed = false;
  let before = 0;
  for (const task of tasks) {
    const started = performance.now();
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["task", ...task],
      cwd: clone,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).output();
    // A task's own output only matters when it fails.
    if (code !== 0) await Deno.stdout.write(stdout);
    const got = proxy.received() - before;
    before = proxy.received();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`deno task ${task.join(" ")}: received ${mb(got)} in ${seconds} s, exit code ${code}`);
    if (code !== 0) failed = true;
  }
  await proxy.close();
  const total = proxy.received();
  console.log(
    `Total received: ${mb(total)} (${total} bytes; sent ${mb(proxy.sent())}); node_modules on disk: ` +
      `${mb(diskUsage(join(clone, "node_modules")))}, DENO_DIR: ${mb(diskUsage(cache))}`,
  );
  if (keep) console.log(`Kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
  if (failed) {
    console.error("A task failed: its download is not the whole of what it needs.");
    Deno.exit(1);
  }
  if (total === 0) {
    console.error("Nothing went through the proxy: the download cannot have been measured.");
    Deno.exit(1);
  }
  if (total > limit * 1e6) {
    console.error(`Above the limit of ${limit} MB.`);
    Deno.exit(1);
  }
}
