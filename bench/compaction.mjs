// Offline compaction of one synthetic file slice: a 1,000,000-record GZIP base file + 5 log files of
// updates/inserts in a MOR table (table version 6), `compaction schedule` + `compaction run` through the
// library. Reports records/s and peak RSS against a floor measured in the same run: hyparquet-writer
// rewriting the same base file (read all rows, write them GZIP). Never asserted. DuckDB is not installed,
// so the DuckDB comparison of the issue is not made.
// Usage: node bench/compaction.mjs  (env BENCH_MERGE_ROWS=1000000, BENCH_MERGE_LOG_ROWS=50000, BENCH_RUNS=3)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const ROWS = Number(process.env.BENCH_MERGE_ROWS ?? 1_000_000);
const LOG_ROWS = Number(process.env.BENCH_MERGE_LOG_ROWS ?? 50_000);
const LOGS = 5;
const out = join(root, '.bench-out');
const dir = join(out, `compaction-${ROWS}-${LOG_ROWS}`);
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
  const rows = new Array(ROWS);
  for (let n = 0; n < ROWS; n++) {
    rows[n] = { ...lib.hoodieMetaValues({ instant: BASE_INSTANT, seq: n, recordKey: key(n), partitionPath: '', fileName: baseName }), id: key(n), ts: 1000, amount: n / 7, status: 'new' };
  }
  await lib.writeHoodieBaseFile(storage, join(table, baseName), { schema: full, rows, codec: 'GZIP' });
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
  const lib = await import(libFile);
  const t0 = process.hrtime.bigint();
  let records;
  if (mode === 'compaction') {
    const t = await lib.openTable(table);
    const s = await lib.scheduleCompaction(t, { strategy: 'all', clockSkewMs: 0 });
    const r = await lib.runCompaction(await lib.openTable(table), { clockSkewMs: 0, parallelism: 1 });
    if (r.status !== 'completed') throw new Error(`compaction ${s.instant}: ${r.status}`);
    records = r.writeStats[0].numWrites;
  } else {
    const storage = new lib.LocalStorage();
    const rows = await lib.readParquetRows(storage, join(table, baseName));
    const f = lib.writeHoodieParquet({ schema: lib.withHoodieMetaFields(schema), rows, codec: 'GZIP' });
    records = f.rowCount;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, records, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

if (process.argv[2] === '--measure') {
  await measure(process.argv[3], process.argv[4]);
} else {
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: [join(root, 'bench/compaction-lib.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: libFile, logLevel: 'error', packages: 'external' });
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating a ${ROWS}-row base file + ${LOGS} log files of ${LOG_ROWS} records in ${dir} …`);
    await generate(await import(libFile));
  }
  const sliceBytes = readdirSync(join(dir, 'table')).filter((n) => !n.startsWith('.hoodie')).reduce((s, n) => s + statSync(join(dir, 'table', n)).size, 0);
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const res = { compaction: [], floor: [] };
  for (let r = 0; r < runs; r++) {
    for (const mode of ['compaction', 'floor']) {
      const copy = join(dir, `run-${mode}-${r}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(join(dir, 'table'), copy, { recursive: true });
      const p = spawnSync(process.execPath, ['--max-old-space-size=8192', new URL(import.meta.url).pathname, '--measure', mode, copy], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rmSync(copy, { recursive: true, force: true });
      if (p.status !== 0) throw new Error(`${mode} failed: ${p.stderr}`);
      res[mode].push(JSON.parse(p.stdout));
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
  const c = med(res.compaction);
  const f = med(res.floor);
  const inputRecords = ROWS + LOGS * LOG_ROWS;
  const rps = (inputRecords / c.ms) * 1000;
  const frps = (ROWS / f.ms) * 1000;
  const rss = Math.round(Math.max(...res.compaction.map((x) => x.maxRssMB)));
  console.log(
    `compaction: ${inputRecords} input records (base ${ROWS} + ${LOGS}×${LOG_ROWS} log) → ${c.records} rows, median ${(c.ms / 1000).toFixed(2)} s of ${runs} → ` +
      `${Math.round(rps).toLocaleString('en')} records/s; peak RSS ${rss} MB (slice ${(sliceBytes / 1048576).toFixed(1)} MB; goal ≤ ${Math.round((2 * sliceBytes) / 1048576 + 300)} MB)\n` +
      `floor (hyparquet read + hyparquet-writer rewrite of the base file): median ${(f.ms / 1000).toFixed(2)} s → ${Math.round(frps).toLocaleString('en')} records/s; ` +
      `compaction/floor = ${(rps / frps).toFixed(2)}. DuckDB: not installed, not compared.`,
  );
  writeFileSync(join(out, 'compaction.json'), JSON.stringify({ rows: ROWS, logRows: LOG_ROWS, logs: LOGS, sliceBytes, recordsPerSecond: rps, floorRecordsPerSecond: frps, peakRssMB: rss, runs: res }, null, 2));
}
