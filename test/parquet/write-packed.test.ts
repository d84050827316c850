// openHoodiePackedWriter's constant columns (the compacted file's _hoodie_file_name): the bytes equal
// those of the same column filled value by value, for every group size (one row stays PLAIN, as the
// dictionary rule gives, two and more take the dictionary).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkSpan, PackedColumn } from '../../src/parquet/packed.ts';
import { openHoodiePackedColumnWriter, openHoodiePackedWriter, type ValueIds } from '../../src/parquet/write-packed.ts';
import { withHoodieMetaFields, writeHoodieParquet } from '../../src/parquet/write.ts';
import { compressors } from '../../src/parquet/read.ts';
import { HoodieBloomFilter } from '../../src/parquet/bloom.ts';
import { parquetMetadata, parquetReadObjects, readOffsetIndex, type ColumnChunk } from 'hyparquet';
import { joinFileData } from '../../src/storage/index.ts';

const schema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'v', type: 'long' }] });
const utf8 = new TextEncoder();
const NAME = utf8.encode('fg_1-0-0_20250101000000000.parquet');

function group(n: number, first: number, fill: boolean): PackedColumn[] {
  const cols = schema.fields.map((f) => new PackedColumn(f.name === 'v' ? 'INT64' : 'BYTE_ARRAY', 8));
  const long = new DataView(new ArrayBuffer(8));
  for (let i = first; i < first + n; i++) {
    cols[0]!.appendString('20250101000000000');
    cols[1]!.appendString(`20250101000000000_0_${i}`);
    cols[2]!.appendString(`key-${i}`);
    cols[3]!.appendString('p');
    if (fill) cols[4]!.appendBytes(NAME);
    long.setBigInt64(0, BigInt(i * 3), true);
    cols[5]!.appendBytes(new Uint8Array(long.buffer));
  }
  return cols;
}

/** The meta fields of row i as the column-writer tests fill them (the file name NAME). */
function appendMeta(cols: PackedColumn[], i: number): void {
  cols[0]!.appendString('20250101000000000');
  cols[1]!.appendString(`20250101000000000_0_${i}`);
  cols[2]!.appendString(`key-${i}`);
  cols[3]!.appendString('p');
  cols[4]!.appendBytes(NAME);
}

/** The column's values as indexes into its distinct values, listed in an order of their own (not first appearance). */
function idsOf(col: PackedColumn): ValueIds {
  const keyOf = (i: number) => Buffer.from(col.data.subarray(col.start(i), col.end(i))).toString('latin1');
  const distinct = [...new Set(Array.from({ length: col.length }, (_, i) => (col.nulls[i] ? undefined : keyOf(i))).filter((x) => x !== undefined))].reverse();
  const values = new PackedColumn(col.type, 8);
  for (const d of distinct) values.appendBytes(Buffer.from(d, 'latin1'));
  const at = new Map(distinct.map((d, k) => [d, k]));
  return { values, ids: Int32Array.from({ length: col.length }, (_, i) => (col.nulls[i] ? -1 : at.get(keyOf(i))!)) };
}

describe('packed writer constant columns', () => {
  for (const sizes of [[1], [2], [5, 1], [7, 2, 1], [300, 300, 17]]) {
    it(`row groups of ${sizes.join(', ')} rows: same bytes as the filled column`, async () => {
      const write = async (constant: boolean) => {
        const w = openHoodiePackedWriter({ schema, rowGroupSize: 300, constants: constant ? [undefined, undefined, undefined, undefined, NAME, undefined] : undefined });
        let first = 0;
        for (const n of sizes) {
          await w.writeGroup(group(n, first, !constant));
          first += n;
        }
        return (await w.finish()).bytes;
      };
      expect(Buffer.compare(await write(true), await write(false))).toBe(0);
    });
  }

  it('recycle hands back the last group emptied, with its buffers', async () => {
    const w = openHoodiePackedWriter({ schema, rowGroupSize: 10 });
    expect(w.recycle()).toBeUndefined();
    const cols = group(10, 0, true);
    const data = cols[2]!.data;
    const done = w.writeGroup(cols);
    const back = w.recycle()!;
    expect(back[2]).toBe(cols[2]);
    expect(back[2]!.length).toBe(0);
    expect(back[2]!.data).toBe(data);
    await done;
    expect((await w.finish()).rowCount).toBe(10);
  });
});

