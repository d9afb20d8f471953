// Preloaded (`--require`) into every Node 18 test process by scripts/runtimes/node.ts.
//
// Node 18.17.1 can spin forever at 100% CPU after a process's last event, when it tears its
// environment down: V8's FinalizationRegistry cleanup task re-posts itself while the platform drains
// its tasks (gdb: FreeEnvironment > NodePlatform::DrainTasks > FinalizationRegistryCleanupTask::
// RunInternal; nodejs/node#47748). Node's own fetch (undici) registers in such registries, so any
// process that used fetch is exposed. This makes the process exit with its own exit code at its
// 'exit' event, which comes after every test has run and reported and before that teardown.
"use strict";
process.on("exit", (code) => process.exit(code));
