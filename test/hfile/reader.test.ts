import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HAVE_FIXTURES, coreTestData } from '../support/fixtures.ts';
import { HFileReader, type HFileRecord } from '../../src/hfile/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';

const dec = new TextDecoder();
const val = (r: HFileRecord | undefined) => (r ? dec.decode(r.value) : undefined);
const pad = (i: number) => String(i).padStart(9, '0');
const LARGE = `hudi-key-${'a'.repeat(100)}-`;

async function open(name: string): Promise<HFileReader> {
  return HFileReader.fromBytes(readFileSync(coreTestData(`hfile/${name}`)), name);
}

// Key/value shapes and counts asserted by hudi-rs crates/core/src/hfile/reader.rs tests.
const FILES: { name: string; count: number; key: (i: number) => string; levels?: number }[] = [
  { name: 'hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile', count: 5000, key: (i) => `hudi-key-${pad(i)}` },
  { name: 'hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile', count: 5000, key: (i) => `hudi-key-${pad(i)}` },
  { name: 'hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile', count: 20000, key: (i) => `hudi-key-${pad(i)}` },
  { name: 'hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile', count: 20000, key: (i) => `hudi-key-${pad(i)}` },
  { name: 'hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile', count: 20000, key: (i) => `hudi-key-${pad(i)}-abcdefghij` },
  { name: 'hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile', count: 20000, key: (i) => `${LARGE}${pad(i)}`, levels: 2 },
  { name: 'hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile', count: 10000, key: (i) => `${LARGE}${pad(i)}`, levels: 3 },
];

