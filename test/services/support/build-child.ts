// Bundles test/services/support/compaction-child.ts into a standalone script the crash and takeover
// tests spawn (and SIGKILL) as a real child process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

export async function buildCompactionChild(): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'tblcli-child-')), 'child.mjs');
  await build({
    entryPoints: [resolve(import.meta.dirname, 'compaction-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return out;
}
