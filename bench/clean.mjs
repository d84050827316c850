// `cleans run` on a generated COPY_ON_WRITE table (table version 6) of 1,000,000 base files in 100
// partitions written by 50 commits (200 file groups per partition, one version of every group per
// commit): KEEP_LATEST_COMMITS retaining 10 deletes 39 versions of every group (780,000 files).
// Planning + execution through the CLI (dist/), against the floor measured in the same run on an
// identical table: list the same 100 directories (readdir) and unlink the same files with plain fs
// calls (fs.promises.unlink, 64 in flight; synchronous unlinks measured far slower here). Peak RSS of each process from
// /proc/<pid>/status (VmHWM). Then over the WebHDFS test server with 5 ms latency per request, on a
// smaller table of the same shape (BENCH_HDFS_GROUPS groups per partition): requests by kind against
// listing pages + one DELETE per file, and the most requests in flight. Never asserted.
// Usage: npm run build && node bench/clean.mjs   (env BENCH_PARTITIONS=100, BENCH_GROUPS=200,
//        BENCH_COMMITS=50, BENCH_RETAINED=10, BENCH_RUNS=1, BENCH_HDFS_GROUPS=20, BENCH_HDFS=1, BENCH_JSON=1)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.bench-out');
const P = Number(process.env.BENCH_PARTITIONS ?? 100);
const G = Number(process.env.BENCH_GROUPS ?? 200);
const C = Number(process.env.BENCH_COMMITS ?? 50);
const R = Number(process.env.BENCH_RETAINED ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const HDFS_G = Number(process.env.BENCH_HDFS_GROUPS ?? 20);

const instant = (c) => {
  const d = new Date(Date.UTC(2025, 0, 1) + c * 3_600_000);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
};
const fileId = (p, g) => `${String(p).padStart(4, '0')}${String(g).padStart(4, '0')}-aaaa-4bbb-8ccc-000000000000-0`;
const baseName = (p, g, c) => `${fileId(p, g)}_0-${c}-${c}_${instant(c)}.parquet`;

/** The table, and the files the clean deletes (versions older than the newest one before the retention window). */
function generate(dir, groups) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, '.hoodie'), { recursive: true });
  const props = ['hoodie.table.name=bench', 'hoodie.table.type=COPY_ON_WRITE', 'hoodie.table.version=6', 'hoodie.timeline.layout.version=1', 'hoodie.table.recordkey.fields=id', 'hoodie.table.partition.fields=part', 'hoodie.table.timeline.timezone=UTC'];
  writeFileSync(join(dir, '.hoodie/hoodie.properties'), `${props.join('\n')}\n`);
  const deleted = [];
  const keepFrom = C - R; // ECTR = commit C-R (0-based); C-R-1 is the newest version before it
  for (let p = 0; p < P; p++) {
    const part = `part=${String(p).padStart(3, '0')}`;
    mkdirSync(join(dir, part));
    writeFileSync(join(dir, part, '.hoodie_partition_metadata'), `#partition metadata\ncommitTime=${instant(0)}\npartitionDepth=1\n`);
    for (let g = 0; g < groups; g++) {
      for (let c = 0; c < C; c++) {
        const name = baseName(p, g, c);
        writeFileSync(join(dir, part, name), 'x');
        if (c < keepFrom - 1) deleted.push(`${part}/${name}`);
      }
    }
  }
  for (let c = 0; c < C; c++) {
    const t = instant(c);
    const stats = {};
    for (let p = 0; p < P; p++) stats[`part=${String(p).padStart(3, '0')}`] = [];
    const meta = JSON.stringify({ partitionToWriteStats: stats, compacted: false, extraMetadata: {}, operationType: c === 0 ? 'INSERT' : 'UPSERT' });
    writeFileSync(join(dir, '.hoodie', `${t}.commit.requested`), '');
    writeFileSync(join(dir, '.hoodie', `${t}.inflight`), '');
    writeFileSync(join(dir, '.hoodie', `${t}.commit`), meta);
  }
  return deleted;
}

/** Runs a process, polling its VmHWM; returns wall ms, peak RSS MB and stdout. */
function timed(args, env = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let hwm = 0;
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
        if (m) hwm = Math.max(hwm, Number(m[1]));
      } catch {
        // exited
      }
    }, 50);
    p.on('close', (code) => {
      clearInterval(poll);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ ms, rssMB: Math.round(hwm / 1024), stdout });
    });
  });
}

async function floor(dir, listFile, mode) {
  const fs = await import('node:fs');
  const fsp = await import('node:fs/promises');
  const files = JSON.parse(fs.readFileSync(listFile, 'utf8'));
  // list the same directories
  let listed = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && !e.name.startsWith('.')) listed += (await fsp.readdir(join(dir, e.name))).length;
  if (mode === 'sync') for (const f of files) fs.unlinkSync(join(dir, f));
  else {
    let i = 0;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (i < files.length) await fsp.unlink(join(dir, files[i++]));
    }));
  }
  process.stdout.write(JSON.stringify({ listed, deleted: files.length }));
}

