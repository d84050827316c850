// Bundles a source entry for tests that start it as a real child process or worker. The output goes
// inside the project (node_modules/.cache/tblcli-test/<run>/), never to the OS temp directory: a
// bundle's external packages (avsc, hyparquet-writer …) resolve from the directory it sits in, so a
// bundle in /tmp works only where some node_modules happens to sit above /tmp.
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

export const ROOT = resolve(import.meta.dirname, '../..');

/** This run's bundle directory (removed by global-setup's teardown). */
export function testBuildRoot(): string {
  const run = process.env.TBLCLI_TEST_RUN ?? `pid-${process.pid}`;
  return join(ROOT, 'node_modules', '.cache', 'tblcli-test', basename(run));
}

export interface Bundle {
  path: string;
  url: URL;
  dir: string;
}

/** Bundles `entry` (relative to the project root) into a fresh directory of this run's build root. */
export async function bundleForTest(entry: string, outName: string, opts: Partial<BuildOptions> = {}): Promise<Bundle> {
  const root = testBuildRoot();
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, `${outName.replace(/\W/g, '-')}-`));
  const path = join(dir, outName);
  await build({
    entryPoints: [resolve(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: path,
    logLevel: 'error',
    ...opts,
  });
  return { path, url: pathToFileURL(path), dir };
}

/**
 * The CLI bundled with every package inside it (code-split, so the terminal browser's ink loads only
 * when used), into a new directory of `dir` readable by everyone: for a test that runs tblcli as
 * another, unprivileged user, who may not reach this checkout (a clone under a 0700 temp directory).
 * Returns the entry file and the directory (the caller removes it).
 */
export async function selfContainedCli(dir: string): Promise<{ entry: string; dir: string }> {
  const out = mkdtempSync(join(dir, 'tblcli-cli-'));
  await build({
    entryPoints: [resolve(ROOT, 'test/support/cli-entry.ts')],
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    logLevel: 'error',
    // ink's devtools, imported only under DEV=true
    external: ['react-devtools-core'],
    // CommonJS packages (avsc) require Node's modules
    banner: { js: "import { createRequire as __tblcliRequire } from 'node:module'; const require = __tblcliRequire(import.meta.url);" },
  });
  chmodSync(out, 0o755);
  return { entry: join(out, 'cli-entry.js'), dir: out };
}
