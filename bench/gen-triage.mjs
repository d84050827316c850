// Synthetic MERGE_ON_READ table for the triage benchmarks (bench/triage.mjs): `groups` file groups in
// `partitions` partitions, each one base file and 3 log files (all empty: triage only lists). Every
// batch of up to 100 partitions gets 4 completed deltacommits (1 insert, 3 upserts) whose write stats
// name every file of the batch, so a commit file is ~49 MB of JSON however large the table: 200,000
// files → 4 commits, 2,000,000 files → 40 commits. Layout 1 (table version 6) writes JSON commit
// metadata like Hudi 0.x, layout 2 (table version 8) Avro like 1.x.
// Usage: node bench/gen-triage.mjs <dir> [groups=50000] [partitions=100] [layout=1]
import { closeSync, existsSync, linkSync, mkdirSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BATCH_PARTITIONS = 100;

export async function generateTriageTable(dir, { groups = 50000, partitions = 100, layout = 1 } = {}) {
  const { encodeCommitMetadataJson, encodeCommitMetadataAvro } = await import('../dist/bench-lib.js');
  const meta = join(dir, '.hoodie');
  const tl = layout === 2 ? join(meta, 'timeline') : meta;
  mkdirSync(tl, { recursive: true });
  writeFileSync(join(meta, 'hoodie.properties'), [
    'hoodie.table.name=bench_orders', 'hoodie.table.type=MERGE_ON_READ', `hoodie.table.version=${layout === 2 ? 8 : 6}`,
    `hoodie.timeline.layout.version=${layout}`, 'hoodie.table.recordkey.fields=order_id', 'hoodie.table.partition.fields=region',
    'hoodie.table.precombine.field=ts', '',
  ].join('\n'));
  const perPartition = Math.ceil(groups / partitions);
  const t = (i) => `20250101${String(Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}00000`;
  const ct = (i) => `20250101${String(Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}30000`;
  const stat = (fileId, path, prevCommit, partitionPath) => ({
    fileId, path, prevCommit, partitionPath, numWrites: 1, numDeletes: 0, numUpdateWrites: 0, numInserts: 1, totalWriteBytes: 0, totalWriteErrors: 0,
    totalLogRecords: 0, totalLogFilesCompacted: 0, totalLogSizeCompacted: 0, totalUpdatedRecordsCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0,
    totalRollbackBlocks: 0, fileSizeInBytes: 0, minEventTime: null, maxEventTime: null, runtimeStats: null, cdcStats: null, tempPath: null,
  });
  let files = 0;
  for (let b = 0; b * BATCH_PARTITIONS < partitions; b++) {
    const first = b * 4;
    const stats = [{}, {}, {}, {}];
    for (let p = b * BATCH_PARTITIONS; p < Math.min(partitions, (b + 1) * BATCH_PARTITIONS); p++) {
      const part = `region=r${p}`;
      mkdirSync(join(dir, part), { recursive: true });
      writeFileSync(join(dir, part, '.hoodie_partition_metadata'), `commitTime=${t(first)}\npartitionDepth=1\n`);
      for (let s = 0; s < 4; s++) stats[s][part] = [];
      // every data file is a hard link to one empty file per partition: one syscall per file, no inode
      // each (2,000,000 files generate in minutes); what triage sees (names, size 0) is the same
      const empty = join(dir, part, '.bench-empty');
      closeSync(openSync(empty, 'w'));
      const touch = (name) => linkSync(empty, join(dir, part, name));
      for (let g = 0; g < perPartition && p * perPartition + g < groups; g++) {
        const fileId = `${String(p).padStart(5, '0')}${String(g).padStart(3, '0')}-aaaa-4bbb-8ccc-dddddddddddd-0`;
        const base = `${fileId}_0-1-${g}_${t(first)}.parquet`;
        touch(base);
        stats[0][part].push(stat(fileId, `${part}/${base}`, null, part));
        for (let v = 1; v <= 3; v++) {
          // layout 1 names a log after its base instant, layout 2 after the deltacommit that wrote it
          const log = `.${fileId}_${t(layout === 2 ? first + v : first)}.log.${v}_0-${v + 1}-${g}`;
          touch(log);
          stats[v][part].push({ ...stat(fileId, `${part}/${log}`, t(first), part), logVersion: v, logOffset: 0, baseFile: base, logFiles: [log] });
        }
        files += 4;
      }
      unlinkSync(empty);
    }
    for (let i = 0; i < 4; i++) {
      const m = { partitionToWriteStats: stats[i], compacted: false, extraMetadata: {}, operationType: i === 0 ? 'INSERT' : 'UPSERT' };
      writeFileSync(join(tl, `${t(first + i)}.deltacommit.requested`), '');
      writeFileSync(join(tl, `${t(first + i)}.deltacommit.inflight`), '');
      writeFileSync(join(tl, layout === 2 ? `${t(first + i)}_${ct(first + i)}.deltacommit` : `${t(first + i)}.deltacommit`), layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta: true }));
    }
  }
  // inside .hoodie, which triage does not list (a file in the base path would be an orphan)
  writeFileSync(join(meta, '.bench-complete'), '');
  return { dir, files: files + partitions };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, groups, partitions, layout] = process.argv.slice(2);
  if (!existsSync(join(dir, '.hoodie', '.bench-complete'))) {
    const t0 = performance.now();
    const r = await generateTriageTable(dir, { groups: Number(groups ?? 50000), partitions: Number(partitions ?? 100), layout: Number(layout ?? 1) });
    console.log(`generated ${r.files} files at ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
}
