#!/usr/bin/env node
// doctor benchmark: a synthetic MERGE_ON_READ v6 table with ~200,000 files (50,000 file groups in 100
// partitions: one base file + 3 log files each; 1 insert + 3 upsert deltacommits whose JSON write
// stats name every file). Runs scan + doctor in a child process and reports wall time and peak RSS.
//
//   node bench/doctor.mjs [--groups 50000] [--partitions 100] [--runs 3]
//
// Files are empty: doctor only lists, it never reads data files.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = new URL('..', import.meta.url).pathname;
const out = join(repo, 'node_modules/.cache/tblcli-bench-doctor');
const lib = join(out, 'lib.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

if (process.argv[2] === '--child') {
  const { openTable, scanTable, doctor } = await import(pathToFileURL(lib).href);
  const t0 = performance.now();
  const table = await openTable(process.argv[3]);
  const scan = await scanTable(table, { now: new Date() });
  const t1 = performance.now();
  const report = await doctor(scan, {});
  const t2 = performance.now();
  process.stdout.write(JSON.stringify({ scanMs: t1 - t0, doctorMs: t2 - t1, totalMs: t2 - t0, maxRssMB: process.resourceUsage().maxRSS / 1024, files: report.table.files, fileGroups: report.table.fileGroups, severity: report.severity }));
  process.exit(0);
}

const GROUPS = arg('groups', 50000);
const PARTS = arg('partitions', 100);
const RUNS = arg('runs', 3);

mkdirSync(out, { recursive: true });
const entry = join(out, 'entry.ts');
writeFileSync(entry, `export { openTable } from '${repo}src/table/index.ts';\nexport { scanTable, doctor } from '${repo}src/triage/index.ts';\nexport { encodeCommitMetadataJson } from '${repo}src/metadata/index.ts';\n`);
await build({ entryPoints: [entry], bundle: true, outfile: lib, format: 'esm', platform: 'node', packages: 'external', logLevel: 'error' });
const { encodeCommitMetadataJson } = await import(pathToFileURL(lib).href);

const dir = join(mkdtempSync(join(tmpdir(), 'tblcli-bench-doctor-')), 'bench_orders');
const meta = join(dir, '.hoodie');
mkdirSync(meta, { recursive: true });
writeFileSync(join(meta, 'hoodie.properties'), [
  'hoodie.table.name=bench_orders', 'hoodie.table.type=MERGE_ON_READ', 'hoodie.table.version=6', 'hoodie.timeline.layout.version=1',
  'hoodie.table.recordkey.fields=order_id', 'hoodie.table.partition.fields=region', 'hoodie.table.precombine.field=ts', '',
].join('\n'));
const t = (i) => `2025010100${String(i).padStart(2, '0')}00000`;
const stat = (fileId, path, prevCommit, partitionPath) => ({
  fileId, path, prevCommit, partitionPath, numWrites: 1, numDeletes: 0, numUpdateWrites: 0, numInserts: 1, totalWriteBytes: 0, totalWriteErrors: 0,
  totalLogRecords: 0, totalLogFilesCompacted: 0, totalLogSizeCompacted: 0, totalUpdatedRecordsCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0,
  totalRollbackBlocks: 0, fileSizeInBytes: 0, minEventTime: null, maxEventTime: null, runtimeStats: null, cdcStats: null, tempPath: null,
});
const started = performance.now();
const stats = [[], [], [], []].map(() => ({}));
for (let p = 0; p < PARTS; p++) {
  const part = `region=r${p}`;
  mkdirSync(join(dir, part));
  writeFileSync(join(dir, part, '.hoodie_partition_metadata'), `commitTime=${t(0)}\npartitionDepth=1\n`);
  for (let s = 0; s < 4; s++) stats[s][part] = [];
  for (let g = 0; g < GROUPS / PARTS; g++) {
    const fileId = `${String(p).padStart(4, '0')}${String(g).padStart(4, '0')}-aaaa-4bbb-8ccc-dddddddddddd-0`;
    const base = `${fileId}_0-1-${g}_${t(0)}.parquet`;
    writeFileSync(join(dir, part, base), '');
    stats[0][part].push(stat(fileId, `${part}/${base}`, null, part));
    for (let v = 1; v <= 3; v++) {
      const log = `.${fileId}_${t(0)}.log.${v}_0-${v + 1}-${g}`;
      writeFileSync(join(dir, part, log), '');
      stats[v][part].push({ ...stat(fileId, `${part}/${log}`, t(0), part), logVersion: v, logOffset: 0, baseFile: base, logFiles: [log] });
    }
  }
}
for (let i = 0; i < 4; i++) {
  writeFileSync(join(meta, `${t(i)}.deltacommit.requested`), '');
  writeFileSync(join(meta, `${t(i)}.deltacommit.inflight`), '');
  writeFileSync(join(meta, `${t(i)}.deltacommit`), encodeCommitMetadataJson({ partitionToWriteStats: stats[i], compacted: false, extraMetadata: {}, operationType: i === 0 ? 'INSERT' : 'UPSERT' }));
}
console.log(`generated ${GROUPS * 4} data files in ${PARTS} partitions at ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const results = [];
for (let r = 0; r < RUNS; r++) {
  const c = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dir], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (c.status !== 0) throw new Error(c.stderr);
  results.push(JSON.parse(c.stdout));
  console.log(`run ${r + 1}: ${JSON.stringify(results[r])}`);
}
const med = (k) => results.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(`doctor on ${results[0].files} files / ${results[0].fileGroups} file groups: median total ${(med('totalMs') / 1000).toFixed(2)} s (scan ${(med('scanMs') / 1000).toFixed(2)} s, checks ${(med('doctorMs') / 1000).toFixed(2)} s), peak RSS ${med('maxRssMB').toFixed(0)} MB`);
if (existsSync(dir)) rmSync(join(dir, '..'), { recursive: true, force: true });
