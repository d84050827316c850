#!/usr/bin/env node
// Launcher: run the bundled CLI; main() returns the exit code once the command is done (all it
// starts is awaited). 130 (Ctrl-C) exits at once: table services are crash-safe (the next run rolls
// back and retries). When the output has gone out too (written on the descriptor, or drained),
// exit now: letting the event loop run down tears the whole environment down first (5–15 ms after
// a 20k-instant listing); otherwise the loop drains what a stream still holds.
const { main, outputSettled } = await import('../dist/tblcli.js');
const code = await main(process.argv.slice(2));
if (code === 130 || outputSettled()) process.exit(code);
process.exitCode = code;
