// The floor for `commits show`: list the timeline directory and read the same completed instant
// files, nothing else. Default: synchronously, the way tblcli's local storage reads whole files
// (the strict floor). `--async`: fs.promises.readFile with 16 in flight, the common Node idiom.
// Usage: node bench/floor-read.mjs <table> <layout> [--async]
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const [base, layout, mode] = process.argv.slice(2);
const dir = layout === '2' ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
const names = readdirSync(dir).filter((n) => /^\d+(_\d+)?\.(commit|deltacommit|replacecommit)$/.test(n));
let bytes = 0;
if (mode === '--async') {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < names.length) {
        const data = await readFile(join(dir, names[next++]));
        bytes += data.length;
      }
    }),
  );
} else {
  for (const n of names) bytes += readFileSync(join(dir, n)).length;
}
process.stdout.write(`${names.length} files ${bytes} bytes\n`);
