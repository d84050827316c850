// One temp root per test run: every test's os.tmpdir() is a fresh directory under the machine's temp
// directory, removed when the run ends (so repeated runs do not fill it), and the run's test bundles
// (test/support/bundle.ts) are removed with it. The temp root must not sit below a node_modules: a
// file placed there could then resolve packages it should not (the bug a bundle in /tmp once hid).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { testBuildRoot } from './bundle.ts';

/** The first ancestor of `dir` (itself included) holding a node_modules directory, if any. */
export function nodeModulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

export default function setup(): () => void {
  const base = tmpdir();
  const run = mkdtempSync(join(base, 'tblcli-test-'));
  process.env.TMPDIR = run;
  process.env.TBLCLI_TEST_RUN = basename(run);
  return () => {
    rmSync(run, { recursive: true, force: true });
    rmSync(testBuildRoot(), { recursive: true, force: true });
  };
}
