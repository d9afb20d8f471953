/**
 * The package through the application bundlers its users build with, each with its own resolver:
 * Vite 8 (Rolldown), Vite 7 (Rollup) and webpack 5 for the browser, webpack 5 for Node (a
 * server-side bundle). The other runs bundle with esbuild, or load the package as files; this one
 * proves that the `exports`, the `#crypto` import map of package.json and the lazy chunks survive
 * the bundlers themselves.
 *
 * For each bundler, the checks' entry (`checks/browser_page.ts`, or `checks/bundled_node_entry.ts`
 * for Node) is first made plain JavaScript by esbuild with the package left as an import, placed in
 * an app folder where the package is installed from its `npm pack` tarball, then built in
 * production mode by tests/bundlers/build.mjs under Node 22, with nothing set but the entry (an
 * index.html for Vite) and the output folder (the bundlers are pinned in
 * tests/bundlers/package.json).
 * One more webpack build for the browser starts from CommonJS (`require`), which resolves the
 * package's cjs/ files and `#crypto` under the `browser` condition.
 * A run fails on a build error or warning, on the wrong crypto variant (the browser builds must use
 * Web Crypto and never name `node:crypto`; the Node build must use `node:crypto`), and on any
 * failed check: the browser builds run in headless Chromium against the local endpoint (another
 * origin: CORS), served from the site's root; the Node build on Node 18.17.1 (with the exit
 * preload of the Node 18 runs, see node.ts).
 *
 * Usage: `deno task test:bundlers` (`--no-build` to use npm/ as built).
 *
 * @module
 */

import { type Browser, chromium } from "playwright-core";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { bundle, stopBundler } from "../npm/bundle.ts";
import { CHROMIUM, CHROMIUM_ARGS, pageChecks, serveFiles } from "./chromium.ts";
import {
  type CheckLine,
  checkLines,
  installPackage,
  prepare,
  reportChecks,
  ROOT,
  type RunResult,
  runScript,
} from "./common.ts";
import { type RuntimeEndpoint, startRuntimeEndpoint } from "./endpoint.ts";
import { capture, NODE18_EXIT, NODES, onceMoreIfHung } from "./node.ts";

const BUNDLERS_DIR = `${ROOT}/tests/bundlers`;
const PACKAGE = ["@seed/service-client", "@seed/service-client/sigv4"];

/** One application build. */
interface Build {
  /** The build.mjs argument. */
  readonly bundler: "vite" | "vite7" | "webpack-web" | "webpack-node";
  /** What the label adds to the bundler's name and version (which the build prints). */
  readonly label: string;
  readonly platform: "browser" | "node";
  /** The entry, in the app folder. */
  readonly entry: "index.html" | "browser.js" | "browser_require.js" | "node.js";
}

const BUILDS: readonly Build[] = [
  { bundler: "vite", label: "(browser)", platform: "browser", entry: "index.html" },
  { bundler: "vite7", label: "(browser)", platform: "browser", entry: "index.html" },
  { bundler: "webpack-web", label: "(web)", platform: "browser", entry: "browser.js" },
  { bundler: "webpack-web", label: "(web, require)", platform: "browser", entry: "browser_require.js" },
  { bundler: "webpack-node", label: "(node18.17)", platform: "node", entry: "node.js" },
];

/** The app's page, for Vite to build (it rewrites the script tag to the built entry). */
const VITE_PAGE = `<!doctype html><meta charset="utf-8"><title>service-client (vite)</title>
<script type="module" src="./browser.js"></script>`;
/** The page for webpack's build: a classic script, webpack's default output. */
const WEBPACK_PAGE = `<!doctype html><meta charset="utf-8"><title>service-client (webpack)</title>
<script src="/main.js"></script>`;

/** Each file under `dir`, by its path relative to it (with `/`). */
function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path).replaceAll("\\", "/"), readFileSync(path, "utf8"));
  }
  return files;
}

function line(name: string, error: string | undefined): CheckLine {
  return { name, ok: error === undefined, ms: 0, ...(error === undefined ? {} : { error }) };
}

/**
 * The build's own checks: it succeeded without a warning, and took the crypto variant of its
 * platform.
 */
