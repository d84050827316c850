// Bundles commands/main.ts into dist/ with code splitting so heavy modules
// (avsc, hyparquet, ink) load only when a command needs them.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

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

// The MCP SDK's Server builds an Ajv JSON-schema validator at load, for one use: checking an
// elicitation reply against its schema. tblcli's server never elicits, so the bundle gets a
// validator that refuses instead of Ajv and ajv-formats (a third of the SDK chunk's load time).
const noAjv = {
  name: 'no-ajv',
  setup(b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes('node_modules/@modelcontextprotocol/sdk/') ? { path: 'ajv-provider', namespace: 'no-ajv' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-ajv' }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { getValidator() { throw new Error('tblcli mcp validates no JSON schemas (it never elicits)'); } }",
      loader: 'js',
    }));
  },
};

const common = {
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
  // not in each chunk
  banner: {
    js: "import { createRequire as __tblcliRequire } from 'node:module'; let __tblcliReq; const require = (id) => (__tblcliReq ??= __tblcliRequire(import.meta.url))(id);",
  },
  logLevel: 'warning',
  absWorkingDir: root,
};

/** The files commands/main.ts loads statically (what every start evaluates). */
async function eagerFiles() {
  const r = await build({ ...common, entryPoints: ['commands/main.ts'], write: false, metafile: true, sourcemap: false, minify: false, plugins: [lazyChildProcess] });
  const { inputs } = r.metafile;
  const eager = new Set();
  const visit = (f) => {
    if (eager.has(f) || !inputs[f]) return;
    eager.add(f);
    for (const i of inputs[f].imports) if (i.kind === 'import-statement' || i.kind === 'require-call') visit(i.path);
  };
  visit('commands/main.ts');
  return eager;
}

// Every start loads each chunk holding eager code, and esbuild makes one chunk per distinct set of
// entry points (including every dynamic import()) that reaches a module: the eager code used to
// arrive as ~8 small chunks, each a file read, a compile and a link. Every other module of ours
// imports commands/main.ts (already evaluated whenever they load), so all eager code is reached by
// the same entries and lands in one chunk.
function oneEagerChunk(eager) {
  const mainPath = resolve(root, 'commands/main.ts');
  return {
    name: 'one-eager-chunk',
    setup(b) {
      b.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        const rel = args.path.slice(root.length);
        if (eager.has(rel) || rel.startsWith('node_modules/')) return undefined;
        const { readFile } = await import('node:fs/promises');
        const src = await readFile(args.path, 'utf8');
        // on the first line, so source maps and stack traces keep their line numbers
        return { contents: `import ${JSON.stringify(mainPath)};${src}`, loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts' };
      });
    },
  };
}

rmSync(resolve(root, 'dist'), { recursive: true, force: true });
const eager = await eagerFiles();
await build({ ...common, entryPoints: { tblcli: 'commands/main.ts' }, plugins: [lazyChildProcess, noAjv, oneEagerChunk(eager)] });
// workers (a file group's compaction merge; `commits show` totals) and the benchmarks' library run
// beside the CLI's chunks but share no module instances with it: a build of their own
await build({
  ...common,
  entryPoints: {
    'bench-lib': 'bench/lib.ts',
    'rewrite-worker': 'src/services/rewrite/worker.ts',
    'totals-worker': 'src/table/totals-worker.ts',
  },
  plugins: [lazyChildProcess],
});
