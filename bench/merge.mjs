// Merged scan of one file slice: a 1,000,000-record GZIP parquet base file + 5 log files of updates
// (and some inserts and deletes), through mergeFileSlice as `show logfile records --merge` / compaction
// use it. Reports records/s and peak RSS; never asserted. Run `node scripts/build.mjs` first.
// Usage: node bench/merge.mjs  (env BENCH_MERGE_ROWS=1000000, BENCH_MERGE_LOG_ROWS=50000, BENCH_RUNS=3)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ROWS = Number(process.env.BENCH_MERGE_ROWS ?? 1_000_000);
const LOG_ROWS = Number(process.env.BENCH_MERGE_LOG_ROWS ?? 50_000);
const LOGS = 5;
const dir = join(root, '.bench-out', `merge-${ROWS}-${LOG_ROWS}`);
const BASE_INSTANT = '20250101000000000';
const logInstant = (i) => `2025010100${String(i + 1).padStart(2, '0')}00000`;
const fileId = '00000000-aaaa-bbbb-cccc-000000000000-0';
const baseName = `${fileId}_0-1-0_${BASE_INSTANT}.parquet`;
const logName = (i) => `.${fileId}_${BASE_INSTANT}.log.${i + 1}_0-1-0`;

const schema = {
  type: 'record',
  name: 'bench_record',
  namespace: 'hoodie.bench',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'status', type: ['null', 'string'], default: null },
  ],
};

async function generate() {
  const lib = await import('../dist/bench-lib.js');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const storage = new lib.LocalStorage();
  const full = lib.withHoodieMetaFields(schema);
  const key = (n) => `key-${String(n).padStart(8, '0')}`;
  const t0 = Date.now();
  const rows = new Array(ROWS);
  for (let n = 0; n < ROWS; n++) {
    rows[n] = {
      ...lib.hoodieMetaValues({ instant: BASE_INSTANT, seq: n, recordKey: key(n), partitionPath: '', fileName: baseName }),
      id: key(n), ts: 1000, amount: n / 7, status: 'new',
    };
  }
  await lib.writeHoodieBaseFile(storage, join(dir, baseName), { schema: full, rows, codec: 'GZIP', bloomFilter: false });
  console.log(`  base file: ${ROWS} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const schemaJson = JSON.stringify(full);
  for (let i = 0; i < LOGS; i++) {
    const inst = logInstant(i);
    const recs = [];
    for (let j = 0; j < LOG_ROWS; j++) {
      // updates spread over the base keys; the last 5% of each log are inserts of new keys
      const n = j < LOG_ROWS * 0.95 ? (j * 19 + i * 7919) % ROWS : ROWS + i * LOG_ROWS + j;
      recs.push({
        _hoodie_commit_time: inst, _hoodie_commit_seqno: `${inst}_0_${j}`, _hoodie_record_key: key(n), _hoodie_partition_path: '', _hoodie_file_name: logName(i),
        id: key(n), ts: 2000 + i, amount: j, status: 'upd',
      });
    }
    const block = lib.encodeAvroDataBlock({ instantTime: inst, schema: schemaJson, records: recs });
    await lib.writeLogFile(storage, join(dir, logName(i)), [block]);
  }
  writeFileSync(join(dir, '.complete'), '');
  console.log(`  generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function measure() {
  const lib = await import('../dist/bench-lib.js');
  const storage = new lib.LocalStorage();
  const config = lib.mergeConfigFromProperties({
    'hoodie.table.version': '8',
    'hoodie.table.ordering.fields': 'ts',
    'hoodie.record.merge.mode': 'EVENT_TIME_ORDERING',
    'hoodie.table.recordkey.fields': 'id',
  });
  const valid = new Set([BASE_INSTANT, ...Array.from({ length: LOGS }, (_, i) => logInstant(i))]);
  const t0 = process.hrtime.bigint();
  const m = await lib.mergeFileSlice(
    storage,
    {
      partition: '',
      fileId,
      baseFile: { path: join(dir, baseName), ext: 'parquet' },
      logFiles: Array.from({ length: LOGS }, (_, i) => ({ path: join(dir, logName(i)) })),
    },
    { config, isValidInstant: (t) => valid.has(t) },
  );
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const out = {
    ms,
    inputRecords: m.stats.baseRecords + m.stats.totalLogRecords,
    outputRows: m.rows.length,
    updated: m.stats.totalUpdatedRecordsCompacted,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(out));
}

if (process.argv[2] === '--measure') {
  await measure();
} else {
  if (!existsSync(join(root, 'dist', 'bench-lib.js'))) throw new Error('run `node scripts/build.mjs` first');
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating a ${ROWS}-row base file + ${LOGS} log files of ${LOG_ROWS} records in ${dir} …`);
    await generate();
  }
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const results = [];
  for (let r = 0; r < runs; r++) {
    const p = spawnSync(process.execPath, ['--max-old-space-size=8192', new URL(import.meta.url).pathname, '--measure'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (p.status !== 0) throw new Error(`measure failed: ${p.stderr}`);
    results.push(JSON.parse(p.stdout));
  }
  results.sort((a, b) => a.ms - b.ms);
  const med = results[Math.floor(results.length / 2)];
  const rps = (med.inputRecords / med.ms) * 1000;
  console.log(
    `merged scan: ${med.inputRecords} input records (base ${ROWS} + logs ${LOGS}×${LOG_ROWS}) → ${med.outputRows} rows, ` +
      `${med.updated} updated, median ${(med.ms / 1000).toFixed(2)} s of ${runs} → ${Math.round(rps).toLocaleString('en')} records/s; ` +
      `peak RSS ${Math.round(Math.max(...results.map((x) => x.maxRssMB)))} MB`,
  );
  mkdirSync(join(root, '.bench-out'), { recursive: true });
  writeFileSync(join(root, '.bench-out', 'merge.json'), JSON.stringify({ rows: ROWS, logRows: LOG_ROWS, logs: LOGS, runs: results, recordsPerSecond: rps }, null, 2));
}
