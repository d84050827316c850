// Every bloom filter Hudi wrote into a fixture base file: it must contain every record key of the file
// under our hash, and a fresh filter fed the file's keys in order must reproduce it bit for bit. Keys of
// 3-byte tails (length % 4) pin Hudi's MurmurHash port, which reads 2- and 3-byte tails differently from Hadoop's.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetMetadata } from 'hyparquet';
import { HAVE_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { HoodieBloomFilter, describeParquet, readParquetRows } from '../../src/parquet/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';

function parquetFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    if (n === '.hoodie') return [];
    const p = join(dir, n);
    return statSync(p).isDirectory() ? parquetFiles(p) : n.endsWith('.parquet') ? [p] : [];
  });
}

describe.skipIf(!HAVE_FIXTURES)('footer bloom filters of every fixture base file', () => {
  it('contain every record key and are rebuilt bit for bit from the keys in file order', async () => {
    const tails = new Set<number>();
    let files = 0;
    for (const id of allTableIds()) {
      for (const p of parquetFiles(table(id))) {
        const kv = describeParquet(parquetMetadata(new Uint8Array(readFileSync(p)))).keyValue;
        const serialized = kv['org.apache.hudi.bloomfilter'];
        if (!serialized) continue; // tables without meta fields write no filter
        const typeCode = kv.hoodie_bloom_filter_type_code;
        const f = HoodieBloomFilter.deserialize(serialized, typeCode);
        const keys = (await readParquetRows(new LocalStorage(), p, { columns: ['_hoodie_record_key'] })).map((r) => String(r._hoodie_record_key));
        for (const k of keys) {
          expect(f.mightContain(k), `${p}: ${k}`).toBe(true);
          tails.add(new TextEncoder().encode(k).length % 4);
        }
        const fresh = HoodieBloomFilter.create({ type: typeCode === 'DYNAMIC_V0' ? 'DYNAMIC_V0' : 'SIMPLE' });
        for (const k of keys) fresh.add(k);
        expect(fresh.serialize() === serialized, `${p}: rebuilt filter`).toBe(true);
        files++;
      }
    }
    expect(files).toBeGreaterThan(100);
    // no fixture key has a 2-byte tail; the 3-byte ones (TXN-015, …) tell the two hash ports apart
    expect([...tails]).toEqual(expect.arrayContaining([0, 1, 3]));
  });
});