function buildChecks(
  build: Build,
  run: { code: number; output: string },
  files: Map<string, string>,
): CheckLine[] {
  const warnings = run.output.split("\n").find((text) => text.startsWith("warnings: "));
  const built = run.code === 0 && warnings !== undefined;
  const code = [...files].filter(([path]) => path.endsWith(".js")).map(([, text]) => text).join("\n");
  const usesNodeCrypto = /node:crypto/.test(code) && /createHmac/.test(code);
  const usesWebCrypto = /\.subtle\b/.test(code);
  // A browser build gets `crypto_web`: not even the dual file's `process.getBuiltinModule("crypto")`.
  const namesNodeCrypto = /node:crypto|getBuiltinModule/.test(code);
  const variant = build.platform === "browser"
    ? (usesWebCrypto && !namesNodeCrypto ? undefined : "expected Web Crypto alone, no node:crypto")
    : (usesNodeCrypto && !usesWebCrypto ? undefined : "expected node:crypto and no Web Crypto");
  return [
    line(
      `${build.bundler}: the production build succeeds`,
      built ? undefined : `exit ${run.code}: ${run.output}`,
    ),
    line(
      `${build.bundler}: with no warning`,
      built && warnings === "warnings: []" ? undefined : warnings ?? "no warnings line",
    ),
    line(
      `${build.bundler}: the ${
        build.platform === "browser" ? "Web Crypto" : "node:crypto"
      } signer is the one bundled`,
      built ? variant : "not built",
    ),
  ];
}

/** The built page in Chromium, served from the root of its own origin. */
async function runInChromium(
  browser: Browser,
  build: Build,
  files: Map<string, string>,
  base: string,
): Promise<CheckLine[]> {
  const served = new Map([...files].map(([path, text]) => [`/${path}`, text]));
  served.set("/", build.bundler.startsWith("vite") ? files.get("index.html") ?? "" : WEBPACK_PAGE);
  const server = await serveFiles(served);
  try {
    return await pageChecks(browser, `${server.origin}/?endpoint=${encodeURIComponent(base)}&any=1`);
  } finally {
    await server.close();
  }
}

/** The Node build on Node 18.17.1, with the exit preload, once more if it hangs (as node.ts does). */
async function runOnNode18(outDir: string, base: string): Promise<CheckLine[]> {
  const args = ["--require", NODE18_EXIT, join(outDir, "main.js"), base];
  const run = await onceMoreIfHung("node 18", () => capture(NODES["18"]!, args));
  return checkLines(run, "the checks ran, and Node exited with 0");
}

/**
 * Builds the checks with each bundler and runs each build.
 *
 * @returns One result per build.
 */
export async function runBundlers(): Promise<RunResult[]> {
  // Not `npm ci`: as for .ci/ (see .ci/run), the lock lacks the optional binaries of other
  // platforms, which this registry does not have; `--no-save` installs what the lock pins.
  const install = await capture("npm", [
    "install",
    "--prefix",
    BUNDLERS_DIR,
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ]);
  if (install.code !== 0) throw new Error(`Cannot install the bundlers: ${install.output}`);
  const work = mkdtempSync(join(tmpdir(), "service-client-bundlers-"));
  const app = join(work, "app");
  let endpoint: RuntimeEndpoint["endpoint"] | undefined;
  let browser: Browser | undefined;
  try {
    await installPackage(app);
    const entries = { browser: "checks/browser_page.ts", node: "checks/bundled_node_entry.ts" } as const;
    const apps = [["browser", entries.browser, "esm"], ["browser_require", entries.browser, "cjs"], [
      "node",
      entries.node,
      "esm",
    ]] as const;
    for (const [name, entry, format] of apps) {
      const [output, ...more] = await bundle({
        entries: { [name]: `scripts/runtimes/${entry}` },
        format,
        external: PACKAGE,
      });
      if (!output || more.length) {
        throw new Error(`esbuild made ${more.length + 1} files of ${entry}, not one`);
      }
      writeFileSync(join(app, `${name}.js`), output.text);
    }
    writeFileSync(join(app, "index.html"), VITE_PAGE);

    const started = await startRuntimeEndpoint();
    endpoint = started.endpoint;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
    const results: RunResult[] = [];
    for (const build of BUILDS) {
      const buildStarted = performance.now();
      const outDir = join(work, `dist-${build.entry}-${build.bundler}`);
      const run = await capture(NODES["22"]!, [
        join(BUNDLERS_DIR, "build.mjs"),
        build.bundler,
        join(app, build.entry),
        outDir,
      ]);
      const files = run.code === 0 ? readTree(outDir) : new Map<string, string>();
      const bundler = run.output.match(/^bundler: (.+)$/m)?.[1] ?? build.bundler;
      let label = `${bundler} ${build.label}`;
      console.log(`${label}: ${[...files.keys()].join(", ") || "no output"}`);
      const lines = buildChecks(build, run, files);
      if (run.code === 0 && build.platform === "browser") {
        lines.push(...await runInChromium(browser, build, files, started.base));
        label += ` on chromium ${browser.version()}`;
      } else if (run.code === 0) {
        lines.push(...await runOnNode18(outDir, started.base));
        label += ` on node ${(await capture(NODES["18"]!, ["--version"])).output.trim().replace(/^v/, "")}`;
      }
      console.log(label);
      results.push(reportChecks(label, lines, buildStarted));
    }
    return results;
  } finally {
    await stopBundler();
    await browser?.close();
    await endpoint?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runScript(() => {
    prepare(Deno.args);
    return runBundlers();
  });
}