async function main() {
  const cli = join(root, 'bin/tblcli.js');
  if (!existsSync(join(root, 'dist'))) throw new Error('run `npm run build` first');
  mkdirSync(out, { recursive: true });
  const dir = join(out, 'clean-table');
  const listFile = join(out, 'clean-deleted.json');
  const res = { tblcli: [], json: [], floor: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const mode of ['floor-async', 'tblcli', ...(process.env.BENCH_JSON === '0' ? [] : ['json'])]) {
      console.error(`generating ${P * G * C} files for ${mode} …`);
      const deleted = generate(dir, G);
      writeFileSync(listFile, JSON.stringify(deleted));
      if (mode.startsWith('floor')) {
        const m = await timed([new URL(import.meta.url).pathname, '--floor', dir, listFile, mode === 'floor-sync' ? 'sync' : 'async']);
        res.floor.push({ ...m, mode });
      } else {
        const args = [cli, 'cleans', 'run', '--path', dir, '--commits-retained', String(R), ...(mode === 'json' ? ['--json'] : [])];
        const m = await timed(args);
        const left = readdirSync(join(dir, 'part=000')).length - 1;
        if (left !== G * (R + 1)) throw new Error(`tblcli left ${left} files in part=000, expected ${G * (R + 1)}`);
        res[mode].push({ ...m, summary: mode === 'json' ? JSON.parse(m.stdout) : undefined });
      }
      console.error(`  ${mode}: ${(res[mode.startsWith('floor') ? 'floor' : mode].at(-1).ms / 1000).toFixed(2)} s`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const best = (xs) => xs.reduce((a, b) => (a.ms <= b.ms ? a : b));
  const f = best(res.floor);
  const t = best(res.tblcli);
  const lines = [
    `clean: ${P * G * C} files / ${P} partitions / ${C} commits, KEEP_LATEST_COMMITS retaining ${R}: ${P * G * (C - R - 1)} files deleted`,
    `  tblcli cleans run (plan + execute, quiet): ${(t.ms / 1000).toFixed(2)} s, peak RSS ${t.rssMB} MB`,
    `  floor (readdir the ${P} partitions + unlink the same files, 64 in flight): ${(f.ms / 1000).toFixed(2)} s, peak RSS ${f.rssMB} MB`,
    `  ratio ${(t.ms / f.ms).toFixed(2)}× (goal ≤ 1.5×: ${t.ms / f.ms <= 1.5 ? 'met' : 'missed'})`,
  ];
  if (res.json.length > 0) {
    const j = best(res.json);
    lines.push(`  with --json (bytes counted: every deleted file stat-ed first): ${(j.ms / 1000).toFixed(2)} s (${(j.ms / f.ms).toFixed(2)}×), peak RSS ${j.rssMB} MB, ${j.summary.files} files, ${j.summary.bytes} bytes`);
  }
  if (process.env.BENCH_HDFS !== '0') lines.push(...(await overWebHdfs()));
  console.log(lines.join('\n'));
  writeFileSync(join(out, 'clean.json'), JSON.stringify({ P, G, C, R, res }, null, 2));
}

async function overWebHdfs() {
  const lib = join(out, 'clean-lib.mjs');
  await build({ entryPoints: [join(root, 'bench/clean-lib.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: lib, logLevel: 'error', packages: 'external' });
  const { startWebHdfsServer } = await import(lib);
  const hroot = join(out, 'clean-hdfs');
  rmSync(hroot, { recursive: true, force: true });
  mkdirSync(hroot, { recursive: true });
  const dir = join(hroot, 't');
  console.error(`generating ${P * HDFS_G * C} files for WebHDFS …`);
  const deleted = generate(dir, HDFS_G);
  const srv = await startWebHdfsServer({ root: hroot, faults: { delayMs: 5 } });
  try {
    const m = await timed([join(root, 'bin/tblcli.js'), 'cleans', 'run', '--path', srv.uri('/t'), '--commits-retained', String(R), '--json']);
    const s = JSON.parse(m.stdout);
    const by = {};
    for (const q of srv.requests) by[q.op] = (by[q.op] ?? 0) + 1;
    const data = srv.requests.filter((q) => q.path.startsWith('/t/part='));
    const pages = data.filter((q) => q.op === 'LISTSTATUS_BATCH' || q.op === 'LISTSTATUS').length;
    const dels = data.filter((q) => q.op === 'DELETE').length;
    const other = data.length - pages - dels;
    return [
      `over WebHDFS (test server, 5 ms per request), ${P * HDFS_G * C} files, ${deleted.length} to delete: ${(m.ms / 1000).toFixed(2)} s, peak RSS ${m.rssMB} MB, ${s.files} deleted`,
      `  requests on data paths: ${pages} listing pages + ${dels} DELETE + ${other} other (bound: listing pages + one DELETE per file = ${pages + deleted.length}: ${data.length <= pages + deleted.length ? 'met' : 'missed'}); most in flight ${srv.stats.maxInFlight} (goal ≥ 16: ${srv.stats.maxInFlight >= 16 ? 'met' : 'missed'})`,
      `  all requests: ${Object.entries(by).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    ];
  } finally {
    await srv.close();
    rmSync(hroot, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--floor') await floor(process.argv[3], process.argv[4], process.argv[5]);
else if (process.argv[2] === '--generate') generate(process.argv[3], Number(process.argv[4] ?? G));
else await main();
