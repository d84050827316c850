// Bundles a source entry for tests that start it as a real child process or worker. The output goes
// inside the project (node_modules/.cache/tblcli-test/<run>/), never to the OS temp directory: a
// bundle's external packages (avsc, hyparquet-writer …) resolve from the directory it sits in, so a
// bundle in /tmp works only where some node_modules happens to sit above /tmp.
import { mkdirSync, mkdtempSync } from 'node:fs';
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

