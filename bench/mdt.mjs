// Metadata-table benchmarks (issue 14), on tables generated here with tblcli's own writers:
//  A. the MDT update's share of a compaction run: a table-version-8 MOR table of 1,000 file groups
//     (10 partitions × 100; a base file + 9 log files each, so 10,000 files listed in the MDT's `files`
//     partition, column_stats on 6 columns); `compaction run` keeping the MDT (default) — its MDT step
//     (files + column_stats records of the 1,000 new base files, one deltacommit) timed inside the run,
//     and the same run on a copy without an MDT as the differential floor. Goal: ≤ 10 % of the run.
//  B. MDT compaction of a 100,000-file `files` partition (100 partitions; a base HFile of 50,000 + 10
//     deltacommit log files of 5,000 each), against reading the same records (readMetadataTableFiles,
//     the listing every MDT reader does) as the floor. Goal: ≤ 2× the floor.
// Each measurement runs in its own process on a fresh copy; medians of BENCH_RUNS (default 3). Never asserted.
// Usage: node bench/mdt.mjs   (env BENCH_RUNS=3, BENCH_MDT_FILES=100000 for B)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.bench-out');
const libFile = join(out, 'mdt-lib.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const B_FILES = Number(process.env.BENCH_MDT_FILES ?? 100_000);
const SCHEMA_TEXT = JSON.stringify(JSON.parse(readFileSync(join(root, 'bench/mdt-schema-v8.json'), 'utf8')));
const T0 = Date.UTC(2025, 0, 1);
/** yyyyMMddHHmmssSSS (UTC) of T0 + ms */
const time = (ms) => new Date(T0 + ms).toISOString().replace(/[-:TZ.]/g, '').slice(0, 17);
const INIT = ['00000000000000000', '00000000000000001'];

const dataSchema = {
  type: 'record', name: 'bench_record', namespace: 'hoodie.bench',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'status', type: ['null', 'string'], default: null },
  ],
};

function writeProps(path, entries) {
  writeFileSync(path, `#Properties saved on 2025-01-01T00:00:00Z\n${entries.map(([k, v]) => `${k}=${String(v).replaceAll(':', '\\:')}`).join('\n')}\n`);
}

/** requested, inflight and completed files of an instant on a layout-2 timeline */
function instant(dir, t, action, ct, content) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${t}.${action}.requested`), '');
  writeFileSync(join(dir, `${t}.${action}.inflight`), '');
  writeFileSync(join(dir, `${t}_${ct}.${action}`), content);
}

function commitBytes(lib, schema, op) {
  const m = lib.emptyCommitMetadata();
  m.extraMetadata = { schema };
  m.operationType = op;
  return lib.encodeCommitMetadataAvro(m);
}

function dataTable(base, extra = []) {
  mkdirSync(join(base, '.hoodie', 'timeline'), { recursive: true });
  writeProps(join(base, '.hoodie', 'hoodie.properties'), [
    ['hoodie.table.name', 'bench'], ['hoodie.table.type', 'MERGE_ON_READ'], ['hoodie.table.version', 8], ['hoodie.table.initial.version', 8],
    ['hoodie.timeline.layout.version', 2], ['hoodie.timeline.path', 'timeline'], ['hoodie.timeline.history.path', 'history'],
    ['hoodie.table.precombine.field', 'ts'], ['hoodie.table.recordkey.fields', 'id'], ['hoodie.timeline.timezone', 'UTC'],
    ['hoodie.table.create.schema', JSON.stringify(dataSchema)], ['hoodie.table.metadata.partitions.inflight', ''], ...extra,
  ]);
}

function mdtSkeleton(base, name) {
  const mdt = join(base, '.hoodie', 'metadata');
  mkdirSync(join(mdt, '.hoodie', 'timeline'), { recursive: true });
  writeProps(join(mdt, '.hoodie', 'hoodie.properties'), [
    ['hoodie.compaction.payload.class', 'org.apache.hudi.metadata.HoodieMetadataPayload'], ['hoodie.table.initial.version', 8],
    ['hoodie.table.keygenerator.type', 'HOODIE_TABLE_METADATA'], ['hoodie.table.type', 'MERGE_ON_READ'], ['hoodie.archivelog.folder', 'history'],
    ['hoodie.timeline.layout.version', 2], ['hoodie.timeline.history.path', 'history'], ['hoodie.table.recordkey.fields', 'key'],
    ['hoodie.table.name', `${name}_metadata`], ['hoodie.timeline.path', 'timeline'], ['hoodie.populate.meta.fields', 'false'],
    ['hoodie.table.base.file.format', 'HFILE'], ['hoodie.record.merge.mode', 'CUSTOM'], ['hoodie.table.version', 8],
  ]);
  return mdt;
}

/** an MDT partition directory with its init log per file group (the 80-byte empty delete block) */
async function mdtPartition(lib, storage, mdt, partition, fileIds, initInstant) {
  mkdirSync(join(mdt, partition), { recursive: true });
  writeFileSync(join(mdt, partition, '.hoodie_partition_metadata'), `#partition metadata\ncommitTime=${initInstant}\npartitionDepth=1\n`);
  for (const id of fileIds) {
    await lib.writeLogFile(storage, join(mdt, partition, `.${id}_${initInstant}.log.1_0-0-0`), [lib.encodeDeleteBlock({ instantTime: initInstant, schema: undefined, deletes: [] })]);
  }
}

