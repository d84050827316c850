// Every instant file of every real fixture table (data table and metadata table) decodes with the decoder
// its file name calls for; values agree with catalog.json; JSON and Avro files re-encode to the same bytes.
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, allTableIds, catalogTable, table, coreTestData } from '../support/fixtures.ts';
import {
  SCHEMAS,
  readAvroContainer,
  sniffContent,
  decodeCommitMetadata,
  encodeCommitMetadataJson,
  encodeCommitMetadataAvro,
  commitTotals,
  allWriteStats,
  decodeCompactionPlan,
  encodeCompactionPlan,
  decodeCleanerPlan,
  decodeCleanMetadata,
  decodeRollbackPlan,
  encodeRollbackPlan,
  decodeRollbackMetadata,
  encodeRollbackMetadata,
  decodeSavepointMetadata,
  decodeRestorePlan,
  decodeRestoreMetadata,
  decodeRequestedReplaceMetadata,
  encodeRequestedReplaceMetadata,
  decodeIndexPlan,
  encodeIndexPlan,
  decodeIndexCommitMetadata,
  encodeIndexCommitMetadata,
  type SchemaName,
} from '../../src/metadata/index.ts';

const INSTANT = /^(\d{14,17})(?:_(\d{14,17}))?\.([a-z]+)(?:\.(requested|inflight))?$/;

interface InstantFile {
  tableId: string;
  dir: string;
  name: string;
  path: string;
  ts: string;
  action: string;
  state: 'requested' | 'inflight' | 'completed';
}

function instantFiles(tableId: string): InstantFile[] {
  const base = table(tableId);
  const dirs = ['.hoodie', '.hoodie/timeline', '.hoodie/metadata/.hoodie', '.hoodie/metadata/.hoodie/timeline'];
  const out: InstantFile[] = [];
  for (const d of dirs) {
    const dir = join(base, d);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const m = INSTANT.exec(name);
      const path = join(dir, name);
      if (!m || !statSync(path).isFile()) continue;
      // `<ts>.inflight` is a v1 commit's inflight file.
      const action = m[3] === 'inflight' ? 'commit' : m[3]!;
      const state = m[3] === 'inflight' ? 'inflight' : ((m[4] ?? 'completed') as InstantFile['state']);
      out.push({ tableId, dir: d, name, path, ts: m[1]!, action, state });
    }
  }
  return out;
}

type Decoder = (bytes: Uint8Array, ctx: { path: string }) => unknown;

/** Which decoder reads a file, from its action and state (format-timeline.md §5.1). null = must be empty. */
function decoderFor(f: InstantFile): { decode: Decoder | null; schema?: SchemaName; mayBeEmpty: boolean } {
  const key = `${f.action}.${f.state}`;
  switch (key) {
    case 'commit.completed':
    case 'deltacommit.completed':
    case 'replacecommit.completed':
    case 'commit.inflight':
    case 'deltacommit.inflight':
    case 'replacecommit.inflight':
    case 'clustering.inflight':
      return { decode: (b: Uint8Array, c: { path: string }) => decodeCommitMetadata(b, c, { preserveKeyOrder: true }), mayBeEmpty: f.state !== 'completed' };
    case 'commit.requested':
    case 'deltacommit.requested':
    case 'compaction.inflight':
    case 'logcompaction.inflight':
    case 'rollback.inflight':
    case 'indexing.inflight':
    case 'savepoint.inflight':
    case 'restore.inflight':
      return { decode: null, mayBeEmpty: true };
    case 'replacecommit.requested':
    case 'clustering.requested':
      return { decode: decodeRequestedReplaceMetadata, schema: 'HoodieRequestedReplaceMetadata', mayBeEmpty: false };
    case 'compaction.requested':
    case 'logcompaction.requested':
      return { decode: decodeCompactionPlan, schema: 'HoodieCompactionPlan', mayBeEmpty: false };
    case 'clean.requested':
      return { decode: decodeCleanerPlan, schema: 'HoodieCleanerPlan', mayBeEmpty: false };
    case 'clean.inflight':
      return { decode: (b, c) => decodeCleanerPlan(b, c, { emptyValue: null }), mayBeEmpty: true };
    case 'clean.completed':
      return { decode: decodeCleanMetadata, schema: 'HoodieCleanMetadata', mayBeEmpty: false };
    case 'rollback.requested':
      return { decode: decodeRollbackPlan, schema: 'HoodieRollbackPlan', mayBeEmpty: false };
    case 'rollback.completed':
      return { decode: decodeRollbackMetadata, schema: 'HoodieRollbackMetadata', mayBeEmpty: false };
    case 'savepoint.completed':
      return { decode: decodeSavepointMetadata, schema: 'HoodieSavepointMetadata', mayBeEmpty: false };
    case 'restore.requested':
      return { decode: decodeRestorePlan, schema: 'HoodieRestorePlan', mayBeEmpty: false };
    case 'restore.completed':
      return { decode: decodeRestoreMetadata, schema: 'HoodieRestoreMetadata', mayBeEmpty: false };
    case 'indexing.requested':
      return { decode: decodeIndexPlan, schema: 'HoodieIndexPlan', mayBeEmpty: false };
    case 'indexing.completed':
      return { decode: decodeIndexCommitMetadata, schema: 'HoodieIndexCommitMetadata', mayBeEmpty: false };
    default:
      throw new Error(`no decoder for ${f.name}`);
  }
}