describe('GZIP level', () => {
  it('the level reaches the pages (6 is the default, 1 differs), both writers read back alike at level 1, bad levels are refused', async () => {
    const bytes = async (gzipLevel?: number) => {
      const w = openHoodiePackedWriter({ schema, rowGroupSize: 300, gzipLevel });
      await w.writeGroup(group(300, 0, true));
      return (await w.finish()).bytes;
    };
    const rows = (gzipLevel?: number) => {
      const r = Array.from({ length: 300 }, (_, i) => ({ _hoodie_commit_time: '20250101000000000', _hoodie_commit_seqno: `20250101000000000_0_${i}`, _hoodie_record_key: `key-${i}`, _hoodie_partition_path: 'p', _hoodie_file_name: 'fg_1-0-0_20250101000000000.parquet', v: BigInt(i * 3) }));
      return writeHoodieParquet({ schema, rows: r, rowGroupSize: 300, gzipLevel });
    };
    const d6 = await bytes();
    expect(Buffer.compare(await bytes(6), d6)).toBe(0);
    expect(Buffer.compare(await bytes(1), d6)).not.toBe(0);
    // both writers compress with zlib at the given level: their GZIP outputs read back the same
    const back = async (b: Uint8Array) => parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer, compressors });
    expect(await back(await bytes(1))).toEqual(await back(rows(1).bytes));
    expect(() => openHoodiePackedWriter({ schema, gzipLevel: 0 })).toThrow(/GZIP level/);
    expect(() => writeHoodieParquet({ schema, rows: [], gzipLevel: 10 })).toThrow(/GZIP level/);
  });
});

describe('chunkSpan', () => {
  it('starts at the dictionary page when there is one; a dictionary offset of 0 means none (as hyparquet reads it)', () => {
    const md = (dict: bigint | undefined) => ({ meta_data: { dictionary_page_offset: dict, data_page_offset: 100n, total_compressed_size: 50n } }) as never;
    expect(chunkSpan(md(undefined))).toEqual({ begin: 100, end: 150 });
    expect(chunkSpan(md(0n))).toEqual({ begin: 100, end: 150 });
    expect(chunkSpan(md(60n))).toEqual({ begin: 60, end: 110 });
  });
});

describe('packed writer codecs', () => {
  it('a codec other than GZIP, SNAPPY or UNCOMPRESSED is a usage error, at open and per page (never GZIP in its place)', async () => {
    const { TblError } = await import('../../src/errors/index.ts');
    const { compress } = await import('../../src/parquet/write-packed.ts');
    for (const codec of ['ZSTD', 'LZ4', 'gzip']) {
      expect(() => openHoodiePackedWriter({ schema, codec: codec as never })).toThrow(TblError);
      expect(() => openHoodiePackedWriter({ schema, codec: codec as never })).toThrow(expect.objectContaining({ kind: 'usage', message: expect.stringContaining(codec) }));
      expect(() => compress(codec as never, 6, new Uint8Array([1, 2, 3]))).toThrow(expect.objectContaining({ kind: 'usage' }));
    }
    // the three codecs still write, and GZIP stays the default
    for (const codec of ['GZIP', 'SNAPPY', 'UNCOMPRESSED', undefined] as const) {
      const w = openHoodiePackedWriter({ schema, codec });
      await w.writeGroup(group(3, 0, true));
      const bytes = (await w.finish()).bytes;
      const { parquetMetadata } = await import('hyparquet');
      const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
      expect(md.row_groups[0]!.columns[0]!.meta_data!.codec).toBe(codec ?? 'GZIP');
    }
  });
});

