// The CLI as bin/tblcli.js runs it, as an entry for bundleForTest: tests that need tblcli as a real
// process (stand-in engines run it; signals are sent to it) bundle this instead of relying on dist/.
import { main, outputSettled } from '../../commands/main.ts';

const code = await main(process.argv.slice(2));
if (code === 130 || outputSettled()) process.exit(code);
process.exitCode = code;
