// Every file under a directory (recursively), for tests that compare a table's files before and after.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function allFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) allFiles(p, out);
    else out.push(p);
  }
  return out;
}
