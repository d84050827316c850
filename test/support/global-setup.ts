// One temp root per test run: every test's os.tmpdir() is a fresh directory under the machine's temp
// directory, removed when the run ends (so repeated runs do not fill it), and the run's test bundles
// (test/support/bundle.ts) are removed with it; HOME is a directory inside it. The temp root must not sit below a node_modules: a
// file placed there could then resolve packages it should not (the bug a bundle in /tmp once hid).
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
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

export default function setup(): () => Promise<void> {
  const base = tmpdir();
  const run = mkdtempSync(join(base, 'tblcli-test-'));
  process.env.TMPDIR = run;
  // and a home of its own: the programs tests start (less, fish, zsh, tmux) write their history and
  // config there, not into the user's home
  const home = join(run, 'home');
  mkdirSync(home);
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  process.env.XDG_DATA_HOME = join(home, '.local', 'share');
  process.env.XDG_STATE_HOME = join(home, '.local', 'state');
  process.env.XDG_CACHE_HOME = join(home, '.cache');
  process.env.TBLCLI_TEST_RUN = basename(run);
  // asynchronous: a run leaves thousands of files there, and a synchronous delete would keep this
  // process from seeing the last test workers exit (vitest then warns it timed out terminating them)
  return async () => {
    await rm(run, { recursive: true, force: true });
    await rm(testBuildRoot(), { recursive: true, force: true });
  };
}
