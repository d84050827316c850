// Offline clustering of 20 small files (1,000,000 records in all, table version 6 COW, one partition)
// into one file sorted by (city, ts): `clustering schedule` + `clustering run` through the library,
// the group clustered in a worker thread. Reports records/s and peak RSS against DuckDB doing
// `COPY (SELECT * FROM read_parquet([...]) ORDER BY city, ts) TO … (FORMAT PARQUET)` in the same run,
// codec-matched (DuckDB's default SNAPPY against clustering with SNAPPY, DuckDB GZIP against
// clustering's default GZIP), each in its own process. Never asserted.
// Usage: node bench/clustering.mjs  (env BENCH_FILES=20, BENCH_ROWS=1000000, BENCH_RUNS=3,
//        BENCH_WORKERS=always|never|auto, BENCH_LAYOUT=linear|z-order|hilbert, BENCH_THREADS=1|2: fileGroupThreads, default the library's)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const FILES = Number(process.env.BENCH_FILES ?? 20);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const LAYOUT = process.env.BENCH_LAYOUT ?? 'linear';
const out = join(root, '.bench-out');
const dir = join(out, `clustering-${FILES}x${ROWS}`);
const libFile = join(out, 'clustering-lib.mjs');
const PARTITION = '2025/01/01';
const SORT = ['city', 'ts'];

function dataFiles(table) {
  const d = join(table, PARTITION);
  return readdirSync(d).filter((n) => n.endsWith('.parquet')).map((n) => join(d, n));
}

async function measure(mode, table) {
  const t0 = process.hrtime.bigint();
  let records;
  let bytes;
  if (mode.startsWith('duckdb')) {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const target = join(table, 'duckdb-out.parquet');
    const files = dataFiles(table).map((f) => `'${f}'`).join(', ');
    const options = mode === 'duckdb-gzip' ? 'FORMAT PARQUET, COMPRESSION GZIP' : 'FORMAT PARQUET';
    await c.run(`COPY (SELECT * FROM read_parquet([${files}]) ORDER BY city NULLS FIRST, ts) TO '${target}' (${options})`);
    const r = await c.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${target}')`);
    records = Number(r.getRowObjects()[0].n);
    bytes = statSync(target).size;
    c.closeSync();
  } else {
    const lib = await import(libFile);
    const s = await lib.scheduleClustering(await lib.openTable(table), { clockSkewMs: 0, sortColumns: SORT, layout: LAYOUT });
    if (!s.instant) throw new Error(`nothing scheduled: ${s.reason}`);
    const codec = mode === 'clustering-snappy' ? 'SNAPPY' : undefined;
    const r = await lib.runClustering(await lib.openTable(table), { clockSkewMs: 0, codec, fileGroupWorkers: process.env.BENCH_WORKERS ?? 'always', fileGroupThreads: process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined });
    if (r.status !== 'completed' || r.files !== 1) throw new Error(`clustering ${s.instant}: ${r.status}, ${r.files} files`);
    records = r.records;
    bytes = r.bytes;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, records, bytes, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

if (process.argv[2] === '--measure') {
  await measure(process.argv[3], process.argv[4]);
} else {
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: [join(root, 'bench/clustering-lib.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: libFile, logLevel: 'error', packages: 'external' });
  // the library looks for its worker beside itself, as in dist/
  await build({ entryPoints: [join(root, 'src/services/rewrite/worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: join(out, 'rewrite-worker.js'), logLevel: 'error', packages: 'external' });
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating ${FILES} files of ${ROWS / FILES} records in ${dir} …`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'table', '.hoodie'), { recursive: true });
    const lib = await import(libFile);
    lib.generateSmallFilesTable(join(dir, 'table'), { version: 6, type: 'COPY_ON_WRITE', partitions: [PARTITION], filesPerPartition: FILES, rowsPerFile: ROWS / FILES, rowGroupSize: 50_000 });
    writeFileSync(join(dir, '.complete'), '');
  }
  const inputBytes = dataFiles(join(dir, 'table')).reduce((s, f) => s + statSync(f).size, 0);
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const res = { clustering: [], 'clustering-snappy': [], duckdb: [], 'duckdb-gzip': [] };
  for (let r = 0; r < runs; r++) {
    for (const mode of Object.keys(res)) {
      const copy = join(dir, `run-${mode}-${r}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(join(dir, 'table'), copy, { recursive: true });
      const p = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--measure', mode, copy], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rmSync(copy, { recursive: true, force: true });
      if (p.status !== 0) throw new Error(`${mode} failed: ${p.stderr}`);
      res[mode].push(JSON.parse(p.stdout));
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
  const rps = (m) => (ROWS / med(res[m]).ms) * 1000;
  const peak = (m) => Math.round(Math.max(...res[m].map((x) => x.maxRssMB)));
  const goal = Math.round((2 * inputBytes) / 1048576 + 300);
  const line = (m) => `${m}: median ${(med(res[m]).ms / 1000).toFixed(2)} s of ${runs} → ${Math.round(rps(m)).toLocaleString('en')} records/s, file ${(med(res[m]).bytes / 1048576).toFixed(1)} MB, peak RSS ${peak(m)} MB`;
  const gz = rps('clustering') / rps('duckdb-gzip');
  const sn = rps('clustering-snappy') / rps('duckdb');
  const rss = Math.max(peak('clustering'), peak('clustering-snappy'));
  console.log(
    `input: ${FILES} files, ${ROWS} records, ${(inputBytes / 1048576).toFixed(1)} MB; sorted by ${SORT.join(',')} (${LAYOUT}); workers ${process.env.BENCH_WORKERS ?? 'always'}\n` +
      `${line('clustering')}\n${line('clustering-snappy')}\n${line('duckdb')}\n${line('duckdb-gzip')}\n` +
      `codec-matched: clustering GZIP / DuckDB GZIP = ${gz.toFixed(2)}, clustering SNAPPY / DuckDB SNAPPY = ${sn.toFixed(2)} (goal ≥ 0.5: ${gz >= 0.5 && sn >= 0.5 ? 'met' : 'missed'})\n` +
      `peak RSS ${rss} MB (goal ≤ 2 × input + 300 = ${goal} MB: ${rss <= goal ? 'met' : 'missed'})`,
  );
  writeFileSync(join(out, 'clustering.json'), JSON.stringify({ files: FILES, rows: ROWS, layout: LAYOUT, inputBytes, gzipRatio: gz, snappyRatio: sn, peakRssMB: rss, peakRssGoalMB: goal, runs: res }, null, 2));
}
