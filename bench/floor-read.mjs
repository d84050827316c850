// The floor for `commits show`: list the timeline directory and read the same completed instant
// files the way tblcli's local storage reads whole files (synchronously), nothing else.
// Usage: node bench/floor-read.mjs <table> <layout>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [base, layout] = process.argv.slice(2);
const dir = layout === '2' ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
const names = readdirSync(dir).filter((n) => /^\d+(_\d+)?\.(commit|deltacommit|replacecommit)$/.test(n));
let bytes = 0;
for (const n of names) bytes += readFileSync(join(dir, n)).length;
process.stdout.write(`${names.length} files ${bytes} bytes\n`);
