// Every file under a directory (recursively), for tests that compare a table's files before and after.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

export function allFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) allFiles(p, out);
    else out.push(p);
  }
  return out;
}

/** Every file under `dir` (relative path → SHA-1 of its bytes), minus paths `skip` matches: "byte-identical afterwards" checks. */
export function treeDigest(dir: string, skip: RegExp = /^$/): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of allFiles(dir).sort()) {
    const rel = relative(dir, f);
    if (skip.test(rel)) continue;
    out.set(rel, lstatSync(f).isSymbolicLink() ? `symlink to ${readlinkSync(f)}` : createHash('sha1').update(readFileSync(f)).digest('hex'));
  }
  return out;
}

/** Lock and heartbeat files: the only ones a refused write may leave changed (issue 13 §3). */
export const LOCKS_AND_HEARTBEATS = /^\.hoodie\/(\.aux\/lock|\.heartbeat(\/|$))/;
