// The floor for `commits show`: list the timeline directory and read the same completed instant
// files (16 in flight, as tblcli does), nothing else. Usage: node bench/floor-read.mjs <table> <layout>
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const [base, layout] = process.argv.slice(2);
const dir = layout === '2' ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
const names = (await readdir(dir)).filter((n) => /^\d+(_\d+)?\.(commit|deltacommit|replacecommit)$/.test(n));
let next = 0;
let bytes = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < names.length) {
      const n = names[next++];
      bytes += (await readFile(join(dir, n))).length;
    }
  }),
);
process.stdout.write(`${names.length} files ${bytes} bytes\n`);
