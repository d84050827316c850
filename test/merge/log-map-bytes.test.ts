// scanLogMap's byte path (keys, orderings, delete flags read from the Avro bytes) against its decode
// path (every record decoded with avsc, { byteScan: false }): the same LogMap entry for entry — key
// order, ordering values and classes, delete flags, Avro spans — the same stats and notes, on every
// fixture table's log files and on generated logs (deletes, rollbacks, corrupt records, custom delete
// markers, multi-field keys, several ordering types, missing fields, schemas the byte reader declines).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { buildFileSystemView } from '../../src/fs-view/index.ts';
import { mergeConfigFromProperties, scanLogMap, type LogMap, type MergeConfig, type MergeOptions } from '../../src/merge/index.ts';
import { viewOf } from '../../src/util/byte-spans.ts';
import { encodeAvroDataBlock, encodeAvroDataContent, encodeDeleteBlock, encodeLogBlock, encodeRollbackBlock } from '../../src/logfile/index.ts';
import { HAVE_FIXTURES, allTableIds, catalog, coreTestData, table } from '../support/fixtures.ts';
import { loadTestTimeline, tableProperties } from '../fs-view/support/view-timeline.ts';

const storage = new LocalStorage();

/** The two LogMaps, entry by entry (values and classes by Object.is, the Avro bytes by content). */
function expectSameMap(bytes: LogMap, ref: LogMap): void {
  const b = bytes.index;
  const r = ref.index;
  expect(b.keys()).toEqual(r.keys());
  for (let id = 0; id < r.size; id++) {
    const key = r.key(id);
    // each key found by its string and by its bytes
    expect(b.findKey(key), key).toBe(id);
    const kb = b.keyUtf8(id);
    if ((key as unknown as { isWellFormed(): boolean }).isWellFormed()) expect(b.find(kb, viewOf(kb), 0, kb.length), key).toBe(id);
    const bo = b.ordering(id);
    const ro = r.ordering(id);
    expect(bo.values.length, key).toBe(ro.values.length);
    bo.values.forEach((v, i) => {
      // objects (a nested ordering field, decoded by avsc on both paths) by content
      if (typeof v === 'object' && v !== null) expect(v).toEqual(ro.values[i]);
      else expect(Object.is(v, ro.values[i]), `${key}: ${String(v)} vs ${String(ro.values[i])}`).toBe(true);
    });
    expect(bo.classes).toEqual(ro.classes);
    expect(b.deleted(id), key).toBe(r.deleted(id));
    const ab = b.avroBytes(id);
    const ar = r.avroBytes(id);
    expect(ab === undefined, key).toBe(ar === undefined);
    if (ab && ar) {
      expect([ab.schema, ab.start, ab.end, ab.content.length]).toEqual([ar.schema, ar.start, ar.end, ar.content.length]);
      expect(Buffer.compare(ab.content, ar.content)).toBe(0);
    }
    expect(b.record(id)).toEqual(r.record(id));
  }
  expect(b.findKey('no such key')).toBe(-1);
  expect(bytes.stats).toEqual(ref.stats);
  expect(bytes.notes).toEqual(ref.notes);
}

async function both(logFiles: { path: string }[], opts: MergeOptions): Promise<{ bytes: LogMap; ref: LogMap; counts: { bytes: number; decoded: number } } | { error: string }> {
  const counts = { bytes: 0, decoded: 0 };
  let refError: string | undefined;
  let ref: LogMap | undefined;
  try {
    ref = await scanLogMap(storage, logFiles, opts, { byteScan: false });
  } catch (e) {
    refError = String(e);
  }
  let bytes: LogMap | undefined;
  try {
    bytes = await scanLogMap(storage, logFiles, opts, { counts });
  } catch (e) {
    expect(String(e)).toBe(refError);
    return { error: String(e) };
  }
  expect(refError).toBeUndefined();
  expectSameMap(bytes, ref!);
  return { bytes, ref: ref!, counts };
}

