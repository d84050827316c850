#!/usr/bin/env node
// Triage at scale (issue 22): `doctor`, `collisions`, `orphans` and `metrics` on a generated MERGE_ON_READ
// table (bench/gen-triage.mjs: 4 files per file group, 2,000 files per partition, write stats naming
// every file; files empty) against the floor measured in the same run (bench/triage-floor.mjs: list
// every directory and stat each entry, read and parse every completed instant file, nothing else).
// Commands run in turn, floor, doctor, collisions, orphans, metrics, floor, … (the first round warms the
// page cache and is not counted), each as its own process; wall time and peak RSS per run, medians and
// ranges reported. Then, unless --no-webhdfs, doctor once over the WebHDFS test server (5 ms per
// request): requests by op, the most in flight, and whether its output equals the local run's.
//
//   npm run build && node bench/triage.mjs [--files 200000] [--runs 5] [--layout 1] [--no-webhdfs] [--dir <table>]
//
// The table is generated under the OS temp dir and removed afterwards (--dir: use, and keep, that one).
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateTriageTable } from './gen-triage.mjs';

const root = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const FILES = Number(opt('files', 200000));
const RUNS = Number(opt('runs', 5));
const LAYOUT = Number(opt('layout', 1));
const WEBHDFS = !argv.includes('--no-webhdfs');
const GROUPS = Math.round(FILES / 4);
const PARTITIONS = Math.max(1, Math.round(FILES / 2000));

if (!existsSync(join(root, 'dist', 'tblcli.js')) || !existsSync(join(root, 'dist', 'bench-lib.js'))) throw new Error('run `npm run build` first');