// openHoodiePackedColumnWriter (clustering's field-at-a-time write): the bytes of the row-group
// writer for the same rows, with and without the values given as dictionary indexes (whose rule must
// decide as dictionaryFor does: sample, first-appearance order, size).
describe('packed column writer', () => {
  const strSchema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 's', type: ['null', 'string'], default: null }] });
  const cases: [string, (i: number) => string | null][] = [
    ['one value', () => 'same'],
    ['few values, nulls', (i) => (i % 5 === 0 ? null : `v${i % 3}`)],
    // the sample repeats (each value twice), the whole is not worth a dictionary (its indexes cost more)
    ['size rule', (i) => `pair-${i >> 1}`],
    ['distinct', (i) => `d${i}`],
    ['all null', () => null],
  ];
  for (const [name, value] of cases) {
    it(`${name}: the row-group writer's bytes`, async () => {
      const rows = 2500;
      const R = 1000;
      const fill = (from: number, to: number): PackedColumn[] => {
        const cols = strSchema.fields.map(() => new PackedColumn('BYTE_ARRAY', 8));
        for (let i = from; i < to; i++) {
          appendMeta(cols, i);
          const v = value(i);
          if (v === null) cols[5]!.appendNull();
          else cols[5]!.appendString(v);
        }
        return cols;
      };
      const groups = openHoodiePackedWriter({ schema: strSchema, rowGroupSize: R });
      for (let a = 0; a < rows; a += R) await groups.writeGroup(fill(a, Math.min(rows, a + R)));
      const want = (await groups.finish()).bytes;
      for (const withIds of [false, true, 'only'] as const) {
        const w = openHoodiePackedColumnWriter({ schema: strSchema, rowGroupSize: R }, rows);
        const all = fill(0, rows);
        for (let [j, col] of all.entries()) {
          let ids: ValueIds | undefined;
          if (withIds) {
            ids = idsOf(col);
            // the ids alone (not the record key): a column of its nulls, every value empty
            if (withIds === 'only' && j !== 2) {
              const bare = new PackedColumn('BYTE_ARRAY', 8);
              for (let i = 0; i < rows; i++) {
                if (col.nulls[i]) bare.appendNull();
                else bare.appendBytes(new Uint8Array(0));
              }
              col = bare;
              ids.onlyIds = true;
            }
          }
          await w.writeColumn(j, col, ids);
        }
        expect(Buffer.compare(joinFileData((await w.finish()).parts), want), `${name}, ids ${withIds}`).toBe(0);
      }
    });
  }
});

// A bloom filter built on two threads (bloomShared: this writer hashes the keys of rows r % every
// === 0, the other thread the rest at their rows): the file of a writer that hashes every key.
describe('packed column writer, bloom filter shared with another thread', () => {
  for (const every of [0, 1, 3]) {
    it(`every ${every}: the bytes of one writer hashing every key`, async () => {
      const rows = 2500;
      const cols = group(rows, 0, true);
      const write = async (shared: boolean) => {
        const w = openHoodiePackedColumnWriter({ schema, rowGroupSize: 1000, bloomShared: shared ? { every } : undefined }, rows);
        for (const [j, col] of cols.entries()) for (let a = 0; a < rows; a += 1000) await w.writeColumn(j, col.slice(a, Math.min(rows, a + 1000)), undefined, a);
        if (!shared) return joinFileData((await w.finish()).parts);
        const there = HoodieBloomFilter.create({});
        let keys = 0;
        const k = cols[2]!;
        for (let r = 0; r < rows; r++) {
          if (every > 0 && r % every === 0) continue;
          there.addBytesAt(k.data, k.start(r), k.end(r), r);
          keys++;
        }
        return joinFileData((await w.finish({ filter: there, keys })).parts);
      };
      expect(Buffer.compare(await write(true), await write(false))).toBe(0);
    });
  }
});

// Numbers given as dictionary indexes (clustering holds few distinct numbers as a dictionary): the
// row-group writer's bytes, the dictionary kept or not.
describe('packed column writer, numbers given as indexes', () => {
  const types = [
    ['int', 'INT32', 4, (dv: DataView, x: number) => dv.setInt32(0, x, true)],
    ['long', 'INT64', 8, (dv: DataView, x: number) => dv.setBigInt64(0, BigInt(x) * 5_000_000_000n, true)],
    ['double', 'DOUBLE', 8, (dv: DataView, x: number) => dv.setFloat64(0, x / 3, true)],
    ['float', 'FLOAT', 4, (dv: DataView, x: number) => dv.setFloat32(0, x / 3, true)],
  ] as const;
  const cases: [string, (i: number) => number | null][] = [
    ['few values, nulls', (i) => (i % 5 === 0 ? null : i % 7)],
    ['distinct', (i) => i],
    ['all null', () => null],
  ];
  for (const [avro, type, width, put] of types) {
    for (const [name, value] of cases) {
      it(`${avro}, ${name}: the row-group writer's bytes`, async () => {
        const schema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'v', type: ['null', avro], default: null }] });
        const rows = 2500;
        const R = 1000;
        const scratch = new DataView(new ArrayBuffer(8));
        const fill = (from: number, to: number): PackedColumn[] => {
          const cols = schema.fields.map((_, j) => new PackedColumn(j === 5 ? type : 'BYTE_ARRAY', 8));
          for (let i = from; i < to; i++) {
            appendMeta(cols, i);
            const v = value(i);
            if (v === null) cols[5]!.appendNull();
            else {
              put(scratch, v);
              cols[5]!.appendBytes(new Uint8Array(scratch.buffer, 0, width));
            }
          }
          return cols;
        };
        const groups = openHoodiePackedWriter({ schema, rowGroupSize: R });
        for (let a = 0; a < rows; a += R) await groups.writeGroup(fill(a, Math.min(rows, a + R)));
        const want = (await groups.finish()).bytes;
        const w = openHoodiePackedColumnWriter({ schema, rowGroupSize: R }, rows);
        for (const [j, col] of fill(0, rows).entries()) {
          await w.writeColumn(j, col, j === 5 ? idsOf(col) : undefined);
        }
        expect(Buffer.compare(joinFileData((await w.finish()).parts), want)).toBe(0);
      });
    }
  }
});

