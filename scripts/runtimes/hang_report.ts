/**
 * Evidence for a test run that does not finish: shortly before the run's time limit, lists the
 * run's processes that are still alive (with their CPU use), asks each Node process among them for
 * a diagnostic report (`--report-on-signal`, SIGUSR2), and prints, per report, the command line,
 * the JavaScript stack and the libuv handles still open. Node writes a report when its event loop
 * next runs: a process stuck in JavaScript or in Node's own teardown writes none, and its `ps` line
 * is the evidence (then attach gdb: `gdb -p PID -batch -ex bt`). Without this, a hang killed by the
 * time limit says only which file printed last, not which process is stuck or where.
 *
 * Written for Node 18.17.1's intermittent hang at exit (a test process spinning after its tests
 * passed; gdb later showed V8's FinalizationRegistry cleanup looping in teardown, which
 * node18_exit.cjs now avoids, see node.ts), and kept as a safety net for the next hang.
 *
 * @module
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The signal that makes Node write a report, as given in {@link reportOptions}. */
const REPORT_SIGNAL = "SIGUSR2";

/** What a run needs to be observable: its `NODE_OPTIONS` and where reports land. */
export interface HangWatch {
  /** Environment for the run: `NODE_OPTIONS` enabling reports on {@link REPORT_SIGNAL}. */
  readonly env: Record<string, string>;
  /** Starts the countdown; returns a function that stops it (call it when the run ends). */
  arm(afterSeconds: number, marker: string): () => void;
  /** Prints the reports written so far, if any, and removes the folder. */
  finish(): void;
}

/** One line of `ps`: a process of the run. */
interface ProcessLine {
  readonly pid: number;
  readonly cpu: string;
  readonly seconds: string;
  readonly args: string;
}

/** The processes whose command line contains `marker` (the binary's path, for instance). */
async function processesOf(marker: string): Promise<ProcessLine[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,pcpu=,etimes=,args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(ps.stdout).split("\n")
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && match[4]!.includes(marker))
    .map((match) => ({ pid: Number(match[1]), cpu: match[2]!, seconds: match[3]!, args: match[4]! }));
}

/**
 * Prepares a watch for one run.
 *
 * @returns The environment to run with, the countdown, and the report printer.
 */
export function watchForHang(): HangWatch {
  const dir = mkdtempSync(join(tmpdir(), "node-hang-report-"));
  return {
    env: {
      NODE_OPTIONS: `--report-on-signal --report-signal=${REPORT_SIGNAL} --report-directory=${dir}`,
    },
    arm(afterSeconds, marker) {
      const timer = setTimeout(async () => {
        // Evidence is a bonus: without `ps` (a minimal image), the hang is still reported and re-run.
        const alive = await processesOf(marker).catch((err) => {
          console.log(`  ⏱ cannot list the run's processes: ${err}`);
          return [];
        });
        console.log(`  ⏱ still running after ${afterSeconds} s (pid, %cpu, seconds, command):`);
        for (const { pid, cpu, seconds, args } of alive) {
          console.log(`    ${pid} ${cpu}% ${seconds}s ${args.slice(0, 160)}`);
          try {
            Deno.kill(pid, REPORT_SIGNAL);
          } catch {
            // It ended meanwhile.
          }
        }
      }, afterSeconds * 1000);
      return () => clearTimeout(timer);
    },
    finish() {
      for (const name of readdirSync(dir)) {
        const report = JSON.parse(readFileSync(join(dir, name), "utf8"));
        console.log(`  report of ${report.header?.commandLine?.join(" ")}`);
        // The report is written when the event loop next runs: a process spinning in JavaScript
        // writes none (the `ps` line above still names it); one spinning in the loop writes an empty stack.
        console.log(`    JavaScript stack: ${report.javascriptStack?.message || "(none running)"}`);
        for (const frame of (report.javascriptStack?.stack ?? []).slice(0, 15)) console.log(`      ${frame}`);
        const handles = (report.libuv ?? []).filter((handle: { is_active?: boolean }) => handle.is_active);
        console.log(
          `    active libuv handles: ${
            handles.map((handle: { type: string; localEndpoint?: { port?: number } }) =>
              handle.type + (handle.localEndpoint?.port ? `:${handle.localEndpoint.port}` : "")
            ).join(", ") || "none"
          }`,
        );
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
