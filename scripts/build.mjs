// Bundles commands/main.ts into dist/ with code splitting so heavy modules
// (avsc, hyparquet, ink) load only when a command needs them.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { tblcli: 'commands/main.ts', 'bench-lib': 'bench/lib.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: new URL('..', import.meta.url).pathname,
});
