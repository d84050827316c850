// A generated table of many small base files, as a Flink append writer leaves it (incidents.md §3): table
// version 6 (layout 1) or 9 (layout 2), COW or MOR, partitioned, one instant per file (bulk insert),
// written by our writer (flat schema: the packed rewrite path). MOR tables also get, per file group,
// a log file of updates, a few deletes and new inserts in later deltacommits. Deterministic per seed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatBaseFileName, formatLogFileName } from '../../src/fs-view/index.ts';
import { encodeAvroDataBlock, encodeDeleteBlock } from '../../src/logfile/index.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat, type CommitMetadata, type WriteStat } from '../../src/metadata/index.ts';
import { openHoodieParquetWriter } from '../../src/parquet/write-incremental.ts';
import { hoodieMetaValues, withHoodieMetaFields, type AvroRecordSchema, type ParquetCodec } from '../../src/parquet/write.ts';
import { formatInstantFileName } from '../../src/timeline/index.ts';

export const SMALL_FILES_SCHEMA: AvroRecordSchema = {
  type: 'record',
  name: 'events_record',
  namespace: 'hoodie.events',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: ['null', 'double'], default: null },
    { name: 'city', type: ['null', 'string'], default: null },
    { name: 'qty', type: ['null', 'int'], default: null },
    { name: 'flag', type: ['null', 'boolean'], default: null },
    { name: 'part', type: 'string' },
  ],
};

export interface SmallFilesOptions {
  version: 6 | 9;
  type: 'COPY_ON_WRITE' | 'MERGE_ON_READ';
  partitions: string[];
  filesPerPartition: number;
  rowsPerFile: number;
  /** MOR: records updated per file group in its log (plus 2 deletes and 3 inserts) */
  logUpdates?: number;
  codec?: ParquetCodec;
  rowGroupSize?: number;
  seed?: number;
}

const CITIES = ['sfo', 'nyc', 'ber', 'par', 'tok', 'syd', null, 'rio', 'ams', 'zrh'];

function propValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/([:=])/g, '\\$1');
}