const byKey = (a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));

async function generateA(lib, dir) {
  const storage = new lib.LocalStorage();
  const base = join(dir, 'table');
  const schema = lib.mdtWriterSchema(SCHEMA_TEXT);
  const full = lib.withHoodieMetaFields(dataSchema);
  const cols = ['_hoodie_commit_time', '_hoodie_partition_path', '_hoodie_record_key', 'id', 'ts', 'amount'];
  dataTable(base, [['hoodie.table.metadata.partitions', 'column_stats,files'], ['hoodie.table.index.defs.path', '.hoodie/.index_defs/index.json']]);
  mkdirSync(join(base, '.hoodie', '.index_defs'), { recursive: true });
  writeFileSync(join(base, '.hoodie', '.index_defs', 'index.json'), JSON.stringify({ indexDefinitions: { column_stats: { indexName: 'column_stats', indexType: 'column_stats', indexFunction: 'column_stats', sourceFields: cols, indexOptions: {} } } }));
  const tl = join(base, '.hoodie', 'timeline');
  const B = time(1000);
  const D = Array.from({ length: 9 }, (_, i) => time(2000 + i * 1000));
  instant(tl, B, 'deltacommit', time(1500), commitBytes(lib, JSON.stringify(dataSchema), 'BULK_INSERT'));
  D.forEach((t, i) => instant(tl, t, 'deltacommit', time(2500 + i * 1000), commitBytes(lib, JSON.stringify(dataSchema), 'UPSERT')));
  const listing = new Map();
  const colStats = [];
  for (let p = 0; p < 10; p++) {
    const partition = `p=${String(p).padStart(2, '0')}`;
    mkdirSync(join(base, partition), { recursive: true });
    writeFileSync(join(base, partition, '.hoodie_partition_metadata'), `#partition metadata\ncommitTime=${B}\npartitionDepth=1\n`);
    const files = new Map();
    for (let g = 0; g < 100; g++) {
      const fileId = `${String(p * 100 + g).padStart(8, '0')}-aaaa-bbbb-cccc-000000000000-0`;
      const name = `${fileId}_0-1-0_${B}.parquet`;
      const key = (n) => `k-${partition}-${g}-${n}`;
      const w = lib.openHoodieParquetWriter({ schema: full, codec: 'GZIP' });
      for (let n = 0; n < 20; n++) w.writeRow({ ...lib.hoodieMetaValues({ instant: B, seq: n, recordKey: key(n), partitionPath: partition, fileName: name }), id: key(n), ts: 1000, amount: n / 7, status: 'new' });
      const f = await lib.finishHoodieBaseFile(storage, join(base, partition, name), w);
      files.set(name, f.size);
      const bytes = readFileSync(join(base, partition, name));
      const len = bytes.readInt32LE(bytes.length - 8);
      colStats.push(...lib.columnStatsRecordsFromFooter(partition, name, new Uint8Array(bytes.subarray(bytes.length - 8 - len)), cols, 'legacy'));
      for (let i = 0; i < D.length; i++) {
        const log = `.${fileId}_${D[i]}.log.1_0-1-0`;
        const recs = [0, 1].map((n) => ({ _hoodie_commit_time: D[i], _hoodie_commit_seqno: `${D[i]}_0_${n}`, _hoodie_record_key: key(n), _hoodie_partition_path: partition, _hoodie_file_name: fileId, id: key(n), ts: 2000 + i, amount: i, status: 'upd' }));
        files.set(log, await lib.writeLogFile(storage, join(base, partition, log), [lib.encodeAvroDataBlock({ instantTime: D[i], schema: JSON.stringify(full), records: recs })]));
      }
    }
    listing.set(partition, files);
  }
  // the MDT as a bulk insert leaves it: everything in the init base files
  const mdt = mdtSkeleton(base, 'bench');
  const mtl = join(mdt, '.hoodie', 'timeline');
  await mdtPartition(lib, storage, mdt, 'files', ['files-0000-0'], INIT[0]);
  await mdtPartition(lib, storage, mdt, 'column_stats', ['col-stats-0000-0', 'col-stats-0001-0'], INIT[1]);
  const filesRecs = [lib.partitionListRecord([...listing.keys()]), ...[...listing].map(([p, m]) => lib.filesRecord(p, m))].sort(byKey);
  const fname = `files-0000-0_0-0-0_${INIT[0]}.hfile`;
  writeFileSync(join(mdt, 'files', fname), lib.mdtBaseFile(filesRecs, schema, fname, 8));
  for (const g of [0, 1]) {
    const id = `col-stats-000${g}-0`;
    const n = `${id}_0-0-${g}_${INIT[1]}.hfile`;
    writeFileSync(join(mdt, 'column_stats', n), lib.mdtBaseFile(colStats.filter((r) => lib.fileGroupIndex(r.key, 2) === g).sort(byKey), schema, n, 8));
  }
  const noMeta = JSON.stringify({ ...JSON.parse(SCHEMA_TEXT), fields: JSON.parse(SCHEMA_TEXT).fields.filter((f) => !f.name.startsWith('_hoodie_')) });
  INIT.forEach((t, i) => instant(mtl, t, 'deltacommit', time(100 + i), commitBytes(lib, noMeta, 'BULK_INSERT')));
  writeFileSync(join(dir, '.complete'), '');
}