let tmp;
let dir = opt('dir');
if (!dir || !existsSync(join(dir, '.hoodie', '.bench-complete'))) {
  if (!dir) {
    tmp = mkdtempSync(join(tmpdir(), 'tblcli-bench-triage-'));
    dir = join(tmp, 'bench_orders');
  }
  const t0 = performance.now();
  console.log(`generating ${GROUPS * 4 + PARTITIONS} files (${GROUPS} file groups in ${PARTITIONS} partitions, layout ${LAYOUT}) under ${dir} …`);
  await generateTriageTable(dir, { groups: GROUPS, partitions: PARTITIONS, layout: LAYOUT });
  console.log(`  generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const node = process.execPath;
const rss = join(root, 'bench', 'rss-report.mjs');
const bin = join(root, 'bin', 'tblcli.js');
const commands = {
  floor: [join(root, 'bench', 'triage-floor.mjs'), dir],
  doctor: [bin, 'doctor', '--path', dir, '--json'],
  collisions: [bin, 'collisions', '--path', dir, '--json'],
  orphans: [bin, 'orphans', '--path', dir, '--json'],
  metrics: [bin, 'metrics', '--path', dir],
};

/** One run: wall ms, peak RSS MB (from the preload, fd 3), stdout bytes. */
function once(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(node, ['--import', pathToFileURL(rss).href, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const [kb, us] = r.output[3].toString().trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, rssMB: kb / 1024, cpuMs: us / 1000, stdout: r.stdout };
}

const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
const outputs = {};
for (let round = 0; round <= RUNS; round++) {
  for (const [name, args] of Object.entries(commands)) {
    const s = once(args);
    if (round > 0) samples[name].push(s);
    outputs[name] = s.stdout;
  }
  if (round > 0) console.log(`round ${round}: ${Object.entries(samples).map(([k, v]) => `${k} ${(v.at(-1).ms / 1000).toFixed(2)} s`).join(', ')}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (name) => {
  const ms = samples[name].map((s) => s.ms);
  const mb = samples[name].map((s) => s.rssMB);
  const cpu = samples[name].map((s) => s.cpuMs);
  return { medianMs: median(ms), minMs: Math.min(...ms), maxMs: Math.max(...ms), medianCpuMs: median(cpu), medianRssMB: median(mb), maxRssMB: Math.max(...mb) };
};
const floor = stat('floor');
const results = { files: GROUPS * 4 + PARTITIONS, fileGroups: GROUPS, partitions: PARTITIONS, layout: LAYOUT, runs: RUNS, floor, commands: {} };
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `\n${results.files} files, ${GROUPS} file groups, ${PARTITIONS} partitions, layout ${LAYOUT}; ${RUNS} runs each (median, range); floor ${fmt(floor.medianMs)} (${fmt(floor.minMs)}–${fmt(floor.maxMs)}), CPU ${fmt(floor.medianCpuMs)}, peak RSS ${floor.medianRssMB.toFixed(0)} MB`,
);
for (const name of ['doctor', 'collisions', 'orphans', 'metrics']) {
  const s = stat(name);
  const r = { ...s, ratio: s.medianMs / floor.medianMs, cpuRatio: s.medianCpuMs / floor.medianCpuMs, rssOverFloorMB: s.medianRssMB - floor.medianRssMB };
  results.commands[name] = r;
  console.log(
    `${name.padEnd(10)} ${fmt(s.medianMs)} (${fmt(s.minMs)}–${fmt(s.maxMs)}) → ${r.ratio.toFixed(2)}× the floor (goal ≤ 1.5×), CPU ${fmt(s.medianCpuMs)} = ${r.cpuRatio.toFixed(2)}×; peak RSS ${s.medianRssMB.toFixed(0)} MB (max ${s.maxRssMB.toFixed(0)}), floor + ${r.rssOverFloorMB.toFixed(0)} MB (goal ≤ + 200 MB)`,
  );
}

mkdirSync(join(root, '.bench-out'), { recursive: true });
if (WEBHDFS) {
  // the test WebHDFS server in this process, 5 ms before every answer; the table is served from `dir`
  const out = join(root, 'node_modules/.cache/tblcli-bench-triage');
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: { server: join(root, 'test/support/webhdfs-server.ts') }, outdir: out, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'error' });
  const { startWebHdfsServer } = await import(pathToFileURL(join(out, 'server.js')).href);
  const parent = join(dir, '..');
  const server = await startWebHdfsServer({ root: parent, faults: { delayMs: 5 } });
  const uri = server.uri(`/${dir.slice(parent.length + 1)}`);
  const run = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(node, [bin, 'doctor', '--path', uri, '--user', 'bench', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks = [];
      const err = [];
      child.stdout.on('data', (c) => chunks.push(c));
      child.stderr.on('data', (c) => err.push(c));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, stdout: Buffer.concat(chunks) }) : reject(new Error(Buffer.concat(err).toString()))));
    });
  server.requests.length = 0;
  server.stats.maxInFlight = 0;
  const w = await run();
  const byOp = {};
  for (const q of server.requests) byOp[`${q.server}:${q.op}`] = (byOp[`${q.server}:${q.op}`] ?? 0) + 1;
  // what the scan needs: one listing page per 1000 entries of every directory it lists (the data tree,
  // the timeline, .heartbeat, .temp; a missing one costs one request too), one OPEN per instant file
  // it reads (every completed instant of this table: its deltacommits) plus hoodie.properties, and
  // doctor's probe for a metadata table (GETFILESTATUS); every OPEN is answered by a datanode read
  const pagesOf = (d) => {
    if (!existsSync(d)) return 1;
    return Math.max(1, Math.ceil(readdirSync(d).length / 1000));
  };
  let dirs = 0;
  let pages = 0;
  const walk = (d) => {
    dirs++;
    pages += pagesOf(d);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory() && !(d === dir && e.name === '.hoodie')) walk(join(d, e.name));
  };
  walk(dir);
  const tlDir = LAYOUT === 2 ? join(dir, '.hoodie', 'timeline') : join(dir, '.hoodie');
  const metaPages = pagesOf(tlDir) + pagesOf(join(dir, '.hoodie', '.heartbeat')) + pagesOf(join(dir, '.hoodie', '.temp'));
  const instants = readdirSync(tlDir).filter((n) => /^\d+(_\d+)?\.deltacommit$/.test(n)).length;
  const expected = { 'nn:LISTSTATUS_BATCH': pages + metaPages, 'nn:OPEN': instants + 1, 'dn:OPEN': instants + 1, 'nn:GETFILESTATUS': 1 };
  const asExpected = JSON.stringify(Object.entries(byOp).sort()) === JSON.stringify(Object.entries(expected).sort());
  const local = JSON.parse(outputs.doctor.toString());
  const remote = JSON.parse(w.stdout.toString());
  local.table.basePath = remote.table.basePath;
  const same = JSON.stringify(local) === JSON.stringify(remote);
  if (!same) {
    writeFileSync(join(root, '.bench-out', 'triage-doctor-local.json'), JSON.stringify(local, null, 1));
    writeFileSync(join(root, '.bench-out', 'triage-doctor-webhdfs.json'), JSON.stringify(remote, null, 1));
  }
  results.webhdfs = { ms: w.ms, requests: server.requests.length, byOp, expected, asExpected, maxInFlight: server.stats.maxInFlight, dataDirs: dirs, dataListingPages: pages, instantsRead: instants, sameReport: same };
  console.log(
    `\nover WebHDFS (test server, 5 ms per request): doctor ${fmt(w.ms)}, ${server.requests.length} requests ${JSON.stringify(byOp)}, up to ${server.stats.maxInFlight} in flight; ` +
      `needed: ${pages} listing pages of ${dirs} data dirs + ${metaPages} of the timeline/.heartbeat/.temp, ${instants} instant OPENs + hoodie.properties, the metadata-table probe → as expected: ${asExpected}; same report as locally: ${same}`,
  );
  await server.close();
}

mkdirSync(join(root, '.bench-out'), { recursive: true });
writeFileSync(join(root, '.bench-out', `triage-${results.files}.json`), `${JSON.stringify(results, null, 2)}\n`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