/** Writes the table into `base` (must not exist yet or be empty). Returns the record count of its snapshot. */
export function generateSmallFilesTable(base: string, o: SmallFilesOptions): { records: number; files: number } {
  const layout = o.version >= 8 ? 2 : 1;
  const timeline = layout === 2 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
  mkdirSync(layout === 2 ? join(timeline, 'history') : timeline, { recursive: true });
  const props = [
    'hoodie.table.name=events',
    `hoodie.table.type=${o.type}`,
    `hoodie.table.version=${o.version}`,
    `hoodie.timeline.layout.version=${layout}`,
    ...(layout === 2 ? ['hoodie.timeline.path=timeline', 'hoodie.timeline.history.path=history', 'hoodie.table.ordering.fields=ts', 'hoodie.record.merge.mode=EVENT_TIME_ORDERING', 'hoodie.table.initial.version=9'] : ['hoodie.table.precombine.field=ts']),
    'hoodie.table.recordkey.fields=id',
    'hoodie.table.partition.fields=part',
    'hoodie.timeline.timezone=UTC',
    'hoodie.datasource.write.hive_style_partitioning=false',
    'hoodie.table.keygenerator.class=org.apache.hudi.keygen.SimpleKeyGenerator',
    `hoodie.table.create.schema=${propValue(JSON.stringify(SMALL_FILES_SCHEMA))}`,
  ];
  writeFileSync(join(base, '.hoodie', 'hoodie.properties'), `${props.join('\n')}\n`);
  const full = withHoodieMetaFields(SMALL_FILES_SCHEMA);
  const schemaJson = JSON.stringify(SMALL_FILES_SCHEMA);
  let clock = Date.UTC(2025, 0, 1) + (o.seed ?? 0) * 1000;
  const nextInstant = () => {
    clock += 1000;
    return new Date(clock).toISOString().replace(/[-:TZ.]/g, '').slice(0, 17);
  };
  const action = o.type === 'COPY_ON_WRITE' ? 'commit' : 'deltacommit';
  const commit = (t: string, stats: WriteStat[], op = 'BULK_INSERT') => {
    const byPartition: Record<string, WriteStat[]> = {};
    for (const s of stats) (byPartition[s.partitionPath] ??= []).push(s);
    const m: CommitMetadata = { partitionToWriteStats: byPartition, compacted: false, extraMetadata: { schema: schemaJson }, operationType: op, version: 1 };
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action, state: 'REQUESTED' }, layout)), new Uint8Array(0));
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action, state: 'INFLIGHT' }, layout)), new Uint8Array(0));
    const ct = layout === 2 ? `${t.slice(0, 14)}500` : undefined;
    const content = layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta: action === 'deltacommit' });
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action, state: 'COMPLETED', completionTime: ct }, layout)), content);
  };
  let seq = 0;
  let records = 0;
  let files = 0;
  const groups: { partition: string; fileId: string; baseInstant: string; keys: string[] }[] = [];
  for (const [pi, partition] of o.partitions.entries()) {
    mkdirSync(join(base, partition), { recursive: true });
    writeFileSync(join(base, partition, '.hoodie_partition_metadata'), `#partition metadata\ncommitTime=20250101000000000\npartitionDepth=${partition.split('/').length}\n`);
    for (let f = 0; f < o.filesPerPartition; f++) {
      const t = nextInstant();
      const fileId = `a${String(pi).padStart(7, '0')}-${String(f).padStart(4, '0')}-4000-8000-${String(o.seed ?? 0).padStart(12, '0')}-0`;
      const name = formatBaseFileName({ fileId, writeToken: '0-1-0', instant: t, ext: 'parquet' });
      const w = openHoodieParquetWriter({ schema: full, codec: o.codec ?? 'GZIP', rowGroupSize: o.rowGroupSize ?? 10_000 });
      const keys: string[] = [];
      for (let n = 0; n < o.rowsPerFile; n++) {
        const k = seq++;
        // keys in a scrambled order: the sort has work to do
        const id = `id-${String((k * 7919) % 1_000_003).padStart(7, '0')}-${k}`;
        keys.push(id);
        w.writeRow({
          ...hoodieMetaValues({ instant: t, seq: n, recordKey: id, partitionPath: partition, fileName: name }),
          id,
          ts: 1_700_000_000_000 + ((k * 104729) % 86_400_000),
          amount: k % 11 === 0 ? null : ((k * 37) % 10_000) / 100,
          city: CITIES[k % CITIES.length] ?? null,
          qty: k % 13 === 0 ? null : (k * 31) % 500 - 100,
          flag: k % 7 === 0 ? null : k % 2 === 0,
          part: partition,
        });
      }
      const file = w.finish();
      writeFileSync(join(base, partition, name), file.bytes);
      records += o.rowsPerFile;
      files++;
      commit(t, [newWriteStat({ fileId, path: `${partition}/${name}`, prevCommit: 'null', partitionPath: partition, numWrites: o.rowsPerFile, numInserts: o.rowsPerFile, totalWriteBytes: file.bytes.length, fileSizeInBytes: file.bytes.length })]);
      groups.push({ partition, fileId, baseInstant: t, keys });
    }
  }
  if (o.type === 'MERGE_ON_READ' && (o.logUpdates ?? 0) > 0) {
    for (const g of groups) {
      const t = nextInstant();
      const updates = g.keys.slice(0, o.logUpdates);
      const recs = updates.map((id, j) => ({
        ...hoodieMetaValues({ instant: t, seq: j, recordKey: id, partitionPath: g.partition, fileName: g.fileId }),
        id,
        ts: 1_800_000_000_000 + j,
        amount: j / 3,
        city: 'upd',
        qty: j,
        flag: true,
        part: g.partition,
      }));
      for (let j = 0; j < 3; j++) {
        const id = `new-${g.fileId.slice(0, 13)}-${j}`;
        recs.push({ ...hoodieMetaValues({ instant: t, seq: updates.length + j, recordKey: id, partitionPath: g.partition, fileName: g.fileId }), id, ts: 1_800_000_000_000, amount: null as unknown as number, city: null as unknown as string, qty: null as unknown as number, flag: null as unknown as boolean, part: g.partition });
      }
      const deleted = g.keys.slice(o.logUpdates, (o.logUpdates ?? 0) + 2);
      const blocks = [
        encodeAvroDataBlock({ instantTime: t, schema: JSON.stringify(full), records: recs }),
        encodeDeleteBlock({ instantTime: t, schema: JSON.stringify(full), deletes: deleted.map((recordKey) => ({ recordKey, partitionPath: g.partition, orderingVal: { type: 'long' as const, value: 1_900_000_000_000 } })) }),
      ];
      const name = formatLogFileName({ fileId: g.fileId, instant: layout === 2 ? t : g.baseInstant, ext: 'log', version: 1, writeToken: '0-2-0' });
      const bytes = new Uint8Array(Buffer.concat(blocks));
      writeFileSync(join(base, g.partition, name), bytes);
      records += 3 - deleted.length;
      commit(t, [newWriteStat({ fileId: g.fileId, path: `${g.partition}/${name}`, prevCommit: g.baseInstant, partitionPath: g.partition, numWrites: recs.length, numUpdateWrites: updates.length, numInserts: 3, numDeletes: deleted.length, totalWriteBytes: bytes.length, fileSizeInBytes: bytes.length, logVersion: 1, logOffset: 0, baseFile: formatBaseFileName({ fileId: g.fileId, writeToken: '0-1-0', instant: g.baseInstant, ext: 'parquet' }), logFiles: [name] })], 'UPSERT');
    }
  }
  return { records, files };
}
