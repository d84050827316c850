import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdtFixtures, scanMdtCached, type RawMdtRecord } from '../support/mdt-scan.ts';
import {
  ALL_PARTITIONS_KEY,
  JavaHashMapKeys,
  VALUE_TYPE,
  bloomFilterDeleteRecord,
  bloomFilterRecord,
  combineRecords,
  compareStatValues,
  dedupeRecords,
  mergeColumnStats,
  decodeMetadataRecord,
  encodeMetadataRecord,
  filesRecord,
  mdtWriterSchema,
  partitionListRecord,
  recordIndexFileId,
  recordIndexRecord,
  type ColumnStats,
  type ColumnStatsRecord,
  type FilesListRecord,
  type MetadataRecord,
  type MetadataUpsert,
  type RecordIndexRecord,
  type StatValue,
} from '../../src/mdt/index.ts';
import { decodeDatum, javaHashMapOrder } from '../../src/metadata/index.ts';
import { formatInstantTime, parseInstantTime } from '../../src/util/index.ts';

const fixtures = await mdtFixtures();

/** Requested times of the data table's instant files (both timeline layouts). */
function dataInstants(base: string): Set<string> {
  const out = new Set<string>();
  for (const dir of [join(base, '.hoodie'), join(base, '.hoodie', 'timeline')]) {
    if (!existsSync(dir)) continue;
    for (const n of readdirSync(dir)) {
      const m = /^(\d{17})/.exec(n);
      if (m) out.add(m[1]!);
    }
  }
  return out;
}

function schemaVersion(schema: string): 'v6' | 'v8' | 'v9' {
  const f = mdtWriterSchema(schema).features;
  return f.valueType ? 'v9' : f.isTightBound ? 'v8' : 'v6';
}

describe.skipIf(fixtures.length === 0)('HoodieMetadataRecord codec over every fixture metadata table', () => {
  it('the fixtures cover the v6, v8 and v9 writer schemas', async () => {
    const versions = new Set<string>();
    for (const f of fixtures) for (const r of (await scanMdtCached(f.base)).records) versions.add(schemaVersion(r.schema));
    expect([...versions].sort()).toEqual(['v6', 'v8', 'v9']);
  });

  for (const f of fixtures) {
    it(`${f.id}: decode → encode with the same writer schema gives the stored bytes`, async () => {
      const scan = await scanMdtCached(f.base);
      expect(scan.records.length).toBeGreaterThan(0);
      const counts: Record<string, number> = {};
      for (const r of scan.records) {
        const rec = decodeMetadataRecord(r.key, r.value, r.schema, r.path);
        const again = encodeMetadataRecord(rec, r.schema);
        expect(Buffer.from(again).equals(Buffer.from(r.value)), `${r.path} ${r.key}`).toBe(true);
        const k = `${r.partition}/${schemaVersion(r.schema)}`;
        counts[k] = (counts[k] ?? 0) + 1;
      }
      expect(Object.keys(counts).length).toBeGreaterThan(0);
    });

    it(`${f.id}: our decoder agrees with avsc on files / column-stats records`, async () => {
      const scan = await scanMdtCached(f.base);
      for (const r of scan.records.filter((x) => ['files', 'column_stats', 'partition_stats'].includes(x.partition))) {
        const ours = decodeMetadataRecord(r.key, r.value, r.schema, r.path);
        const theirs = decodeDatum<Record<string, any>>(r.value, { path: r.path, writerSchema: r.schema });
        expect(theirs.type).toBe(ours.type);
        if (ours.type === 1 || ours.type === 2) {
          const m = theirs.filesystemMetadata as Record<string, { size: number; isDeleted: boolean }>;
          expect(Object.fromEntries(ours.files)).toEqual(m);
        } else if (ours.type === 3 || ours.type === 6) {
          const c = theirs.ColumnStatsMetadata;
          const o = ours.columnStats;
          expect([o.fileName, o.columnName, o.valueCount, o.nullCount, o.totalSize, o.totalUncompressedSize, o.isDeleted]).toEqual([
            c.fileName, c.columnName, c.valueCount, c.nullCount, c.totalSize, c.totalUncompressedSize, c.isDeleted,
          ]);
          for (const [mine, avsc] of [[o.minValue, c.minValue], [o.maxValue, c.maxValue]] as const) {
            if (mine === null) expect(avsc).toBeNull();
            else {
              const inner = Object.values(avsc as Record<string, { value: unknown }>)[0]!.value;
              const v = mine.value instanceof Uint8Array ? Buffer.from(mine.value) : typeof mine.value === 'bigint' ? Number(mine.value) : mine.value;
              expect(inner).toEqual(v);
            }
          }
        }
      }
    });
  }
});

