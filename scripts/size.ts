/**
 * The size budgets of the npm package, measured as an application bundler ships it: esbuild bundles
 * the built package (browser conditions with `production`, as Vite and webpack set them in a
 * production build; minified ESM, code splitting on) into two applications of
 * `scripts/size/`, and each output file is gzipped on its own (zlib's default level), as it travels.
 *
 * - (a) `everything.ts`, a user of everything: every chunk counts. Budget 3,072 B (aim: 2,500 B).
 * - (b) `api_key.ts`, a user of API key auth only: the entry and the chunks it imports statically,
 *   that is what loads before the first request; a chunk reached only through `import()` does not
 *   count. Budget 2,048 B.
 *
 * The budgets are issue 4's targets, and they are NOT met today: the core alone (validation with
 * messages that name the field, unknown-key detection, leak-proof errors, retries with Retry-After,
 * clock skew, one listener per shared signal) is about 2.88 times budget (b), and its logic without
 * any string literal is still over it. The script prints how far over each one is, and fails above
 * a regression ceiling a little over the last measured size, so that CI catches growth while the
 * budgets are decided. Lower the ceilings as the bundles shrink; never raise them silently.
 *
 * - (r) `realtime.ts`, a subscriber: the `./realtime` entry's own output files, those its application
 *   loads (statically or through `import()`) and the API-key application does not, bundled together
 *   as one application's two pages. Budget 2,560 B, enforced.
 *
 * Usage: `deno task size` (`--no-build` to use npm/ as built, `--print` to show the bundles, `--floor`
 * to print each total with every string literal emptied too: the logic alone, see `string_floor.ts`).
 * Exits with 1 above a ceiling.
 *
 * @module
 */

import { gzipSync } from "node:zlib";
import { buildNpm } from "./build_npm.ts";
import { bundle, type OutputFile, stopBundler } from "./npm/bundle.ts";
import { stringFloor } from "./string_floor.ts";

/** A measured application. */
interface Budget {
  readonly name: string;
  readonly entry: string;
  readonly budget: number;
  /**
   * The regression ceiling CI enforces until the budget is met: the last measurement plus ~2%. Raised
   * once, on 2026-11-21, from 7,800 and 5,400 B: the review fixes (clock skew in browsers, auth read
   * on every attempt, secrets as numbers, …) took (a) from 7,664 to 7,846 B and (b) from 5,340 to 5,506.
   * Lowered the next session to 7,910 and 5,240 B, after the iam-only code moved into the iam chunk and
   * the inspect hook out of browser bundles ((a) 7,759 B, (b) 5,131 B), and framing headers refused
   * (+44 B: 7,802 and 5,175 B). Raised a second time, to 8,080 and 5,420 B, for the fixes of two
   * reviews (session 6): a non-2xx status kept when its body cannot be read, malformed `errors` and
   * `data` refused, property getters never called by the constructor and typed when they throw, the
   * region checked per attempt, a bounded clock-skew Date, stricter signal and document checks, URL
   * redaction without `//` — (a) 7,800 → 8,000 B, (b) 5,175 → 5,362 B. Raised a third time, to
   * 8,700 and 5,850 B, for the fixes of session 11's reviews: the call's timeout and signal cover the
   * lazy loads (printer, introspection) and a failed load is a retried network error, an async or
   * non-boolean `shouldRetry` answer, variables that JSON would not send as an object refused,
   * caller headers with control characters refused, `AbortSignal.timeout()` read as a timeout, a
   * typed error where there is no `crypto.subtle` — (a) 8,077 → 8,540 B, (b) 5,378 → 5,739 B; then
   * a request's own `retry`: (a) 8,570 B, (b) 5,772 B. Lowered the same day to 8,640 and 5,820 B:
   * a fourth round of reviews added 94 B and 85 B, and five trims that change no behaviour took 113 B
   * and 100 B off ((a) 8,551 B, (b) 5,757 B). Raised a fourth time, to 8,700 and 5,880 B (session
   * 13): an iam region or access key ID that would break the credential scope (a `/`, a space, a
   * comma) is refused at construction and per attempt, and a provider's answer is checked for
   * misspelt keys (STS's `SessionToken`, which TypeScript lets through in a function's result) —
   * (a) 8,551 → 8,618 B, (b) 5,757 → 5,828 B; a `Headers` polyfill without a tag read as the
   * iterable it is (whatwg-fetch's; its own `map` field was sent as a header): 8,627 and 5,837 B;
   * a `Retry-After` date read against the response's `Date`, the call's deadline on
   * `performance.now()`, an abort during a synchronous `shouldRetry` kept: 8,651 and 5,856 B; the
   * re-read gave the key ID check the region's regular expression: 8,645 and 5,852 B. Raised a
   * fifth time, to 8,760 and 5,940 B (session 14), for a review from the server's side: an HTTP
   * error's message without the reason phrase, and its reason phrase and headers behind getters (a
   * server or proxy may echo the request there), a clock-skew `Date` taken only when plausible
   * (2024 to 9998: a late-9999 `Date` had left the client signing five-digit years), an `extensions`
   * that is not an object refused and a `null` one dropped: 8,699 and 5,888 B.
   */
  readonly ceiling: number;
  /** Which output files count. */
  readonly counts: "all" | "before-first-request";
}

const BUDGETS: readonly Budget[] = [
  {
    name: "(a) everything",
    entry: "scripts/size/everything.ts",
    budget: 3_072,
    ceiling: 8_760,
    counts: "all",
  },
  {
    name: "(b) apiKey only",
    entry: "scripts/size/api_key.ts",
    budget: 2_048,
    ceiling: 5_940,
    counts: "before-first-request",
  },
];

