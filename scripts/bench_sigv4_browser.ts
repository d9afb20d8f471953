/**
 * Our signer against aws4fetch in headless Chromium, where ours runs on Web Crypto (`crypto.ts`
 * has no `node:crypto` in a page): the page of `scripts/bench_sigv4_page.ts`, bundled by esbuild,
 * signs the AppSync POST of `scripts/bench_sigv4.ts` in a loop with each signer, in interleaved
 * rounds (the order rotated each round, after a warm-up round). Reports each signer's median rate
 * (min–max) and the median of the per-round ratios to aws4fetch: the machine is shared, and only
 * same-round ratios mean much.
 *
 * Chromium is Debian's (`apt-get install -y chromium`), driven by playwright-core with the flags of
 * `scripts/runtimes/chromium.ts`.
 *
 * Usage: `deno task bench:sigv4:browser [--rounds 15] [--slice-ms 300] [--compare DIR]`; `--compare`
 * adds the `src/sigv4.ts` of another checkout ("ours B": a patched copy, say) to the same rounds.
 *
 * @module
 */

import * as esbuild from "esbuild";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, serveFiles } from "./runtimes/chromium.ts";

const flag = (name: string, fallback: string) => {
  const at = Deno.args.indexOf(`--${name}`);
  return at < 0 ? fallback : Deno.args[at + 1]!;
};
const rounds = Number(flag("rounds", "15"));
const sliceMs = Number(flag("slice-ms", "300"));
const compare = flag("compare", "");

const bundle = async (stdin: string) => {
  const result = await esbuild.build({
    stdin: { contents: stdin, resolveDir: new URL(".", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    // aws4fetch lives with the other dev tools, in scripts/tools/ (see its deno.json).
    nodePaths: [new URL("./tools/node_modules", import.meta.url).pathname],
    minify: true,
    platform: "browser",
    format: "iife",
    write: false,
    logLevel: "warning",
  });
  return result.outputFiles[0]!.text;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

let page: string, pageB = "";
try {
  page = await bundle('import "./bench_sigv4_page.ts";');
  if (compare) {
    const source = new URL(`${compare.replace(/\/?$/, "/")}src/sigv4.ts`, `file://${Deno.cwd()}/`).pathname;
    pageB = await bundle(
      `import { signRequest } from ${JSON.stringify(source)}; globalThis.signRequestB = signRequest;`,
    );
  }
} finally {
  await esbuild.stop();
}

const server = await serveFiles(
  new Map([
    ["/", '<!doctype html><script src="/b.js"></script><script src="/page.js"></script>'],
    ["/page.js", page],
    ["/b.js", pageB],
  ]),
);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
try {
  const tab = await (await browser.newContext()).newPage();
  await tab.goto(server.origin + "/");
  const { names, rates, agreed } = await tab.evaluate(
    ([rounds, sliceMs]) => {
      const scope = globalThis as unknown as {
        runPageBench(rounds: number, sliceMs: number, b?: unknown): Promise<{
          names: string[];
          rates: number[][];
          agreed: boolean;
        }>;
        signRequestB?: unknown;
      };
      return scope.runPageBench(rounds!, sliceMs!, scope.signRequestB);
    },
    [rounds, sliceMs],
  );
  if (!agreed) {
    throw new Error("The signers disagree on the Authorization of the same request at the same time");
  }
  const version = browser.version();
  const base = rates[names.indexOf("aws4fetch")]!;
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  console.log(
    `Chromium ${version} (headless); an AppSync POST with a session token; ${rounds} rounds of ${sliceMs} ms ` +
      `per signer, interleaved, after a warm-up round\n`,
  );
  console.log(
    "| signer | signatures/s, median (min–max) | × aws4fetch, median of per-round ratios (min–max) |",
  );
  console.log("|---|---:|---:|");
  names.forEach((name, index) => {
    const own = rates[index]!;
    const ratios = own.map((rate, round) => rate / base[round]!);
    console.log(
      `| ${name} | ${fmt(median(own))} (${fmt(Math.min(...own))}–${fmt(Math.max(...own))}) | ${
        median(ratios).toFixed(2)
      }× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`,
    );
  });
  if (names.includes("ours B")) {
    const a = rates[names.indexOf("ours")]!, b = rates[names.indexOf("ours B")]!;
    const ratios = b.map((rate, round) => rate / a[round]!);
    console.log(
      `\n- ours B ÷ ours, per round: median ${median(ratios).toFixed(2)}× (${
        Math.min(...ratios).toFixed(2)
      }–${Math.max(...ratios).toFixed(2)})`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
