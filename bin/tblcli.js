#!/usr/bin/env node
// Launcher: run the bundled CLI; main() returns the exit code so piped stdout drains fully.
// 130 (Ctrl-C) exits at once: table services are crash-safe (the next run rolls back and retries).
const { main } = await import('../dist/tblcli.js');
const code = await main(process.argv.slice(2));
if (code === 130) process.exit(130);
process.exitCode = code;