// Page boundaries (fixed widths and dictionary indexes by count without nulls, byte arrays by
// bisection over the offsets): the row writer's pages, at page sizes that cut every chunk many times.
describe('packed writer pages', () => {
  const pageSchema = withHoodieMetaFields({
    type: 'record',
    name: 'r',
    fields: [
      { name: 'k', type: 'string' },
      { name: 's', type: ['null', 'string'], default: null },
      { name: 'few', type: ['null', 'string'], default: null },
      { name: 'n', type: ['null', 'long'], default: null },
      { name: 'r', type: 'long' },
      { name: 'd', type: ['null', 'double'], default: null },
    ],
  });
  const rows = Array.from({ length: 700 }, (_, i) => ({
    _hoodie_commit_time: '20250101000000000',
    _hoodie_commit_seqno: `20250101000000000_0_${i}`,
    _hoodie_record_key: `key-${i}`,
    _hoodie_partition_path: 'p',
    _hoodie_file_name: 'fg_1-0-0_20250101000000000.parquet',
    k: `key-${i}`,
    s: i % 9 === 0 ? null : `${'x'.repeat((i * 7) % 23)}${i}`,
    few: i % 5 === 0 ? null : `v${i % 3}`,
    n: i % 4 === 0 ? null : i * 1000,
    r: i % 6,
    d: i % 7 === 0 ? null : (i % 4) / 2,
  }));
  const packed = (from: number, to: number): PackedColumn[] => {
    const types = ['BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'BYTE_ARRAY', 'INT64', 'INT64', 'DOUBLE'] as const;
    const cols = types.map((t) => new PackedColumn(t, 8));
    const dv = new DataView(new ArrayBuffer(8));
    for (const row of rows.slice(from, to)) {
      pageSchema.fields.forEach((f, j) => {
        const v = (row as Record<string, unknown>)[f.name];
        if (v === null) cols[j]!.appendNull();
        else if (types[j] === 'BYTE_ARRAY') cols[j]!.appendString(v as string);
        else {
          if (types[j] === 'INT64') dv.setBigInt64(0, BigInt(v as number), true);
          else dv.setFloat64(0, v as number, true);
          cols[j]!.appendBytes(new Uint8Array(dv.buffer));
        }
      });
    }
    return cols;
  };
  for (const pageSize of [1, 16, 100, 1000]) {
    it(`page size ${pageSize}: the row writer's bytes`, async () => {
      const want = writeHoodieParquet({ schema: pageSchema, rows, rowGroupSize: 300, pageSize }).bytes;
      const w = openHoodiePackedWriter({ schema: pageSchema, rowGroupSize: 300, pageSize });
      for (let a = 0; a < rows.length; a += 300) await w.writeGroup(packed(a, Math.min(rows.length, a + 300)));
      const got = (await w.finish()).bytes;
      // the plain byte arrays (k, s), the longs and the dictionary indexes (few, r) are cut into
      // pages: their chunks have an offset index, which lists them
      const b = new Uint8Array(got);
      const pagesOf = (c: ColumnChunk) => (c.offset_index_offset === undefined ? 1 : readOffsetIndex({ view: new DataView(b.buffer, b.byteOffset + Number(c.offset_index_offset), Number(c.offset_index_length)), offset: 0 }).page_locations.length);
      const pages = parquetMetadata(b.buffer).row_groups[0]!.columns.map(pagesOf);
      if (pageSize <= 100) for (const j of [5, 6, 7, 8, 9]) expect(pages[j], `column ${j}: ${pages.join(',')}`).toBeGreaterThan(1);
      expect(Buffer.compare(Buffer.from(got), Buffer.from(want))).toBe(0);
    });
  }
});

// Byte-array statistics: min and max are those of an unsigned byte-by-byte comparison, for values
// sharing prefixes, shorter than 4 bytes, or empty (ASCII bytes: the reader gives them back as strings).
describe('packed writer byte-array statistics', () => {
  it('min and max of random byte arrays as a reader sees them', async () => {
    const binSchema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'v', type: ['null', 'bytes'], default: null }] });
    const cmp = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.uint8Array({ maxLength: 9, min: 0, max: 3 }).chain((b) => fc.constantFrom(b, Uint8Array.from([...b, 127, 0]), Uint8Array.from([127, ...b]))), { nil: null }), { minLength: 1, maxLength: 40 }), async (vs) => {
        const cols = binSchema.fields.map(() => new PackedColumn('BYTE_ARRAY', 8));
        vs.forEach((v, i) => {
          for (let j = 0; j < 4; j++) cols[j]!.appendString(`x${i}`);
          cols[4]!.appendBytes(NAME);
          if (v === null) cols[5]!.appendNull();
          else cols[5]!.appendBytes(v);
        });
        const w = openHoodiePackedWriter({ schema: binSchema, rowGroupSize: 1000 });
        await w.writeGroup(cols);
        const { bytes } = await w.finish();
        const st = parquetMetadata(new Uint8Array(bytes).buffer).row_groups[0]!.columns[5]!.meta_data!.statistics!;
        const present = vs.filter((v) => v !== null) as Uint8Array[];
        if (present.length === 0) {
          expect(st.min_value).toBeUndefined();
          return;
        }
        const min = present.reduce((m, v) => (cmp(v, m) < 0 ? v : m));
        const max = present.reduce((m, v) => (cmp(v, m) > 0 ? v : m));
        const asBytes = (x: unknown) => (x instanceof Uint8Array ? [...x] : typeof x === 'string' ? [...Buffer.from(x, 'latin1')] : x);
        expect([asBytes(st.min_value), asBytes(st.max_value)]).toEqual([[...min], [...max]]);
      }),
      { numRuns: 300 },
    );
  });
});

