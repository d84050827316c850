// Bundles commands/main.ts into dist/ with code splitting so heavy modules
// (avsc, hyparquet, ink) load only when a command needs them.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

// commander requires node:child_process at load time, only to spawn executable subcommands, which
// tblcli never uses; give it a lazy stand-in so every start does not pay for child_process and net.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'child_process', namespace: 'lazy-cp' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-cp' }, () => ({
      contents: "let cp; module.exports = new Proxy({}, { get: (_, k) => (cp ??= require('node:child_process'))[k] });",
      loader: 'js',
    }));
  },
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  // workers (a file group's compaction merge; `commits show` totals) run beside the library's chunks
  entryPoints: {
    tblcli: 'commands/main.ts',
    'bench-lib': 'bench/lib.ts',
    'compaction-worker': 'src/services/compaction/worker.ts',
    'totals-worker': 'src/table/totals-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay external (loaded lazily by the commands that need them), except commander:
  // it is needed on every start, and bundled it loads without the CommonJS loader.
  external: ['avsc', 'hyparquet', 'hyparquet-writer', 'hyparquet-compressors', 'ink', 'react', 'chalk', 'cli-table3'],
  sourcemap: 'linked',
  minify: process.env.TBLCLI_BUILD_MINIFY !== '0', // 0: readable names in CPU profiles
  // bundled CommonJS (commander) requires node builtins; the require function is made on first use,
  // not in each of the ~10 chunks every start loads
  banner: {
    js: "import { createRequire as __tblcliRequire } from 'node:module'; let __tblcliReq; const require = (id) => (__tblcliReq ??= __tblcliRequire(import.meta.url))(id);",
  },
  logLevel: 'warning',
  plugins: [lazyChildProcess],
  absWorkingDir: new URL('..', import.meta.url).pathname,
});
