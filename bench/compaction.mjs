// Offline compaction of one synthetic file slice: a 1,000,000-record GZIP base file in row groups of
// 100,000 rows (what Hudi's 120 MB row-group target gives for wider rows) + 5 log files of updates/inserts
// in a MOR table (table version 6), `compaction schedule` + `compaction run` through the library.
// Reports records/s and peak RSS against two floors measured in the same run, each in its own process:
// DuckDB rewriting the base file (`COPY (SELECT * FROM read_parquet(..)) TO .. (FORMAT PARQUET)`, the
// issue's floor; its default codec SNAPPY, all cores) and hyparquet + hyparquet-writer rewriting it
// the way compaction does (one row group read at a time, incremental writer, GZIP). Codec-matched lines:
// DuckDB with COMPRESSION GZIP against compaction's default GZIP, and compaction with codec SNAPPY
// against DuckDB's SNAPPY; and compaction at GZIP level 1 (faster, larger pages) beside the default 6.
// Never asserted.
// Usage: node bench/compaction.mjs  (env BENCH_MERGE_ROWS=1000000, BENCH_MERGE_LOG_ROWS=50000,
//        BENCH_BASE_ROW_GROUP=100000, BENCH_OUT_ROW_GROUP (compaction's output row group, default its own),
//        BENCH_WORKERS=always|never|auto (where each file group is merged, default always),
//        BENCH_NODE_FLAGS e.g. "--max-old-space-size=256" for the compaction process, BENCH_RUNS=3)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const ROWS = Number(process.env.BENCH_MERGE_ROWS ?? 1_000_000);
const LOG_ROWS = Number(process.env.BENCH_MERGE_LOG_ROWS ?? 50_000);
const BASE_RG = Number(process.env.BENCH_BASE_ROW_GROUP ?? 100_000);
const LOGS = 5;
const out = join(root, '.bench-out');
const dir = join(out, `compaction-${ROWS}-${LOG_ROWS}-rg${BASE_RG}`);
const libFile = join(out, 'compaction-lib.mjs');
const BASE_INSTANT = '20250101000000000';
const logInstant = (i) => `2025010100${String(i + 1).padStart(2, '0')}00000`;
const fileId = '00000000-aaaa-bbbb-cccc-000000000000-0';
const baseName = `${fileId}_0-1-0_${BASE_INSTANT}.parquet`;
const logName = (i) => `.${fileId}_${BASE_INSTANT}.log.${i + 1}_0-1-0`;
const schema = {
  type: 'record', name: 'bench_record', namespace: 'hoodie.bench',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'status', type: ['null', 'string'], default: null },
  ],
};

async function generate(lib) {
  const table = join(dir, 'table');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(table, '.hoodie'), { recursive: true });
  const props = [
    'hoodie.table.name=bench', 'hoodie.table.type=MERGE_ON_READ', 'hoodie.table.version=6', 'hoodie.timeline.layout.version=1',
    'hoodie.table.precombine.field=ts', 'hoodie.table.recordkey.fields=id', 'hoodie.timeline.timezone=UTC',
    `hoodie.table.create.schema=${JSON.stringify(schema).replaceAll(':', '\\:')}`,
  ];
  writeFileSync(join(table, '.hoodie/hoodie.properties'), `${props.join('\n')}\n`);
  const storage = new lib.LocalStorage();
  const full = lib.withHoodieMetaFields(schema);
  const key = (n) => `key-${String(n).padStart(8, '0')}`;
  const w = lib.openHoodieParquetWriter({ schema: full, codec: 'GZIP', rowGroupSize: BASE_RG });
  for (let n = 0; n < ROWS; n++) {
    w.writeRow({ ...lib.hoodieMetaValues({ instant: BASE_INSTANT, seq: n, recordKey: key(n), partitionPath: '', fileName: baseName }), id: key(n), ts: 1000, amount: n / 7, status: 'new' });
  }
  await lib.finishHoodieBaseFile(storage, join(table, baseName), w);
  const commit = (t) => {
    const m = lib.emptyCommitMetadata();
    m.extraMetadata = { schema: JSON.stringify(schema) };
    m.operationType = 'UPSERT';
    writeFileSync(join(table, '.hoodie', `${t}.deltacommit`), lib.encodeCommitMetadataJson(m));
  };
  commit(BASE_INSTANT);
  for (let i = 0; i < LOGS; i++) {
    const inst = logInstant(i);
    const recs = [];
    for (let j = 0; j < LOG_ROWS; j++) {
      const n = j < LOG_ROWS * 0.95 ? (j * 19 + i * 7919) % ROWS : ROWS + i * LOG_ROWS + j;
      recs.push({ _hoodie_commit_time: inst, _hoodie_commit_seqno: `${inst}_0_${j}`, _hoodie_record_key: key(n), _hoodie_partition_path: '', _hoodie_file_name: fileId, id: key(n), ts: 2000 + i, amount: j, status: 'upd' });
    }
    await lib.writeLogFile(storage, join(table, logName(i)), [lib.encodeAvroDataBlock({ instantTime: inst, schema: JSON.stringify(full), records: recs })]);
    commit(inst);
  }
  writeFileSync(join(dir, '.complete'), '');
}

