#!/usr/bin/env node
// WebHDFS benchmark: `commits show --limit 20` and `timeline show active` on a 20,000-instant table,
// local disk versus the test WebHDFS server with 5 ms injected latency per request. Reports wall
// time, request counts by op, and whether stdout is byte-identical.
//
//   node bench/webhdfs.mjs [--instants 20000] [--delay 5] [--runs 3]
//
// It bundles commands/main.ts and test/support/webhdfs-server.ts with esbuild into
// node_modules/.cache/tblcli-bench (so package imports resolve), builds a synthetic v6 table from
// the hudi-rs fixture `sample_table/cow/v6_nonpartitioned` (hoodie.properties + a real commit JSON),
// and runs the CLI as a child process against a server in this process.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = new URL('..', import.meta.url).pathname;
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANTS = arg('instants', 20000);
const DELAY = arg('delay', 5);
const RUNS = arg('runs', 3);

const out = join(repo, 'node_modules/.cache/tblcli-bench');
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(repo, 'commands/main.ts'), server: join(repo, 'test/support/webhdfs-server.ts') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'error',
  plugins: [
    {
      // Other modules may be mid-change in the shared tree: a lazily imported module that does not
      // exist yet stays external (it only fails if a benchmarked command loads it).
      name: 'missing-lazy-imports',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (a) => {
          if (a.kind !== 'dynamic-import' || existsSync(join(a.resolveDir, a.path))) return undefined;
          console.error(`bench: warning: ${a.importer.replace(repo, '')} imports missing ${a.path}`);
          return { path: a.path, external: true };
        });
      },
    },
  ],
});
writeFileSync(join(out, 'run.mjs'), "const { main } = await import('./cli.js');\nprocess.exitCode = await main(process.argv.slice(2));\n");
const { startWebHdfsServer } = await import(pathToFileURL(join(out, 'server.js')).href);

// --- a synthetic table: real hoodie.properties and commit JSON, INSTANTS completed commits ----
const fixtureZip = join(repo, '../shared/fixtures/hudi-rs');
const cache = join(repo, 'node_modules/.cache/tblcli-fixtures');
const { readdirSync } = await import('node:fs');
const src = existsSync(cache) && readdirSync(cache).find((d) => d.startsWith('sample_table__cow__v6_nonpartitioned-'));
if (!src) {
  console.error(`needs the extracted fixture sample_table/cow/v6_nonpartitioned (run the test suite once; fixtures at ${fixtureZip})`);
  process.exit(1);
}
const srcHoodie = join(cache, src, 'v6_nonpartitioned', '.hoodie');
const commitJson = readFileSync(join(srcHoodie, '20240418173551906.commit'));
const inflightJson = readFileSync(join(srcHoodie, '20240418173551906.inflight'));

const work = mkdtempSync(join(tmpdir(), 'tblcli-bench-'));
const tbl = join(work, 'tbl');
mkdirSync(join(tbl, '.hoodie', 'archived'), { recursive: true });
copyFileSync(join(srcHoodie, 'hoodie.properties'), join(tbl, '.hoodie', 'hoodie.properties'));
const pad = (n, w = 2) => String(n).padStart(w, '0');
const stamp = (ms) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}${pad(d.getUTCMilliseconds(), 3)}`;
};
const t0 = Date.UTC(2024, 0, 1);
for (let i = 0; i < INSTANTS; i++) {
  const ts = stamp(t0 + i * 60_000);
  const h = join(tbl, '.hoodie');
  writeFileSync(join(h, `${ts}.commit.requested`), '');
  writeFileSync(join(h, `${ts}.inflight`), inflightJson);
  writeFileSync(join(h, `${ts}.commit`), commitJson);
}

function runCli(args) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(out, 'run.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (c) => stdout.push(c));
    child.stderr.on('data', (c) => stderr.push(c));
    child.on('close', (code) => {
      resolve({
        code,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString(),
      });
    });
  });
}

const server = await startWebHdfsServer({ root: work, faults: { delayMs: DELAY } });
const commands = [
  ['commits', 'show', '--limit', '20'],
  ['timeline', 'show', 'active'],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const cmd of commands) {
  const local = [];
  const remote = [];
  let localOut;
  let remoteOut;
  let counts = {};
  for (let r = 0; r < RUNS; r++) {
    const a = await runCli([...cmd, '--path', tbl]);
    if (a.code !== 0) throw new Error(`local ${cmd.join(' ')} failed: ${a.stderr}`);
    local.push(a.ms);
    localOut = a.stdout;
    server.requests.length = 0;
    const b = await runCli([...cmd, '--path', server.uri('/tbl'), '--user', 'bench']);
    if (b.code !== 0) throw new Error(`webhdfs ${cmd.join(' ')} failed: ${b.stderr}`);
    remote.push(b.ms);
    remoteOut = b.stdout;
    counts = {};
    for (const q of server.requests) counts[`${q.server}:${q.op}`] = (counts[`${q.server}:${q.op}`] ?? 0) + 1;
  }
  rows.push({
    command: cmd.join(' '),
    localMs: Math.round(median(local)),
    webhdfsMs: Math.round(median(remote)),
    requests: Object.values(counts).reduce((a, b) => a + b, 0),
    byOp: counts,
    sameStdout: Buffer.compare(localOut, remoteOut) === 0,
    stdoutBytes: localOut.length,
  });
}
await server.close();
rmSync(work, { recursive: true, force: true });

console.log(`instants=${INSTANTS} delay=${DELAY}ms runs=${RUNS} (median wall time, child process incl. Node start-up)`);
for (const r of rows) {
  console.log(
    `${r.command.padEnd(26)} local ${String(r.localMs).padStart(6)} ms   webhdfs ${String(r.webhdfsMs).padStart(6)} ms   requests ${r.requests}  ${JSON.stringify(r.byOp)}  identical stdout: ${r.sameStdout} (${r.stdoutBytes} bytes)`,
  );
}