async function generateB(lib, dir) {
  const storage = new lib.LocalStorage();
  const base = join(dir, 'table');
  const schema = lib.mdtWriterSchema(SCHEMA_TEXT);
  dataTable(base, [['hoodie.table.metadata.partitions', 'files']]);
  const tl = join(base, '.hoodie', 'timeline');
  const D = Array.from({ length: 10 }, (_, i) => time(2000 + i * 1000));
  D.forEach((t, i) => instant(tl, t, 'deltacommit', time(2500 + i * 1000), commitBytes(lib, JSON.stringify(dataSchema), 'UPSERT')));
  const mdt = mdtSkeleton(base, 'benchb');
  const mtl = join(mdt, '.hoodie', 'timeline');
  await mdtPartition(lib, storage, mdt, 'files', ['files-0000-0'], INIT[0]);
  const P = 100;
  const perPartition = B_FILES / P;
  const inBase = perPartition / 2;
  const perLog = (perPartition - inBase) / D.length;
  const name = (p, n) => `${String(p * 100000 + n).padStart(8, '0')}-aaaa-bbbb-cccc-000000000000-0_0-1-0_20250101000000000.parquet`;
  const parts = Array.from({ length: P }, (_, p) => `p=${String(p).padStart(3, '0')}`);
  const initRecs = [lib.partitionListRecord(parts), ...parts.map((part, p) => lib.filesRecord(part, Array.from({ length: inBase }, (_, n) => [name(p, n), 400_000 + n])))].sort(byKey);
  const fname = `files-0000-0_0-0-0_${INIT[0]}.hfile`;
  writeFileSync(join(mdt, 'files', fname), lib.mdtBaseFile(initRecs, schema, fname, 8));
  const noMeta = JSON.stringify({ ...JSON.parse(SCHEMA_TEXT), fields: JSON.parse(SCHEMA_TEXT).fields.filter((f) => !f.name.startsWith('_hoodie_')) });
  instant(mtl, INIT[0], 'deltacommit', time(100), commitBytes(lib, noMeta, 'BULK_INSERT'));
  for (let i = 0; i < D.length; i++) {
    const recs = [lib.partitionListRecord(parts), ...parts.map((part, p) => lib.filesRecord(part, Array.from({ length: perLog }, (_, j) => [name(p, inBase + i * perLog + j), 400_000 + j])))].sort(byKey);
    const cells = recs.map((r) => ({ key: r.key, value: lib.encodeMetadataRecord(r, schema) }));
    const block = lib.encodeLogBlock({ type: 'HFILE_DATA_BLOCK', header: [['SCHEMA', SCHEMA_TEXT], ['INSTANT_TIME', D[i]]], content: lib.writeHFile(cells, { fileInfo: { schema: SCHEMA_TEXT } }) });
    await lib.writeLogFile(storage, join(mdt, 'files', `.files-0000-0_${D[i]}.log.1_0-1-${i}`), [block]);
    instant(mtl, D[i], 'deltacommit', time(2400 + i * 1000), commitBytes(lib, noMeta, 'UPSERT_PREPPED'));
  }
  writeFileSync(join(dir, '.complete'), '');
}

