// Preloaded (`node --import`) into each process bench/triage.mjs times: writes the process's peak RSS
// (KB) and CPU time (user + system of all its threads, µs) to fd 3 when it exits (the CLI launcher
// exits with process.exit, which still emits 'exit'). CPU time is steadier than wall time on a
// shared machine. Worker threads load this module too: only the main thread reports.
import { writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  process.on('exit', () => {
    try {
      const u = process.resourceUsage();
      writeSync(3, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}\n`);
    } catch {
      // not started by the benchmark (no fd 3)
    }
  });
}