async function measure(mode, table) {
  const t0 = process.hrtime.bigint();
  let records;
  let bytes;
  if (mode === 'duckdb' || mode === 'duckdb-gzip') {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const target = join(table, 'duckdb-out.parquet');
    // the floor uses DuckDB's default codec (SNAPPY); the GZIP line matches compaction's default codec
    const options = mode === 'duckdb-gzip' ? 'FORMAT PARQUET, COMPRESSION GZIP' : 'FORMAT PARQUET';
    await c.run(`COPY (SELECT * FROM read_parquet('${join(table, baseName)}')) TO '${target}' (${options})`);
    const r = await c.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${target}')`);
    records = Number(r.getRowObjects()[0].n);
    c.closeSync();
  } else {
    const lib = await import(libFile);
    if (mode.startsWith('compaction')) {
      const t = await lib.openTable(table);
      const s = await lib.scheduleCompaction(t, { strategy: 'all', clockSkewMs: 0 });
      const codec = mode === 'compaction-snappy' ? 'SNAPPY' : undefined;
      const gzipLevel = mode === 'compaction-gzip1' ? 1 : undefined;
      const r = await lib.runCompaction(await lib.openTable(table), { clockSkewMs: 0, parallelism: 1, codec, gzipLevel, fileGroupWorkers: process.env.BENCH_WORKERS ?? 'always', rowGroupSize: process.env.BENCH_OUT_ROW_GROUP ? Number(process.env.BENCH_OUT_ROW_GROUP) : undefined });
      if (r.status !== 'completed') throw new Error(`compaction ${s.instant}: ${r.status}`);
      records = r.writeStats[0].numWrites;
      bytes = r.writeStats[0].fileSizeInBytes;
    } else {
      // hyparquet floor: compaction's read and write path without the log scan and the merge
      const storage = new lib.LocalStorage();
      const path = join(table, baseName);
      const file = lib.asyncBufferOf(storage, path, statSync(path).size);
      const info = await lib.readParquetMetadataFrom(file, path);
      const w = lib.openHoodieParquetWriter({ schema: lib.withHoodieMetaFields(schema), codec: 'GZIP', rowGroupSize: 100_000 });
      let start = 0;
      for (const rg of info.metadata.row_groups) {
        const end = start + Number(rg.num_rows);
        w.write(await lib.readParquetRowsFrom(file, path, { metadata: info.metadata, rowStart: start, rowEnd: end, rawTimestamps: true }));
        start = end;
      }
      records = (await lib.finishHoodieBaseFile(storage, join(table, 'floor-out.parquet'), w)).rowCount;
    }
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, records, bytes, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

if (process.argv[2] === '--measure') {
  await measure(process.argv[3], process.argv[4]);
} else {
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: [join(root, 'bench/compaction-lib.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: libFile, logLevel: 'error', packages: 'external' });
  // the library looks for its worker beside itself, as in dist/
  await build({ entryPoints: [join(root, 'src/services/rewrite/worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: join(out, 'rewrite-worker.js'), logLevel: 'error', packages: 'external' });
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating a ${ROWS}-row base file + ${LOGS} log files of ${LOG_ROWS} records in ${dir} …`);
    await generate(await import(libFile));
  }
  const sliceBytes = readdirSync(join(dir, 'table')).filter((n) => !n.startsWith('.hoodie')).reduce((s, n) => s + statSync(join(dir, 'table', n)).size, 0);
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const res = { compaction: [], 'compaction-snappy': [], 'compaction-gzip1': [], floor: [], duckdb: [], 'duckdb-gzip': [] };
  for (let r = 0; r < runs; r++) {
    for (const mode of Object.keys(res)) {
      const copy = join(dir, `run-${mode}-${r}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(join(dir, 'table'), copy, { recursive: true });
      const flags = mode.startsWith('compaction') && process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
      const p = spawnSync(process.execPath, [...flags, new URL(import.meta.url).pathname, '--measure', mode, copy], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rmSync(copy, { recursive: true, force: true });
      if (p.status !== 0) throw new Error(`${mode} failed: ${p.stderr}`);
      res[mode].push(JSON.parse(p.stdout));
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
  const c = med(res.compaction);
  const cs = med(res['compaction-snappy']);
  const c1 = med(res['compaction-gzip1']);
  const f = med(res.floor);
  const d = med(res.duckdb);
  const dg = med(res['duckdb-gzip']);
  const inputRecords = ROWS + LOGS * LOG_ROWS;
  const rps = (inputRecords / c.ms) * 1000;
  const srps = (inputRecords / cs.ms) * 1000;
  const g1rps = (inputRecords / c1.ms) * 1000;
  const frps = (ROWS / f.ms) * 1000;
  const drps = (ROWS / d.ms) * 1000;
  const dgrps = (ROWS / dg.ms) * 1000;
  const peak = (xs) => Math.round(Math.max(...xs.map((x) => x.maxRssMB)));
  const rss = Math.max(peak(res.compaction), peak(res['compaction-snappy']), peak(res['compaction-gzip1']));
  const goal = Math.round((2 * sliceBytes) / 1048576 + 300);
  console.log(
    (process.env.BENCH_NODE_FLAGS ? `compaction process flags: ${process.env.BENCH_NODE_FLAGS}\n` : '') +
    `file group workers: ${process.env.BENCH_WORKERS ?? 'always'}\n` +
    `compaction: ${inputRecords} input records (base ${ROWS} in row groups of ${BASE_RG} + ${LOGS}×${LOG_ROWS} log) → ${c.records} rows, median ${(c.ms / 1000).toFixed(2)} s of ${runs} → ` +
      `${Math.round(rps).toLocaleString('en')} records/s; peak RSS ${rss} MB (slice ${(sliceBytes / 1048576).toFixed(1)} MB; goal ≤ ${goal} MB: ${rss <= goal ? 'met' : 'missed'})\n` +
      `DuckDB floor (COPY read_parquet → parquet, SNAPPY, ${d.records} rows): median ${(d.ms / 1000).toFixed(2)} s → ${Math.round(drps).toLocaleString('en')} records/s, peak RSS ${peak(res.duckdb)} MB; ` +
      `compaction/DuckDB = ${(rps / drps).toFixed(2)} (goal ≥ 0.33: ${rps / drps >= 1 / 3 ? 'met' : 'missed'})\n` +
      `codec-matched: DuckDB GZIP (COMPRESSION GZIP): median ${(dg.ms / 1000).toFixed(2)} s → ${Math.round(dgrps).toLocaleString('en')} records/s; compaction (GZIP)/DuckDB GZIP = ${(rps / dgrps).toFixed(2)}\n` +
      `codec-matched: compaction --codec SNAPPY: median ${(cs.ms / 1000).toFixed(2)} s → ${Math.round(srps).toLocaleString('en')} records/s, peak RSS ${peak(res['compaction-snappy'])} MB; compaction SNAPPY/DuckDB SNAPPY = ${(srps / drps).toFixed(2)}\n` +
      `GZIP level 1 (gzipLevel: 1; default 6 as Hudi): compaction median ${(c1.ms / 1000).toFixed(2)} s → ${Math.round(g1rps).toLocaleString('en')} records/s, file ${(c1.bytes / 1048576).toFixed(1)} MB vs ${(c.bytes / 1048576).toFixed(1)} MB at level 6; ` +
      `compaction gzip1/DuckDB SNAPPY = ${(g1rps / drps).toFixed(2)}, /DuckDB GZIP = ${(g1rps / dgrps).toFixed(2)}\n` +
      `hyparquet floor (row-group read + incremental GZIP rewrite of the base file): median ${(f.ms / 1000).toFixed(2)} s → ${Math.round(frps).toLocaleString('en')} records/s, peak RSS ${peak(res.floor)} MB; ` +
      `compaction/hyparquet = ${(rps / frps).toFixed(2)}`,
  );
  writeFileSync(
    join(out, 'compaction.json'),
    JSON.stringify({ rows: ROWS, logRows: LOG_ROWS, logs: LOGS, baseRowGroup: BASE_RG, nodeFlags: process.env.BENCH_NODE_FLAGS ?? null, fileGroupWorkers: process.env.BENCH_WORKERS ?? 'always', sliceBytes, recordsPerSecond: rps, snappyRecordsPerSecond: srps, gzipLevel1RecordsPerSecond: g1rps, duckdbRecordsPerSecond: drps, duckdbGzipRecordsPerSecond: dgrps, floorRecordsPerSecond: frps, peakRssMB: rss, peakRssGoalMB: goal, runs: res }, null, 2),
  );
}
