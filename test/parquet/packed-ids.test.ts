// readPackedChunkIds (clustering holds a dictionary-encoded chunk's indexes, not its values) against
// readPackedChunkBytes on every column chunk of the fixture base files (Spark's v1 pages, nulls,
// dictionaries of every type) and of files our writer writes (v2 pages): the dictionary and indexes
// give the values read, and a chunk with a page of another encoding gives none.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetMetadata } from 'hyparquet';
import { HAVE_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { chunkSpan, packedReadable, PackedColumn, readPackedChunkBytes, readPackedChunkIds } from '../../src/parquet/packed.ts';
import { compressors } from '../../src/parquet/read.ts';
import { withHoodieMetaFields, writeHoodieParquet } from '../../src/parquet/write.ts';

function parquetFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    if (n === '.hoodie') return [];
    const p = join(dir, n);
    return statSync(p).isDirectory() ? parquetFiles(p) : n.endsWith('.parquet') ? [p] : [];
  });
}

const valuesOf = (c: PackedColumn) => Array.from({ length: c.length }, (_, i) => (c.nulls[i] ? null : Buffer.from(c.data.subarray(c.start(i), c.end(i))).toString('hex')));

/** Every flat chunk of the file: [dictionary-coded chunks compared, others]. */
function compareChunks(bytes: Uint8Array, name: string): [number, number] {
  const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  const elements = md.schema.slice(1);
  let coded = 0;
  let other = 0;
  for (const rg of md.row_groups) {
    for (const [k, chunk] of rg.columns.entries()) {
      const element = elements[k];
      // flat columns only (the fixtures' nested ones have children)
      if (!element || element.num_children || chunk.meta_data!.path_in_schema.length !== 1 || !packedReadable(chunk, element)) continue;
      const { begin, end } = chunkSpan(chunk);
      const span = bytes.subarray(begin, end);
      const want = new PackedColumn(chunk.meta_data!.type, 16);
      readPackedChunkBytes(span, chunk, element, compressors, want);
      const got = readPackedChunkIds(span, chunk, element, compressors);
      if (!got) {
        other++;
        continue;
      }
      coded++;
      const dict = valuesOf(got.dict);
      expect([...got.ids].map((x) => (x < 0 ? null : dict[x])), `${name}: ${element.name}`).toEqual(valuesOf(want));
    }
  }
  return [coded, other];
}

describe('readPackedChunkIds', () => {
  it("our writer's chunks: dictionary-coded ones as their indexes, plain ones none", () => {
    const schema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'few', type: ['null', 'string'], default: null }, { name: 'n', type: ['null', 'long'], default: null }, { name: 'u', type: 'string' }] });
    const rows = Array.from({ length: 900 }, (_, i) => ({ _hoodie_commit_time: '1', _hoodie_commit_seqno: `s${i}`, _hoodie_record_key: `k${i}`, _hoodie_partition_path: 'p', _hoodie_file_name: 'f', few: i % 4 === 0 ? null : `v${i % 3}`, n: i % 5 === 0 ? null : i % 6, u: `u${i}` }));
    const [coded, other] = compareChunks(writeHoodieParquet({ schema, rows, rowGroupSize: 400 }).bytes, 'ours');
    // commit time, partition, file name, few and n coded in each of the 3 row groups; seqno, key and u plain
    expect([coded, other]).toEqual([15, 9]);
  });

  it.skipIf(!HAVE_FIXTURES)('every flat chunk of the fixture base files', () => {
    let coded = 0;
    let other = 0;
    for (const id of allTableIds()) {
      for (const p of parquetFiles(table(id))) {
        const [c, o] = compareChunks(new Uint8Array(readFileSync(p)), p);
        coded += c;
        other += o;
      }
    }
    expect(coded).toBeGreaterThan(100);
    expect(other).toBeGreaterThan(0);
  });
});