/** Log-block records are what a commit wrote (no compaction merge): the builders must reproduce them. */
function logRecords(records: RawMdtRecord[], partition: string): RawMdtRecord[] {
  return records.filter((r) => r.source === 'log' && r.partition === partition);
}

describe.skipIf(fixtures.length === 0)('record builders reproduce the records Hudi wrote (log blocks)', () => {
  it('filesRecord / partitionListRecord: byte-identical to every fixture files record of a log block, map order included', async () => {
    let checked = 0;
    let orderChecked = 0;
    for (const f of fixtures) {
      for (const r of logRecords((await scanMdtCached(f.base)).records, 'files')) {
        const rec = decodeMetadataRecord(r.key, r.value, r.schema) as FilesListRecord;
        let built: MetadataRecord;
        if (rec.type === 1) {
          const del = [...rec.files.values()].some((x) => x.isDeleted);
          built = partitionListRecord([...rec.files.keys()].map((k) => (k === '.' ? '' : k)), del);
          expect(rec.key).toBe(ALL_PARTITIONS_KEY);
        } else {
          const added = [...rec.files].filter(([, x]) => !x.isDeleted).map(([n, x]) => [n, x.size] as const);
          const deleted = [...rec.files].filter(([, x]) => x.isDeleted).map(([n]) => n);
          built = filesRecord(rec.key === '.' ? '' : rec.key, added, deleted);
        }
        expect(built.key).toBe(rec.key);
        expect(Object.fromEntries((built as typeof rec).files)).toEqual(Object.fromEntries(rec.files));
        if (rec.files.size > 1) orderChecked++;
        expect([...(built as typeof rec).files.keys()], `${r.path} ${r.key}`).toEqual([...rec.files.keys()]);
        expect(Buffer.from(encodeMetadataRecord(built, r.schema)).equals(Buffer.from(r.value))).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(orderChecked).toBeGreaterThan(10);
  });

  it('recordIndexRecord: byte-identical to every fixture record-index update (instant parsed in UTC)', async () => {
    let checked = 0;
    for (const f of fixtures) {
      for (const r of logRecords((await scanMdtCached(f.base)).records, 'record_index')) {
        const rec = decodeMetadataRecord(r.key, r.value, r.schema) as RecordIndexRecord;
        const ri = rec.recordIndex;
        const instant = formatInstantTime(new Date(ri.instantTime!), 'UTC');
        const built = recordIndexRecord(r.key, ri.partitionName!, recordIndexFileId(ri), instant, { timeZone: 'UTC', encoding: ri.fileIdEncoding as 0 | 1 });
        expect(built).toEqual(rec);
        expect(Buffer.from(encodeMetadataRecord(built, r.schema)).equals(Buffer.from(r.value))).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('record-index instantTime is a data instant read in the writer JVM\'s zone (one fixed offset per table)', async () => {
    const offsets: Record<string, number> = {};
    for (const f of fixtures) {
      const instants = [...dataInstants(f.base)];
      const millis = (await scanMdtCached(f.base)).records
        .filter((r) => r.partition === 'record_index')
        .map((r) => (decodeMetadataRecord(r.key, r.value, r.schema) as RecordIndexRecord).recordIndex.instantTime!);
      if (millis.length === 0) continue;
      // offset (minutes east of UTC) that maps every epoch-millis value onto an instant of the table
      const utc = (t: string) => parseInstantTime(t, 'UTC')!.getTime();
      const candidates = instants.map((t) => (utc(t) - millis[0]!) / 60000).filter((m) => Number.isInteger(m) && Math.abs(m) <= 14 * 60);
      const fits = candidates.filter((m) => millis.every((ms) => instants.includes(formatInstantTime(new Date(ms + m * 60000), 'UTC'))));
      expect(fits.length, f.id).toBeGreaterThan(0);
      offsets[f.id] = fits[0]!;
    }
    // the v8 quickstart table was written in UTC; the v9 txns tables by a JVM at UTC-6
    expect(offsets['quickstart_trips_table/mor/avro/v8_trips_8i3u1d']).toBe(0);
    expect(Object.values(offsets)).toContain(-360);
  });
});

// ---- merge rules (format-mdt-write.md §2.5) ----

const fi = (size: number, isDeleted = false) => ({ size, isDeleted });
const filesRec = (key: string, entries: Record<string, [number, boolean?]>, type: 1 | 2 = 2): FilesListRecord => ({
  key,
  type,
  files: new Map(Object.entries(entries).map(([k, [size, del]]) => [k, fi(size, del ?? false)])),
});
const stats = (o: Partial<ColumnStats> = {}): ColumnStats => ({
  fileName: 'f.parquet',
  columnName: 'c',
  minValue: { type: 'long', value: 5n },
  maxValue: { type: 'long', value: 9n },
  valueCount: 10,
  nullCount: 1,
  totalSize: 100,
  totalUncompressedSize: 200,
  isDeleted: false,
  isTightBound: false,
  valueType: null,
  ...o,
});
const csRec = (s: ColumnStats): ColumnStatsRecord => ({ key: 'k', type: 3, columnStats: s });
const merged = (a: MetadataUpsert, b: MetadataUpsert) => combineRecords(a, b);

describe('combineRecords: a delete and the record after it', () => {
  it('a delete wins over anything older; a record after a delete re-creates the key', () => {
    const del = { key: 'p', deleted: true as const };
    const rec = filesRec('p', { a: [10] });
    expect(merged(rec, del)).toBe(del);
    expect(merged(del, rec)).toBe(rec);
    expect(merged(del, del)).toBe(del);
    expect(() => merged(rec, filesRec('q', { a: [1] }))).toThrow(/keys differ/);
    expect(() => merged(rec, filesRec('p', { a: [1] }, 1))).toThrow(/Cannot combine 2 with 1/);
  });
});

describe('combineRecords types 1/2 (combineFileSystemMetadata)', () => {
  it('unions the listings, sizes take the max (in either order)', () => {
    const out = merged(filesRec('p', { a: [100], b: [5] }), filesRec('p', { a: [20], c: [7] })) as FilesListRecord;
    expect(Object.fromEntries(out.files)).toEqual({ a: fi(100), b: fi(5), c: fi(7) });
    const back = merged(filesRec('p', { a: [20] }), filesRec('p', { a: [100] })) as FilesListRecord;
    expect(back.files.get('a')).toEqual(fi(100));
  });
  it('a newer tombstone removes the older entry; a tombstone with nothing to remove is kept', () => {
    const out = merged(filesRec('p', { a: [100], b: [5] }), filesRec('p', { a: [0, true], z: [0, true] })) as FilesListRecord;
    expect(Object.fromEntries(out.files)).toEqual({ b: fi(5), z: fi(0, true) });
  });
  it('two tombstones keep the newer one; a file re-added after its tombstone is live again', () => {
    const out = merged(filesRec('p', { a: [0, true], b: [0, true] }), filesRec('p', { a: [0, true], b: [12] })) as FilesListRecord;
    expect(Object.fromEntries(out.files)).toEqual({ a: fi(0, true), b: fi(12) });
  });
  it('a live file of size 0 in the newer type-2 record is refused (readers throw on it); type 1 sizes are 0', () => {
    expect(() => merged(filesRec('p', { a: [1] }), filesRec('p', { b: [0] }))).toThrow(/Existing files should have size > 0/);
    const parts = merged(filesRec(ALL_PARTITIONS_KEY, { x: [0] }, 1), filesRec(ALL_PARTITIONS_KEY, { y: [0], x: [0, true] }, 1)) as FilesListRecord;
    expect(Object.fromEntries(parts.files)).toEqual({ y: fi(0) });
    expect(() => filesRecord('p', [['a', 0]])).toThrow(/size > 0/);
  });
  it('the merged map iterates as the Java HashMap Hudi builds (putAll older, merge newer)', () => {
    const older = new Map([...'abcdefghijklm'].map((c, i) => [`file-${c}`, fi(i + 1)]));
    const newer = new Map([['file-a', fi(0, true)], ['file-zz', fi(3)]]);
    const out = combineRecords({ key: 'p', type: 2, files: older }, { key: 'p', type: 2, files: newer }) as FilesListRecord;
    // 13 entries → putAll presizes to 32 buckets; one removed, one added
    const keys = [...older.keys()].filter((k) => k !== 'file-a').concat('file-zz');
    expect([...out.files.keys()]).toEqual(javaHashMapOrder(keys, 32));
    const order = new JavaHashMapKeys();
    for (const k of keys) order.put(k);
    expect(order.keys()).toEqual(javaHashMapOrder(keys));
  });
});

describe('combineRecords types 3/6 (mergeColumnStatsRecords)', () => {
  it('either side deleted → the newer record', () => {
    const del = stats({ isDeleted: true, minValue: null, maxValue: null, valueCount: -1 });
    expect((merged(csRec(stats()), csRec(del)) as ColumnStatsRecord).columnStats).toBe(del);
    const live = stats({ valueCount: 3 });
    expect((merged(csRec(del), csRec(live)) as ColumnStatsRecord).columnStats).toBe(live);
  });
  it('a newer tight bound replaces the older range', () => {
    const tight = stats({ isTightBound: true, minValue: { type: 'long', value: 7n } });
    expect((merged(csRec(stats({ minValue: { type: 'long', value: 1n } })), csRec(tight)) as ColumnStatsRecord).columnStats).toBe(tight);
  });
  it('otherwise min of mins, max of maxes (nulls ignored), counts and sizes summed, flags from the newer', () => {
    const out = (merged(
      csRec(stats({ minValue: { type: 'long', value: 2n }, maxValue: null, isTightBound: true })),
      csRec(stats({ minValue: { type: 'long', value: 4n }, maxValue: { type: 'long', value: 50n } })),
    ) as ColumnStatsRecord).columnStats;
    expect(out).toEqual(
      stats({ minValue: { type: 'long', value: 2n }, maxValue: { type: 'long', value: 50n }, valueCount: 20, nullCount: 2, totalSize: 200, totalUncompressedSize: 400, isTightBound: false }),
    );
    expect(() => mergeColumnStats(stats(), stats({ columnName: 'other' }))).toThrow(/cannot merge/);
  });
  it('values compare as Java does: strings by UTF-16 units, bytes signed, decimals numerically', () => {
    const s = (v: string): StatValue => ({ type: 'string', value: v });
    // U+1F600 is a surrogate pair (0xD83D…) and sorts below U+FF5E in Java, above it in UTF-8 bytes
    expect(compareStatValues(s('\u{1F600}'), s('\uFF5E'))).toBe(-1);
    expect(compareStatValues({ type: 'bytes', value: Uint8Array.of(0x80) }, { type: 'bytes', value: Uint8Array.of(0x01) })).toBe(-1);
    const dec = (n: number): StatValue => ({ type: 'decimal', value: Uint8Array.of(n & 0xff) });
    expect(compareStatValues(dec(-1), dec(1))).toBe(-1);
    // 1.1 stores decimals in BytesWrapper; valueType DECIMAL makes them numeric
    // -1 = [ff], -256 = [ff 00]: as bytes the shorter prefix sorts first, as numbers -256 does
    const minus1: StatValue = { type: 'bytes', value: Uint8Array.of(0xff) };
    const minus256: StatValue = { type: 'bytes', value: Uint8Array.of(0xff, 0x00) };
    expect(compareStatValues(minus1, minus256, { typeOrdinal: VALUE_TYPE.DECIMAL, additionalInfo: '10,2' })).toBe(1);
    expect(compareStatValues(minus1, minus256)).toBe(-1);
    expect(compareStatValues({ type: 'double', value: -0 }, { type: 'double', value: 0 })).toBe(-1);
    expect(compareStatValues({ type: 'double', value: Number.NaN }, { type: 'double', value: Infinity })).toBe(1);
    expect(() => compareStatValues(s('a'), { type: 'long', value: 1n })).toThrow(/cannot compare/);
  });
});

describe('combineRecords types 4/5/7 and dedupeRecords', () => {
  it('bloom filters, record-index entries and secondary-index entries: the newer record wins', () => {
    const a = bloomFilterRecord('p', 'f.parquet', '001', 'DYNAMIC_V0', 'AAAA');
    const b = bloomFilterDeleteRecord('p', 'f.parquet', '002');
    expect(merged(a, b)).toBe(b);
    expect(merged(b, a)).toBe(a);
    const r1 = recordIndexRecord('key1', 'p', '036ded81-9ed4-479f-bcea-7145dfa0079b-0', '20251220210108078', { timeZone: 'UTC' });
    const r2 = recordIndexRecord('key1', 'q', '036ded81-9ed4-479f-bcea-7145dfa0079b-1', '20251220210109078', { timeZone: 'UTC' });
    expect(merged(r1, r2)).toBe(r2);
    const s1: MetadataRecord = { key: 'x', type: 7, secondaryIndex: { isDeleted: false } };
    const s2: MetadataRecord = { key: 'x', type: 7, secondaryIndex: { isDeleted: true } };
    expect(merged(s1, s2)).toBe(s2);
  });
  it('dedupeRecords merges duplicates in order and sorts by UTF-8 bytes', () => {
    const out = dedupeRecords([
      filesRec('\uFF5E', { a: [1] }),
      filesRec('b', { x: [3] }),
      filesRec('\u{1F600}', { a: [1] }),
      filesRec('b', { x: [0, true], y: [4] }),
      { key: 'a', deleted: true },
    ]);
    expect(out.map((r) => r.key)).toEqual(['a', 'b', '\uFF5E', '\u{1F600}']);
    expect(Object.fromEntries((out[1] as FilesListRecord).files)).toEqual({ y: fi(4) });
  });
});

describe('record-index builder (createRecordIndexUpdate)', () => {
  it('UUID bits and file index, encoding 1, a 36-char id, and refusals', () => {
    const r = recordIndexRecord('k', 'city=san_francisco', '036ded81-9ed4-479f-bcea-7145dfa0079b-0', '20251220210108078', { timeZone: 'UTC' }) as RecordIndexRecord;
    expect(r.recordIndex).toEqual({
      partitionName: 'city=san_francisco', fileIdHighBits: 247114695546521503n, fileIdLowBits: -4833926705110317157n,
      fileIndex: 0, fileId: '', instantTime: 1766264468078, fileIdEncoding: 0, position: null,
    });
    expect(recordIndexFileId(r.recordIndex)).toBe('036ded81-9ed4-479f-bcea-7145dfa0079b-0');
    const bare = recordIndexRecord('k', 'p', '036ded81-9ed4-479f-bcea-7145dfa0079b', '20251220210108078', { timeZone: 'UTC' }) as RecordIndexRecord;
    expect(bare.recordIndex.fileIndex).toBe(-1);
    expect(recordIndexFileId(bare.recordIndex)).toBe('036ded81-9ed4-479f-bcea-7145dfa0079b');
    const raw = recordIndexRecord('k', 'p', 'not-a-uuid-7', '20251220210108078', { timeZone: 'UTC', encoding: 1 }) as RecordIndexRecord;
    expect(raw.recordIndex).toMatchObject({ fileId: 'not-a-uuid-7', fileIdHighBits: -1n, fileIdLowBits: -1n, fileIndex: -1, fileIdEncoding: 1 });
    expect(() => recordIndexRecord('k', 'p', 'not-a-uuid-7', '20251220210108078')).toThrow(/invalid UUID or index/);
    expect(() => recordIndexRecord('k', 'p', '036ded81-9ed4-479f-bcea-7145dfa0079b-0', 'yesterday')).toThrow(/cannot parse instant/);
  });
});

// ---- older writer schemas refuse what they cannot carry ----

describe.skipIf(fixtures.length === 0)('encoding into the v6 / v8 / v9 writer schemas', () => {
  it('fields and wrappers a schema lacks are refused, never dropped; defaults need no field', async () => {
    const byVersion = new Map<string, string>();
    for (const f of fixtures) for (const r of (await scanMdtCached(f.base)).records) byVersion.set(schemaVersion(r.schema), r.schema);
    const v6 = byVersion.get('v6')!;
    const v8 = byVersion.get('v8')!;
    const v9 = byVersion.get('v9')!;
    const plain = csRec(stats());
    for (const s of [v6, v8, v9]) expect(decodeMetadataRecord('k', encodeMetadataRecord(plain, s), s)).toEqual(plain);
    expect(() => encodeMetadataRecord(csRec(stats({ isTightBound: true })), v6)).toThrow(/has no field isTightBound/);
    expect(decodeMetadataRecord('k', encodeMetadataRecord(csRec(stats({ isTightBound: true })), v8), v8)).toEqual(csRec(stats({ isTightBound: true })));
    const typed = csRec(stats({ valueType: { typeOrdinal: VALUE_TYPE.LONG, additionalInfo: null } }));
    expect(() => encodeMetadataRecord(typed, v8)).toThrow(/has no field valueType/);
    expect(decodeMetadataRecord('k', encodeMetadataRecord(typed, v9), v9)).toEqual(typed);
    const localDate = csRec(stats({ minValue: { type: 'localDate', value: 19000 }, maxValue: { type: 'localDate', value: 19001 } }));
    expect(() => encodeMetadataRecord(localDate, v6)).toThrow(/no branch LocalDateWrapper/);
    expect(decodeMetadataRecord('k', encodeMetadataRecord(localDate, v8), v8)).toEqual(localDate);
    const arr = csRec(stats({ minValue: { type: 'array', value: [{ type: 'int', value: 1 }, null] }, maxValue: null }));
    expect(() => encodeMetadataRecord(arr, v8)).toThrow(/no branch ArrayWrapper/);
    expect(decodeMetadataRecord('k', encodeMetadataRecord(arr, v9), v9)).toEqual(arr);
    const ri = recordIndexRecord('k', 'p', '036ded81-9ed4-479f-bcea-7145dfa0079b-0', '20251220210108078', { timeZone: 'UTC' }) as RecordIndexRecord;
    expect(decodeMetadataRecord('k', encodeMetadataRecord(ri, v6), v6)).toEqual(ri);
    expect(() => encodeMetadataRecord({ ...ri, recordIndex: { ...ri.recordIndex, position: 3n } }, v6)).toThrow(/has no field position/);
    const si: MetadataRecord = { key: 'x', type: 7, secondaryIndex: { isDeleted: false } };
    expect(() => encodeMetadataRecord(si, v6)).toThrow(/has no field SecondaryIndexMetadata/);
    expect(decodeMetadataRecord('x', encodeMetadataRecord(si, v8), v8)).toEqual(si);
    // the five meta fields are null and the value's key is blank
    const bytes = encodeMetadataRecord(filesRec('p', { a: [1] }), v8);
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(mdtWriterSchema(v6).features).toMatchObject({ isTightBound: false, valueType: false, position: false, secondaryIndex: false, metaFields: true });
    expect(mdtWriterSchema(v9).features.wrappers.has('ArrayWrapper')).toBe(true);
    expect(() => mdtWriterSchema('{"type":"record","name":"X","fields":[]}')).toThrow(/not a HoodieMetadataRecord/);
  });
});
