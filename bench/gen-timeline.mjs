// Synthetic table with N completed deltacommits (plus their requested/inflight files) for the
// timeline benchmarks. Layout 1 writes JSON commit metadata like Hudi 0.14, layout 2 Avro like 1.x.
// Usage: node bench/gen-timeline.mjs <dir> <layout 1|2> [instants=20000]
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export async function generateTimelineTable(dir, layout, n = 20000) {
  const { encodeCommitMetadataJson, encodeCommitMetadataAvro } = await import('../dist/bench-lib.js');
  const meta = join(dir, '.hoodie');
  const tl = layout === 2 ? join(meta, 'timeline') : meta;
  mkdirSync(tl, { recursive: true });
  const props = [
    'hoodie.table.name=bench_orders',
    'hoodie.database.name=default',
    'hoodie.table.type=MERGE_ON_READ',
    `hoodie.table.version=${layout === 2 ? 8 : 6}`,
    `hoodie.timeline.layout.version=${layout}`,
    'hoodie.table.recordkey.fields=order_id',
    'hoodie.table.partition.fields=region',
  ];
  writeFileSync(join(meta, 'hoodie.properties'), `#bench\n${props.join('\n')}\n`);
  const base = Date.UTC(2025, 0, 1);
  const pad = (v, w) => String(v).padStart(w, '0');
  const ts = (ms) => {
    const d = new Date(ms);
    return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}${pad(d.getUTCMilliseconds(), 3)}`;
  };
  for (let i = 0; i < n; i++) {
    const rt = ts(base + i * 60_000);
    const ct = ts(base + i * 60_000 + 1500);
    const stats = {};
    for (const region of ['region=us', 'region=eu']) {
      stats[region] = [0, 1].map((k) => ({
        fileId: `${pad(i % 97, 8)}-aaaa-bbbb-cccc-${pad(k, 12)}-0`,
        path: `${region}/.${pad(i % 97, 8)}-aaaa-bbbb-cccc-${pad(k, 12)}-0_${rt}.log.1_0-1-1`,
        prevCommit: i === 0 ? 'null' : ts(base + (i - 1) * 60_000),
        partitionPath: region,
        numWrites: 100 + (i % 7), numDeletes: i % 3, numUpdateWrites: 50, numInserts: 50 + (i % 7),
        totalWriteBytes: 40_000 + i, totalWriteErrors: 0, totalLogRecords: 0, totalLogFilesCompacted: 0,
        totalLogSizeCompacted: 0, totalUpdatedRecordsCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0,
        totalRollbackBlocks: 0, fileSizeInBytes: 40_000 + i, logVersion: 1, logOffset: 0,
        baseFile: '', logFiles: [], runtimeStats: { totalScanTime: 0, totalUpsertTime: 12, totalCreateTime: 0 },
      }));
    }
    const m = { partitionToWriteStats: stats, compacted: false, extraMetadata: { schema: '{"type":"record","name":"r","fields":[]}' }, operationType: 'UPSERT' };
    const body = layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta: true });
    writeFileSync(join(tl, `${rt}.deltacommit.requested`), '');
    writeFileSync(join(tl, `${rt}.deltacommit.inflight`), '');
    writeFileSync(join(tl, layout === 2 ? `${rt}_${ct}.deltacommit` : `${rt}.deltacommit`), body);
  }
  writeFileSync(join(dir, '.complete'), '');
  return dir;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const [dir, layout, n] = process.argv.slice(2);
  if (!existsSync(join(dir, '.complete'))) await generateTimelineTable(dir, Number(layout), Number(n ?? 20000));
}