describe.skipIf(!HAVE_FIXTURES)('scanLogMap byte path vs decode path: fixture tables', () => {
  it('every slice with log files of every fixture table', async () => {
    let slices = 0;
    const counts = { bytes: 0, decoded: 0 };
    for (const id of allTableIds()) {
      const base = table(id);
      let config: MergeConfig;
      let view;
      try {
        config = mergeConfigFromProperties(tableProperties(base));
        view = await buildFileSystemView(storage, base, await loadTestTimeline(base));
      } catch {
        continue; // payloads the merger does not support, tables without a readable timeline
      }
      for (const g of view.allFileGroups()) {
        for (const s of g.slices) {
          if (s.logFiles.length === 0) continue;
          for (const isValidInstant of [view.isCommitted, () => true]) {
            const r = await both(s.logFiles, { config, isValidInstant });
            if ('counts' in r) {
              counts.bytes += r.counts.bytes;
              counts.decoded += r.counts.decoded;
            }
          }
          slices++;
        }
      }
    }
    expect(slices).toBeGreaterThan(5);
    // the byte path is what ran on the fixtures' Avro blocks
    expect(counts.bytes).toBeGreaterThan(5);
  });

  it('every log file of the catalog on its own (every block counts), and the core-test-data log files', async () => {
    const counts = { bytes: 0, decoded: 0 };
    const files: { logFiles: { path: string }[]; config: MergeConfig }[] = [];
    const generic = (props: Record<string, string>): MergeConfig => {
      try {
        return mergeConfigFromProperties(props);
      } catch {
        return mergeConfigFromProperties({ ...props, 'hoodie.table.version': '8', 'hoodie.record.merge.mode': 'EVENT_TIME_ORDERING' });
      }
    };
    for (const t of catalog().tables) {
      const logs = (t.log_files ?? []) as { partition: string; name: string }[];
      if (logs.length === 0) continue;
      const base = table(t.id);
      const config = generic(tableProperties(base));
      for (const l of logs) files.push({ logFiles: [{ path: join(base, l.partition, l.name) }], config });
    }
    for (const kind of ['valid_log_avro_data', 'valid_log_delete', 'valid_log_parquet_data', 'valid_log_rollback']) {
      const d = coreTestData(`log_files/${kind}`);
      for (const n of readdirSync(d).filter((x) => x.includes('.log.'))) {
        files.push({ logFiles: [{ path: join(d, n) }], config: generic({ 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.table.recordkey.fields': 'id' }) });
      }
    }
    for (const f of files) {
      const r = await both(f.logFiles, { config: f.config, isValidInstant: () => true });
      if ('counts' in r) {
        counts.bytes += r.counts.bytes;
        counts.decoded += r.counts.decoded;
      }
    }
    expect(files.length).toBeGreaterThan(40);
    expect(counts.bytes).toBeGreaterThanOrEqual(25);
  });
});

// ---- generated logs ----

const dir = mkdtempSync(join(tmpdir(), 'tblcli-logmap-'));
let fileNo = 0;
function put(blocks: Uint8Array[]): { path: string } {
  const path = join(dir, `.f_${fileNo++}.log.1_0-1-0`);
  writeFileSync(path, Buffer.concat(blocks));
  return { path };
}

type OrderingType = 'long' | 'int' | 'double' | 'string' | 'nullable-long' | 'absent';

interface Variant {
  ordering: OrderingType;
  /** _hoodie_is_deleted: boolean, nullable boolean, or not in the schema */
  isDeleted: 'boolean' | 'nullable' | 'absent';
  /** key from the meta field (nullable), or from record key fields k (and k2) */
  metaKey: boolean;
  twoKeyFields: boolean;
  deleteMarker: boolean;
  /** a field the byte reader skips: a nested record with an array and a map */
  nested: boolean;
  /** the ordering field inside a nested record: the byte reader declines, avsc decodes */
  declined: boolean;
}

function schemaOf(v: Variant): object {
  const fields: { name: string; type: unknown; default?: unknown }[] = [];
  if (v.metaKey) fields.push({ name: '_hoodie_record_key', type: ['null', 'string'], default: null });
  if (v.nested) fields.push({ name: 'nested', type: { type: 'record', name: 'N', fields: [{ name: 'xs', type: { type: 'array', items: ['null', 'long'] } }, { name: 'm', type: { type: 'map', values: 'string' } }] } });
  fields.push({ name: 'k', type: 'string' });
  if (v.twoKeyFields) fields.push({ name: 'k2', type: 'int' });
  const ot = { long: 'long', int: 'int', double: 'double', string: 'string', 'nullable-long': ['long', 'null'], absent: undefined }[v.ordering];
  if (ot) fields.push({ name: 'ts', type: v.declined ? { type: 'record', name: 'T', fields: [{ name: 'v', type: 'long' }] } : ot });
  fields.push({ name: 'payload', type: ['null', 'string', { type: 'fixed', name: 'Fx', size: 2 }] });
  if (v.deleteMarker) fields.push({ name: 'op', type: ['null', 'string'], default: null });
  if (v.isDeleted === 'boolean') fields.push({ name: '_hoodie_is_deleted', type: 'boolean', default: false });
  if (v.isDeleted === 'nullable') fields.push({ name: '_hoodie_is_deleted', type: ['null', 'boolean'], default: null });
  return { type: 'record', name: 'rec', namespace: 'gen', fields };
}

interface GenRecord {
  key: number;
  k2: number;
  ts: number;
  nullMeta: boolean;
  deleted: boolean;
  op: 'D' | 'U' | null;
  payload: 0 | 1 | 2;
}

function recordOf(v: Variant, r: GenRecord): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (v.metaKey) o._hoodie_record_key = r.nullMeta ? null : `key-${r.key}`;
  if (v.nested) o.nested = { xs: [r.ts, null], m: { a: 'b' } };
  o.k = `k${r.key}`;
  if (v.twoKeyFields) o.k2 = r.k2;
  const ts = v.ordering === 'double' ? r.ts / 4 : v.ordering === 'string' ? `t${r.ts}` : v.ordering === 'nullable-long' && r.ts % 5 === 0 ? null : r.ts;
  if (v.ordering !== 'absent') o.ts = v.declined ? { v: r.ts } : ts;
  o.payload = r.payload === 0 ? null : r.payload === 1 ? `p${r.ts}` : Buffer.from([1, 2]);
  if (v.deleteMarker) o.op = r.op;
  if (v.isDeleted !== 'absent') o._hoodie_is_deleted = v.isDeleted === 'nullable' && r.ts % 3 === 0 ? null : r.deleted;
  return o;
}

function configOf(v: Variant, tableVersion: number, deltaMerge: 'event' | 'commit'): MergeConfig {
  return {
    tableVersion,
    orderingFields: v.ordering === 'absent' && tableVersion >= 8 ? [] : ['ts'],
    deltaMerge,
    finalMerge: deltaMerge,
    naturalOrderAfterDelete: tableVersion < 8,
    populateMetaFields: v.metaKey,
    recordKeyFields: v.twoKeyFields ? ['k', 'k2'] : ['k'],
    deleteField: v.deleteMarker ? 'op' : undefined,
    deleteMarker: v.deleteMarker ? 'D' : undefined,
    describe: 'test',
  };
}

const variantArb: fc.Arbitrary<Variant> = fc.record({
  ordering: fc.constantFrom<OrderingType>('long', 'int', 'double', 'string', 'nullable-long', 'absent'),
  isDeleted: fc.constantFrom<Variant['isDeleted']>('boolean', 'nullable', 'absent'),
  metaKey: fc.boolean(),
  twoKeyFields: fc.boolean(),
  deleteMarker: fc.boolean(),
  nested: fc.boolean(),
  declined: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
});

const recordArb: fc.Arbitrary<GenRecord> = fc.record({
  key: fc.integer({ min: 0, max: 12 }),
  k2: fc.integer({ min: 0, max: 1 }),
  ts: fc.integer({ min: 0, max: 30 }),
  nullMeta: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  deleted: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  op: fc.constantFrom<'D' | 'U' | null>('D', 'U', null, null),
  payload: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
});

type BlockSpec =
  | { t: 'data'; records: GenRecord[] }
  | { t: 'delete'; keys: { key: number; ord: number | null }[] }
  | { t: 'rollback'; back: number }
  | { t: 'corrupt'; records: GenRecord[]; how: 'length' | 'union' | 'truncated' };

const blockArb: fc.Arbitrary<BlockSpec> = fc.oneof(
  { arbitrary: fc.array(recordArb, { minLength: 0, maxLength: 8 }).map((records): BlockSpec => ({ t: 'data', records })), weight: 6 },
  { arbitrary: fc.array(fc.record({ key: fc.integer({ min: 0, max: 12 }), ord: fc.option(fc.integer({ min: 0, max: 30 })) }), { minLength: 1, maxLength: 3 }).map((keys): BlockSpec => ({ t: 'delete', keys })), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 3 }).map((back): BlockSpec => ({ t: 'rollback', back })), weight: 1 },
  { arbitrary: fc.tuple(fc.array(recordArb, { minLength: 1, maxLength: 3 }), fc.constantFrom<'length' | 'union' | 'truncated'>('length', 'union', 'truncated')).map(([records, how]): BlockSpec => ({ t: 'corrupt', records, how })), weight: 1 },
);

/** An Avro data block whose last record is broken in one of three ways (the block decodes to an error). */
function corruptBlock(instant: string, schema: object, recs: Record<string, unknown>[], how: 'length' | 'union' | 'truncated'): Uint8Array {
  const content = encodeAvroDataContent(schema, recs);
  const dv = new DataView(content.buffer, content.byteOffset);
  let pos = 8;
  for (let i = 0; i < recs.length - 1; i++) pos += 4 + dv.getInt32(pos);
  const len = dv.getInt32(pos);
  let out = content;
  if (how === 'length') {
    // one trailing byte the datum does not account for
    out = new Uint8Array(content.length + 1);
    out.set(content);
    new DataView(out.buffer).setInt32(pos, len + 1);
  } else if (how === 'truncated') {
    out = content.slice(0, content.length - 1);
    new DataView(out.buffer).setInt32(pos, len - 1);
  } else {
    // the first field is a union (meta key) or a string length: a byte of 0x7e reads as index/length 63
    out[pos + 4] = 0x7e;
  }
  return encodeLogBlock({ type: 'AVRO_DATA_BLOCK', header: { INSTANT_TIME: instant, SCHEMA: JSON.stringify(schema) }, content: out });
}

function logsOf(v: Variant, files: BlockSpec[][]): { path: string }[] {
  const schema = schemaOf(v);
  let n = 0;
  const instant = (i: number) => `2025010100${String(i).padStart(2, '0')}00000`;
  return files.map((blocks) =>
    put(
      blocks.map((b) => {
        n++;
        switch (b.t) {
          case 'data':
            return encodeAvroDataBlock({ instantTime: instant(n), schema, records: b.records.map((r) => recordOf(v, r)) });
          case 'delete':
            return encodeDeleteBlock({
              instantTime: instant(n),
              schema,
              deletes: b.keys.map((k) => ({ recordKey: v.metaKey ? `key-${k.key}` : `k${k.key}`, partitionPath: '', orderingVal: k.ord === null ? null : { type: 'long', value: k.ord } })),
            });
          case 'rollback':
            return encodeRollbackBlock({ instantTime: instant(n), targetInstantTime: instant(Math.max(1, n - b.back)) });
          case 'corrupt':
            return corruptBlock(instant(n), schema, b.records.map((r) => recordOf(v, r)), b.how);
        }
      }),
    ),
  );
}

describe('scanLogMap byte path vs decode path: generated logs', () => {
  it('random schemas, configs and block sequences: same LogMap, stats, notes and errors', async () => {
    const totals = { bytes: 0, decoded: 0, errors: 0, corruptNotes: 0 };
    await fc.assert(
      fc.asyncProperty(
        variantArb,
        fc.constantFrom(6, 8),
        fc.constantFrom<'event' | 'commit'>('event', 'event', 'commit'),
        fc.array(fc.array(blockArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 9 }),
        async (v, version, rule, files, skip) => {
          const config = configOf(v, version, rule);
          // one instant (block number) left uncommitted
          const isValidInstant = (t: string) => t !== `2025010100${String(skip).padStart(2, '0')}00000`;
          const r = await both(logsOf(v, files), { config, isValidInstant });
          if ('error' in r) {
            totals.errors++;
            return;
          }
          totals.bytes += r.counts.bytes;
          totals.decoded += r.counts.decoded;
          totals.corruptNotes += r.ref.notes.filter((x) => x.note.startsWith('corrupt block')).length;
          // when the schema is one the byte reader reads, only broken blocks take avsc's decode
          if (!(v.declined && v.ordering !== 'absent')) expect(r.counts.decoded).toBeLessThanOrEqual(files.flat().filter((b) => b.t === 'corrupt').length);
          else expect(r.counts.bytes).toBe(0);
        },
      ),
      { numRuns: 250 },
    );
    expect(totals.bytes).toBeGreaterThan(100);
    expect(totals.decoded).toBeGreaterThan(20);
    expect(totals.corruptNotes).toBeGreaterThan(10);
  });

  it('a corrupt record: the same corrupt-block note (avsc words it) on both paths', async () => {
    const v: Variant = { ordering: 'long', isDeleted: 'boolean', metaKey: true, twoKeyFields: false, deleteMarker: false, nested: true, declined: false };
    const rec: GenRecord = { key: 1, k2: 0, ts: 5, nullMeta: false, deleted: false, op: null, payload: 1 };
    for (const how of ['length', 'union', 'truncated'] as const) {
      const r = await both(logsOf(v, [[{ t: 'data', records: [rec] }, { t: 'corrupt', records: [rec, { ...rec, key: 2 }], how }]]), { config: configOf(v, 8, 'event'), isValidInstant: () => true });
      if (!('counts' in r)) throw new Error(r.error);
      expect(r.counts).toEqual({ bytes: 1, decoded: 1 });
      expect(r.bytes.notes).toHaveLength(1);
      expect(r.bytes.notes[0]!.note).toMatch(/^corrupt block ignored: cannot decode AVRO_DATA_BLOCK content: record 1 at content offset \d+: /);
      expect(r.bytes.index.keys()).toEqual(['key-1']);
    }
  });

  it('the record key config error propagates on both paths (not a corrupt block)', async () => {
    const v: Variant = { ordering: 'int', isDeleted: 'absent', metaKey: true, twoKeyFields: false, deleteMarker: false, nested: false, declined: false };
    const logFiles = logsOf(v, [[{ t: 'data', records: [{ key: 1, k2: 0, ts: 1, nullMeta: true, deleted: false, op: null, payload: 0 }] }]]);
    const config = { ...configOf(v, 8, 'event'), recordKeyFields: [] };
    const r = await both(logFiles, { config, isValidInstant: () => true });
    expect('error' in r && r.error).toMatch(/record key fields are not configured/);
    // ... but not from a block that does not count (uncommitted), nor from one that turns out corrupt
    const nullKey: GenRecord = { key: 1, k2: 0, ts: 1, nullMeta: true, deleted: false, op: null, payload: 0 };
    const skipped = await both(logFiles, { config, isValidInstant: () => false });
    expect('counts' in skipped && skipped.bytes.stats.totalSkippedBlocks).toBe(1);
    const corrupt = await both(logsOf(v, [[{ t: 'corrupt', records: [nullKey, { ...nullKey, nullMeta: false }], how: 'union' }]]), { config, isValidInstant: () => true });
    expect('counts' in corrupt && corrupt.bytes.notes.map((n) => n.note.slice(0, 22))).toEqual(['corrupt block ignored:']);
  });
});