async function measure(mode, table) {
  const lib = await import(libFile);
  const opts = { clockSkewMs: 0 };
  let extra = {};
  const t0 = process.hrtime.bigint();
  if (mode === 'run' || mode === 'run-no-mdt') {
    const s = await lib.scheduleCompaction(await lib.openTable(table), { ...opts, strategy: 'all' });
    if (!s.instant) throw new Error('nothing scheduled');
    const marks = {};
    const onPoint = (p) => (marks[p] ??= process.hrtime.bigint());
    const start = process.hrtime.bigint();
    const r = await lib.runCompaction(await lib.openTable(table), { ...opts, parallelism: 2, fileGroupWorkers: 'never', onPoint });
    const end = process.hrtime.bigint();
    if (r.status !== 'completed' || r.fileGroups !== 1000) throw new Error(`compaction: ${r.status} ${r.fileGroups}`);
    extra = { runMs: Number(end - start) / 1e6, mdtMs: marks['after-mdt-commit'] ? Number(marks['after-mdt-commit'] - marks['before-complete']) / 1e6 : 0, mdtCompaction: r.metadataCompaction?.instant ?? null };
  } else if (mode === 'compact') {
    const r = await lib.compactMetadataTableIfDue(await lib.openTable(table), opts);
    if (!r.result) throw new Error(`no MDT compaction: ${r.reason}`);
    extra = { records: r.result.records };
  } else {
    const f = await lib.readMetadataTableFiles(new lib.LocalStorage(), table);
    extra = { files: [...f.files.values()].reduce((n, m) => n + m.size, 0) };
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, ...extra, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

function runAll(dir, modes, prepare) {
  const res = Object.fromEntries(modes.map((m) => [m, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const mode of modes) {
      const copy = join(dir, `run-${mode}-${r}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(join(dir, 'table'), copy, { recursive: true });
      prepare?.(mode, copy);
      const p = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--measure', mode, copy], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rmSync(copy, { recursive: true, force: true });
      if (p.status !== 0) throw new Error(`${mode} failed: ${p.stderr}`);
      res[mode].push(JSON.parse(p.stdout));
    }
  }
  return res;
}

const median = (xs, k = 'ms') => [...xs].map((x) => x[k]).sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[2] === '--measure') {
  await measure(process.argv[3], process.argv[4]);
} else {
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: [join(root, 'bench/mdt-lib.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: libFile, logLevel: 'error', packages: 'external' });
  const lib = await import(libFile);
  const dirA = join(out, 'mdt-a-1000fg');
  const dirB = join(out, `mdt-b-${B_FILES}`);
  if (!existsSync(join(dirA, '.complete'))) {
    rmSync(dirA, { recursive: true, force: true });
    console.log(`generating A: 1,000 file groups, 10,000 files in the MDT in ${dirA} …`);
    await generateA(lib, dirA);
  }
  if (!existsSync(join(dirB, '.complete'))) {
    rmSync(dirB, { recursive: true, force: true });
    console.log(`generating B: an MDT files partition of ${B_FILES.toLocaleString('en')} files in ${dirB} …`);
    await generateB(lib, dirB);
  }
  const a = runAll(dirA, ['run', 'run-no-mdt'], (mode, copy) => {
    if (mode !== 'run-no-mdt') return;
    rmSync(join(copy, '.hoodie', 'metadata'), { recursive: true, force: true });
    const p = join(copy, '.hoodie', 'hoodie.properties');
    writeFileSync(p, readFileSync(p, 'utf8').replace(/^hoodie\.table\.metadata\.partitions=.*$/m, 'hoodie.table.metadata.partitions='));
  });
  const run = median(a.run, 'runMs');
  const mdt = median(a.run, 'mdtMs');
  const none = median(a['run-no-mdt'], 'runMs');
  const b = runAll(dirB, ['compact', 'read']);
  const compact = median(b.compact);
  const read = median(b.read);
  const share = mdt / run;
  const diff = (run - none) / run;
  console.log(
    `A. compaction run, 1,000 file groups, 10,000 files in the MDT (files + column_stats on 6 columns): median ${(run / 1000).toFixed(2)} s of ${RUNS}; ` +
      `its MDT step (records of 1,000 new base files, one deltacommit) ${(mdt / 1000).toFixed(2)} s = ${(share * 100).toFixed(1)} % of the run (goal ≤ 10 %: ${share <= 0.1 ? 'met' : 'missed'}); ` +
      `the same run without an MDT ${(none / 1000).toFixed(2)} s → differential ${(diff * 100).toFixed(1)} %\n` +
      `B. MDT compaction of a ${B_FILES.toLocaleString('en')}-file files partition (base HFile + 10 log files): median ${(compact / 1000).toFixed(2)} s; ` +
      `reading the same records (readMetadataTableFiles) ${(read / 1000).toFixed(2)} s → ${(compact / read).toFixed(2)}× the floor (goal ≤ 2×: ${compact / read <= 2 ? 'met' : 'missed'}); ` +
      `peak RSS compaction ${Math.round(Math.max(...b.compact.map((x) => x.maxRssMB)))} MB, read ${Math.round(Math.max(...b.read.map((x) => x.maxRssMB)))} MB`,
  );
  writeFileSync(join(out, 'mdt.json'), JSON.stringify({ runs: RUNS, a, b, share, differential: diff, compactOverRead: compact / read }, null, 2));
}
