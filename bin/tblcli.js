#!/usr/bin/env node
// Launcher: run the bundled CLI; main() returns the exit code so piped stdout drains fully.
const { main } = await import('../dist/tblcli.js');
process.exitCode = await main(process.argv.slice(2));