const ENCODERS: Partial<Record<SchemaName, (v: never, o: { sync: Uint8Array }) => Uint8Array>> = {
  HoodieCompactionPlan: encodeCompactionPlan,
  HoodieRollbackPlan: encodeRollbackPlan,
  HoodieRollbackMetadata: encodeRollbackMetadata,
  HoodieRequestedReplaceMetadata: encodeRequestedReplaceMetadata,
  HoodieIndexPlan: encodeIndexPlan,
  HoodieIndexCommitMetadata: encodeIndexCommitMetadata,
};

/** The 16-byte sync marker ends an Avro file; reusing it lets a re-encode be compared byte for byte. */
const syncOf = (bytes: Uint8Array) => bytes.subarray(bytes.length - 16);

describe.skipIf(!HAVE_FIXTURES)('real fixture instant files', () => {
  const ids = HAVE_FIXTURES ? allTableIds() : [];

  it('finds instant files in every table, including metadata tables', () => {
    const all = ids.flatMap(instantFiles);
    expect(all.length).toBeGreaterThan(1500);
    expect(all.some((f) => f.dir.startsWith('.hoodie/metadata'))).toBe(true);
    expect(new Set(all.map((f) => f.action))).toEqual(
      new Set(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'rollback', 'indexing']),
    );
  });

  for (const id of ids) {
    it(`${id}: every instant file decodes; Avro files re-encode byte for byte`, () => {
      const files = instantFiles(id);
      expect(files.length > 0).toBe(catalogTable(id).num_completed_instants !== 0);
      for (const f of files) {
        const bytes = readFileSync(f.path);
        const ctx = { path: f.path };
        const { decode, schema, mayBeEmpty } = decoderFor(f);
        const kind = sniffContent(bytes, ctx);
        if (kind === 'empty') {
          expect(mayBeEmpty, `${f.name} is empty`).toBe(true);
          continue;
        }
        expect(decode, `${f.name} should be empty`).not.toBeNull();
        const value = decode!(bytes, ctx);
        expect(value).toBeTypeOf('object');
        if (kind === 'avro') {
          const container = readAvroContainer(bytes, ctx);
          expect(container.records).toHaveLength(1);
          if (schema) {
            expect(container.schemaName).toBe(schema);
            const enc = ENCODERS[schema];
            // Our schema constant is the writer schema Hudi 1.x embeds (older ones re-encode with the newer schema).
            if (enc && JSON.stringify(container.schema) === JSON.stringify(SCHEMAS[schema])) {
              expect(Buffer.from(enc(value as never, { sync: syncOf(bytes) })).equals(bytes), f.name).toBe(true);
            }
          } else {
            const m = value as ReturnType<typeof decodeCommitMetadata>;
            const again = encodeCommitMetadataAvro(m, { sync: syncOf(bytes), replace: container.schemaName === 'HoodieReplaceCommitMetadata' });
            if (Object.keys(m.partitionToWriteStats).some((k) => /^\d+$/.test(k))) {
              // Known limitation: avsc writes integer-like map keys in JS order, Java in HashMap order.
              expect(again.length).toBe(bytes.length);
              expect(decodeCommitMetadata(again, ctx)).toEqual(m);
            } else {
              expect(Buffer.from(again).equals(bytes), f.name).toBe(true);
            }
          }
        } else {
          // JSON (layout 1): Jackson output must be reproduced exactly.
          const m = value as ReturnType<typeof decodeCommitMetadata>;
          expect(Buffer.from(encodeCommitMetadataJson(m)).toString('utf8'), f.name).toBe(bytes.toString('utf8'));
        }
      }
    });
  }

  for (const id of ids) {
    it(`${id}: commit values match catalog.json`, () => {
      const cat = catalogTable(id);
      const instants = cat.instants as Record<string, unknown>[];
      const dir = join(table(id), String(cat.timeline_dir));
      for (const inst of instants) {
        const path = join(dir, String(inst.file));
        const bytes = readFileSync(path);
        const ctx = { path };
        if (['commit', 'deltacommit', 'replacecommit'].includes(String(inst.action))) {
          const m = decodeCommitMetadata(bytes, ctx);
          expect(m.operationType).toBe(inst.operation_type);
          expect(m.compacted).toBe(inst.compacted);
          const stats = allWriteStats(m);
          expect(stats).toHaveLength(inst.write_stats as number);
          expect([...new Set(stats.map((s) => s.fileId))].sort()).toEqual(inst.file_ids);
          expect(Object.keys(m.partitionToWriteStats).sort()).toEqual([...(inst.partitions_written as string[])].sort());
          const sum = (k: 'numWrites' | 'numInserts' | 'numUpdateWrites' | 'numDeletes') => stats.reduce((a, s) => a + s[k], 0);
          expect(sum('numWrites')).toBe(inst.numWrites);
          expect(sum('numInserts')).toBe(inst.numInserts);
          expect(sum('numUpdateWrites')).toBe(inst.numUpdateWrites);
          expect(sum('numDeletes')).toBe(inst.numDeletes);
          expect(stats.filter((s) => typeof s.logVersion === 'number' || (s.path ?? '').includes('.log.')).length).toBe(
            inst.log_file_write_stats,
          );
          const t = commitTotals(m);
          expect(t.totalRecordsWritten).toBe(inst.numWrites);
          expect(t.totalUpdateRecordsWritten).toBe(inst.numUpdateWrites);
          expect(t.totalPartitionsWritten).toBe((inst.partitions_written as string[]).length);
          if (inst.partitionToReplaceFileIds) expect(m.partitionToReplaceFileIds).toEqual(inst.partitionToReplaceFileIds);
        } else if (inst.action === 'rollback') {
          const r = decodeRollbackMetadata(bytes, ctx);
          expect(r.commitsRollback).toEqual(inst.commitsRollback);
          expect(r.totalFilesDeleted).toBe(inst.totalFilesDeleted);
          const succ = Object.fromEntries(Object.entries(r.partitionMetadata).map(([k, v]) => [k, v.successDeleteFiles]));
          expect(succ).toEqual(inst.successDeleteFiles);
        } else if (inst.action === 'indexing') {
          const ix = decodeIndexCommitMetadata(bytes, ctx);
          expect(ix.indexPartitionInfos!.map((p) => p.metadataPartitionPath)).toEqual(inst.indexing_partitions);
        }
      }
    });
  }

  it('core-test-data v6_commit.json re-encodes byte for byte; v8_deltacommit.avro too', () => {
    const j = readFileSync(coreTestData('commit_metadata/v6_commit.json'));
    const m = decodeCommitMetadata(j, { path: 'v6_commit.json' }, { preserveKeyOrder: true });
    expect(Buffer.from(encodeCommitMetadataJson(m)).equals(j)).toBe(true);
    const a = readFileSync(coreTestData('commit_metadata/v8_deltacommit.avro'));
    const n = decodeCommitMetadata(a, { path: 'v8_deltacommit.avro' });
    expect(Buffer.from(encodeCommitMetadataAvro(n, { sync: syncOf(a) })).equals(a)).toBe(true);
    // the same commit in both encodings normalises to the same shape (modulo the Avro-only fields)
    expect(Object.keys(allWriteStats(m)[0]!).filter((k) => !['recordsStats', 'unknownJson'].includes(k)).sort()).toEqual(
      Object.keys(allWriteStats(n)[0]!).sort(),
    );
  });

  it('JSON partition maps with integer-like keys keep Java order ("30","20","10")', () => {
    const id = 'sample_table/cow/v6_simplekeygen_nonhivestyle_overwritetable';
    const f = instantFiles(id).find((x) => x.action === 'replacecommit' && x.state === 'completed')!;
    const m = decodeCommitMetadata(readFileSync(f.path), { path: f.path });
    expect(m.partitionToReplaceFileIds).toBeDefined();
    expect(readFileSync(f.path, 'utf8').indexOf('"30" : [')).toBeLessThan(readFileSync(f.path, 'utf8').indexOf('"10" : ['));
  });
});