// The INT64 statistics are found from the (high, low) words: the low word compares unsigned.
describe('packed writer INT64 statistics', () => {
  it('min and max of signed longs (low words past 2^31, equal high words, nulls) as a reader sees them', async () => {
    const longSchema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'v', type: ['null', 'long'], default: null }] });
    const tricky = [0n, -1n, 1n, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x100000000n, -0x80000000n, -0x80000001n, -0x100000000n, (1n << 62n) + 0x80000000n, -(1n << 63n), (1n << 63n) - 1n];
    const readStats = async (values: (bigint | null)[]) => {
      const cols = longSchema.fields.map((f) => new PackedColumn(f.name === 'v' ? 'INT64' : 'BYTE_ARRAY', 8));
      const long = new DataView(new ArrayBuffer(8));
      values.forEach((v, i) => {
        for (let j = 0; j < 4; j++) cols[j]!.appendString(`x${i}`);
        cols[4]!.appendBytes(NAME);
        if (v === null) cols[5]!.appendNull();
        else {
          long.setBigInt64(0, v, true);
          cols[5]!.appendBytes(new Uint8Array(long.buffer));
        }
      });
      const w = openHoodiePackedWriter({ schema: longSchema, rowGroupSize: 1000 });
      await w.writeGroup(cols);
      const { bytes } = await w.finish();
      const md = parquetMetadata(new Uint8Array(bytes).buffer);
      return md.row_groups[0]!.columns[5]!.meta_data!.statistics!;
    };
    // every subset of three tricky values (and each alone), in both orders, with a null among them
    const sets: bigint[][] = tricky.map((v) => [v]);
    for (let a = 0; a < tricky.length; a++) for (let b = a + 1; b < tricky.length; b++) sets.push([tricky[a]!, tricky[b]!, tricky[(a + b) % tricky.length]!]);
    for (const set of sets) {
      for (const vs of [set, [...set].reverse()]) {
        const st = await readStats([null, ...vs]);
        const min = vs.reduce((m, v) => (v < m ? v : m));
        const max = vs.reduce((m, v) => (v > m ? v : m));
        expect([st.min_value, st.max_value, st.null_count], vs.join(',')).toEqual([min, max, 1n]);
      }
    }
    const none = await readStats([null, null]);
    expect(none.min_value).toBeUndefined();
  });
});
