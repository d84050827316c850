// Listing-only floor for bench/fsview.mjs: list the given directories and stat every entry, 16 at a
// time (what LocalStorage.list does for the file-system view). Prints the number of entries.
// Usage: node bench/fsview-floor.mjs <dirs.json>
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const queue = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let n = 0;
async function worker() {
  while (queue.length) {
    const d = queue.pop();
    const names = await readdir(d);
    const st = await Promise.all(names.map((x) => stat(join(d, x))));
    n += st.length;
  }
}
await Promise.all(Array.from({ length: 16 }, worker));
process.stdout.write(String(n));