/** The entry and every output it reaches through static imports, transitively. */
function staticClosure(files: readonly OutputFile[]): Set<string> {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const item of byPath.get(path)?.imports ?? []) if (!item.dynamic) visit(item.path);
  };
  for (const file of files) if (file.entry) visit(file.path);
  return reached;
}

/** The budget of the real-time entry's own chunks, enforced (not a regression ceiling). */
const REALTIME_BUDGET = 2_560;

/** The files an entry loads, through static imports and `import()`, transitively. */
function loadedBy(files: readonly OutputFile[], entry: string): Set<string> {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const item of byPath.get(path)?.imports ?? []) visit(item.path);
  };
  visit(entry);
  return reached;
}

/**
 * Bundles the subscriber beside the API-key application and measures what the subscriber alone
 * loads: the real-time entry's own chunks.
 *
 * @param print Print the bundled code too.
 * @returns The counted gzipped bytes.
 */
export async function measureRealtime(print = false): Promise<number> {
  const files = (await bundle({
    entries: { core: "scripts/size/api_key.ts", realtime: "scripts/size/realtime.ts" },
    format: "esm",
    minify: true,
    conditions: ["production"],
  })).filter((file) => file.path.endsWith(".js"));
  const core = loadedBy(files, "core.js");
  let total = 0;
  console.log("(r) realtime, beyond the core (scripts/size/realtime.ts beside scripts/size/api_key.ts)");
  for (const path of loadedBy(files, "realtime.js")) {
    const file = files.find((file) => file.path === path)!;
    const size = gzipped(file.text);
    if (!core.has(path)) total += size;
    console.log(
      `  ${path.padEnd(34)} ${String(file.text.length).padStart(6)} B min ${String(size).padStart(6)} B gz  ${
        core.has(path) ? "shared with the core, not counted" : "realtime's own"
      }`,
    );
    if (print && !core.has(path)) console.log(file.text);
  }
  console.log(
    `  total: ${total} B gzipped, budget ${REALTIME_BUDGET} B: ${
      total <= REALTIME_BUDGET ? "within budget" : `OVER BUDGET by ${total - REALTIME_BUDGET} B`
    }`,
  );
  return total;
}

/** The gzipped size of a file's text. */
function gzipped(text: string, level?: number): number {
  return gzipSync(new TextEncoder().encode(text), level === undefined ? {} : { level }).length;
}

/**
 * Bundles and measures one application.
 *
 * @param budget The application and its budget.
 * @param print Print the bundled code too.
 * @param floor Print the counted total with every string literal emptied too.
 * @returns The counted gzipped bytes.
 */
export async function measure(budget: Budget, print = false, floor = false): Promise<number> {
  const files = (await bundle({
    entries: { app: budget.entry },
    format: "esm",
    minify: true,
    conditions: ["production"],
  }))
    .filter((file) => file.path.endsWith(".js"));
  const loadedFirst = staticClosure(files);
  const counted = budget.counts === "all" ? new Set(files.map((file) => file.path)) : loadedFirst;
  let total = 0;
  let totalBest = 0;
  let totalFloor = 0;
  console.log(`${budget.name} (${budget.entry})`);
  for (const file of files) {
    const size = gzipped(file.text);
    const counts = counted.has(file.path);
    if (counts) [total, totalBest] = [total + size, totalBest + gzipped(file.text, 9)];
    if (counts && floor) totalFloor += stringFloor(file.text).gzipped;
    const role = (file.entry ? "entry" : loadedFirst.has(file.path) ? "static chunk" : "lazy chunk") +
      (counts ? "" : ", not counted");
    console.log(
      `  ${file.path.padEnd(34)} ${String(file.text.length).padStart(6)} B min ${
        String(size).padStart(6)
      } B gz  ${role}`,
    );
    if (print) console.log(file.text);
  }
  const verdict = total <= budget.budget
    ? "within budget"
    : `OVER BUDGET by ${total - budget.budget} B (${(total / budget.budget).toFixed(2)}x)`;
  console.log(
    `  total: ${total} B gzipped (${totalBest} B at level 9), budget ${budget.budget} B: ${verdict}; ` +
      `regression ceiling ${budget.ceiling} B: ${total <= budget.ceiling ? "ok" : "EXCEEDED"}`,
  );
  if (floor) {
    console.log(
      `  with every string literal emptied (logic alone): ${totalFloor} B gzipped, ` +
        `${(totalFloor / budget.budget).toFixed(2)}x budget`,
    );
  }
  return total;
}

if (import.meta.main) {
  try {
    if (!Deno.args.includes("--no-build")) buildNpm();
    let overBudget = 0, overCeiling = 0;
    for (const budget of BUDGETS) {
      const total = await measure(budget, Deno.args.includes("--print"), Deno.args.includes("--floor"));
      if (total > budget.budget) overBudget++;
      if (total > budget.ceiling) overCeiling++;
    }
    const realtimeOver = await measureRealtime(Deno.args.includes("--print")) > REALTIME_BUDGET;
    await stopBundler();
    console.log(`size budgets (issue 4): ${BUDGETS.length - overBudget} met, ${overBudget} not met`);
    console.log(`size: ${BUDGETS.length - overCeiling} passed, ${overCeiling} failed (regression ceilings)`);
    console.log(`size (realtime): ${realtimeOver ? "0 passed, 1 failed" : "1 passed, 0 failed"}`);
    Deno.exit(overCeiling || realtimeOver ? 1 : 0);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    Deno.exit(1);
  }
}