describe.skipIf(!HAVE_FIXTURES)('HFileReader on hudi-rs core-test-data', () => {
  for (const f of FILES) {
    it(`${f.name}: scan → ${f.count} records, keys and values in order`, async () => {
      const r = await open(f.name);
      expect(r.entryCount).toBe(f.count);
      if (f.levels) expect(r.trailer.numDataIndexLevels).toBe(f.levels);
      let i = 0;
      for await (const rec of r.scan()) {
        if (rec.key !== f.key(i) || val(rec) !== `hudi-value-${pad(i)}`) {
          throw new Error(`record ${i}: ${rec.key} = ${val(rec)}`);
        }
        i++;
      }
      expect(i).toBe(f.count);
      expect(r.lastKey).toBe(f.key(f.count - 1));
    });

    it(`${f.name}: get() of first, middle, last and absent keys`, async () => {
      const r = await open(f.name);
      for (const i of [0, 1, Math.floor(f.count / 2) + 7, f.count - 1]) {
        expect(val(await r.get(f.key(i)))).toBe(`hudi-value-${pad(i)}`);
      }
      expect(await r.get(`${f.key(5)}x`)).toBeUndefined();
      expect(await r.get('aaa')).toBeUndefined();
      expect(await r.get('zzz')).toBeUndefined();
    });
  }

  it('NONE_5000: seekTo lands on the key, on the next larger key, or at EOF', async () => {
    const r = await open('hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile');
    const found = await r.seekTo('hudi-key-000000100');
    expect(found.result).toBe('found');
    expect(found.record?.key).toBe('hudi-key-000000100');
    const between = await r.seekTo('hudi-key-000000100a');
    expect(between.result).toBe('not-found');
    expect(between.record?.key).toBe('hudi-key-000000101');
    const before = await r.seekTo('aaa');
    expect(before.result).toBe('not-found');
    expect(before.record?.key).toBe('hudi-key-000000000');
    const eof = await r.seekTo('hudi-key-999999999');
    expect(eof.result).toBe('eof');
    expect(eof.record).toBeUndefined();
    expect(await eof.next()).toBe(false);
  });

  it('NONE_5000: prefix scan hudi-key-00000010 → keys 100..109 (hudi-rs test_collect_records_by_prefix)', async () => {
    const r = await open('hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile');
    const keys: string[] = [];
    for await (const rec of r.scanPrefix('hudi-key-00000010')) keys.push(rec.key);
    expect(keys).toEqual(Array.from({ length: 10 }, (_, i) => `hudi-key-${pad(100 + i)}`));
    const none: string[] = [];
    for await (const rec of r.scanPrefix('nope')) none.push(rec.key);
    expect(none).toEqual([]);
  });

  it('seeks across block boundaries (512KB: key 8888 in block 2; 64KB: key 1688)', async () => {
    const a = await open('hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile');
    expect(a.dataBlocks.length).toBeGreaterThan(1);
    expect(val(await a.get('hudi-key-000008888'))).toBe('hudi-value-000008888');
    const b = await open('hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile');
    expect(val(await b.get('hudi-key-000001688'))).toBe('hudi-value-000001688');
  });

  it('every block boundary key of the fake-first-key file is found', async () => {
    const r = await open('hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile');
    expect(r.dataBlocks.length).toBeGreaterThan(10);
    // Some index keys are shortened: they are not the real first key of their block.
    let fake = 0;
    for (let b = 0; b < r.dataBlocks.length; b++) {
      const recs = await r.blockRecords(b);
      const first = recs[0]!;
      if (dec.decode(r.dataBlocks[b]!.indexKey) !== first.key) fake++;
      expect(val(await r.get(first.key))).toBe(dec.decode(first.value));
      // a key between the fake first key and the real one lands on the real first key
      const c = await r.seekTo(dec.decode(r.dataBlocks[b]!.indexKey));
      expect(c.record?.key).toBe(first.key);
    }
    expect(fake).toBeGreaterThan(0);
    const c = await r.seekTo('hudi-key-000000470');
    expect(c.result).toBe('not-found');
    expect(c.record?.key).toBe('hudi-key-000000470-abcdefghij');
  });

  it('non-unique keys: 200 keys × 21 values, getAll returns every copy in order', async () => {
    const r = await open('hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile');
    expect(r.entryCount).toBe(4200);
    const all = await r.readAll();
    expect(all.length).toBe(4200);
    expect(all.slice(0, 22).map((x) => [x.key, val(x)])).toEqual([
      ['hudi-key-000000000', 'hudi-value-000000000'],
      ...Array.from({ length: 20 }, (_, j) => ['hudi-key-000000000', `hudi-value-000000000_${j}`]),
      ['hudi-key-000000001', 'hudi-value-000000001'],
    ]);
    // every key, including those whose copies straddle a block boundary
    for (let k = 0; k < 200; k++) {
      const copies = await r.getAll(`hudi-key-${pad(k)}`);
      expect(copies.map(val)).toEqual([`hudi-value-${pad(k)}`, ...Array.from({ length: 20 }, (_, j) => `hudi-value-${pad(k)}_${j}`)]);
    }
    expect(val(await r.get('hudi-key-000000005'))).toBe('hudi-value-000000005');
  });

  it('no_entry: zero records, every lookup misses', async () => {
    const r = await open('hudi_1_0_hbase_2_4_9_no_entry.hfile');
    expect(r.entryCount).toBe(0);
    expect(await r.readAll()).toEqual([]);
    expect(await r.get('hudi-key-000000000')).toBeUndefined();
    expect((await r.seekToFirst()).result).toBe('eof');
  });

  it('ranged open through Storage reads the same records as the whole-file read (deep index)', async () => {
    const name = 'hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile';
    const storage = new LocalStorage();
    const ranged = await HFileReader.open(storage, coreTestData(`hfile/${name}`), { wholeReadMaxBytes: 0 });
    const whole = await open(name);
    const a = await ranged.readAll();
    const b = await whole.readAll();
    expect(a.length).toBe(10000);
    expect(a.map((x) => x.key)).toEqual(b.map((x) => x.key));
    expect(val(await ranged.get(`${LARGE}000005340`))).toBe('hudi-value-000005340');
  });

  it('corrupt input → TblError naming the file', async () => {
    const bytes = new Uint8Array(readFileSync(coreTestData('hfile/hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile')));
    await expect(HFileReader.fromBytes(bytes.subarray(0, 100), 'short.hfile')).rejects.toThrow(/short\.hfile.*trailer/);
    const bad = bytes.slice();
    bad[bad.length - 4096] = 0x41; // trailer magic
    await expect(HFileReader.fromBytes(bad, 'bad.hfile')).rejects.toMatchObject({ kind: 'metadata', path: 'bad.hfile' });
    const trailerOnly = bytes.slice(bytes.length - 4096);
    await expect(HFileReader.fromBytes(trailerOnly, 't.hfile')).rejects.toThrow(/load-on-open offset/);
    const r = await HFileReader.fromBytes(bytes.slice(), 'ok.hfile');
    const second = (await r.blockRecords(1))[0]!.key;
    const broken = bytes.slice();
    broken[r.dataBlocks[1]!.offset] = 0x58; // magic of data block 1
    const r2 = await HFileReader.fromBytes(broken, 'b2.hfile');
    await expect(r2.get(second)).rejects.toThrow(/b2\.hfile: bad block magic/);
  });
});
