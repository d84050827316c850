// Damaged log files built from real blocks: the reader reports corrupt regions with offsets and carries
// on where Java HoodieLogFileReader would (format-data.md §2.6).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import type { Storage } from '../../src/storage/index.ts';
import { readLogFile } from '../../src/logfile/index.ts';
import { mergeConfigFromProperties, scanLogRecords } from '../../src/merge/index.ts';
import { HAVE_FIXTURES, coreTestData } from '../support/fixtures.ts';

const storage = new LocalStorage();
const dir = mkdtempSync(join(tmpdir(), 'tblcli-badlog-'));
function bytesOf(kind: string): Buffer {
  const d = coreTestData(`log_files/${kind}`);
  return readFileSync(join(d, readdirSync(d).find((n) => n.includes('.log.'))!));
}
let n = 0;
function file(...parts: Uint8Array[]): string {
  const p = join(dir, `.f${n++}_1.log.1_0-0-0`);
  writeFileSync(p, Buffer.concat(parts));
  return p;
}

describe.skipIf(!HAVE_FIXTURES)('damaged log files', () => {
  const A = HAVE_FIXTURES ? bytesOf('valid_log_avro_data') : Buffer.alloc(0); // 1172 bytes
  const D = HAVE_FIXTURES ? bytesOf('valid_log_delete') : Buffer.alloc(0); // 1098 bytes
  const R = HAVE_FIXTURES ? bytesOf('valid_log_rollback') : Buffer.alloc(0); // 105 bytes

  it('truncated last block → good block, then a corrupt block from its magic to EOF', async () => {
    const r = await readLogFile(storage, file(A, D.subarray(0, 500)));
    expect(r.blocks.map((b) => [b.type, b.offset, b.size])).toEqual([['AVRO_DATA_BLOCK', 0, 1172], ['CORRUPT_BLOCK', 1172, 500]]);
    expect(r.blocks[1]!.corrupt!.reason).toMatch(/past EOF/);
  });

  it('block size pointing past EOF → corrupt up to the next magic, the following block still read', async () => {
    const bad = Buffer.from(A);
    bad.writeBigInt64BE(1n << 40n, 6);
    const r = await readLogFile(storage, file(bad, D), { withRecords: true });
    expect(r.blocks.map((b) => [b.type, b.offset, b.size])).toEqual([['CORRUPT_BLOCK', 0, 1172], ['DELETE_BLOCK', 1172, D.length]]);
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/runs past EOF/);
    expect(r.blocks[1]!.deletes).toHaveLength(3);
  });

  it('trailer disagreeing with the size → corrupt', async () => {
    const bad = Buffer.from(A);
    bad.writeBigInt64BE(5n, A.length - 8);
    const r = await readLogFile(storage, file(bad, R));
    expect(r.blocks.map((b) => b.type)).toEqual(['CORRUPT_BLOCK', 'COMMAND_BLOCK']);
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/trailing block length 5/);
  });

  it('garbage between blocks → the block before it is corrupt (no magic after it), as in Java; reading resumes at the next magic', async () => {
    const garbage = Buffer.from('not a hudi block at all');
    const r = await readLogFile(storage, file(A, garbage, D));
    expect(r.blocks.map((b) => [b.type, b.offset, b.size])).toEqual([
      ['CORRUPT_BLOCK', 0, A.length + garbage.length],
      ['DELETE_BLOCK', A.length + garbage.length, D.length],
    ]);
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/no magic after the block \(at offset 1172\)/);
  });

  it('garbage before the first block → corrupt region at offset 0, then the block', async () => {
    const r = await readLogFile(storage, file(Buffer.from('xyz'), A));
    expect(r.blocks.map((b) => [b.type, b.offset, b.size])).toEqual([['CORRUPT_BLOCK', 0, 3], ['AVRO_DATA_BLOCK', 3, 1172]]);
  });

  it('corrupted Avro record → block keeps its frame, marked corrupt with the reason; next block fine', async () => {
    const bad = Buffer.from(A);
    expect(bad[0x3a4]).toBe(0x02); // union branch of _hoodie_commit_time
    bad[0x3a4] = 0x09;
    const r = await readLogFile(storage, file(bad, R), { withRecords: true });
    expect(r.blocks.map((b) => [b.type, b.offset])).toEqual([['AVRO_DATA_BLOCK', 0], ['COMMAND_BLOCK', 1172]]);
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/cannot decode AVRO_DATA_BLOCK content: record 0/);
    expect(r.blocks[0]!.records).toBeUndefined();
  });

  it('record length running past the content → corrupt with the offset', async () => {
    const bad = Buffer.from(A);
    bad.writeInt32BE(100000, 0x3a0);
    const r = await readLogFile(storage, file(bad), { withRecords: true });
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/record 0: length 100000 at content offset 8/);
  });

  it('unsupported log format version → corrupt with the version, scan continues after the block', async () => {
    const bad = Buffer.from(A);
    bad.writeInt32BE(2, 14);
    const r = await readLogFile(storage, file(bad, R));
    expect(r.blocks.map((b) => [b.type, b.offset])).toEqual([['CORRUPT_BLOCK', 0], ['COMMAND_BLOCK', 1172]]);
    expect(r.blocks[0]!.corrupt!.reason).toBe('unsupported log format version 2');
  });

  it('unknown block type → corrupt', async () => {
    const bad = Buffer.from(A);
    bad.writeInt32BE(9, 18);
    const r = await readLogFile(storage, file(bad));
    expect(r.blocks[0]!.corrupt!.reason).toBe('unknown block type 9');
  });

  it('an Avro delete list labelled content version 2 (Kryo) → a corrupt block naming what the Kryo reader found, not misread', async () => {
    const bad = Buffer.from(D);
    const contentOffset = 0x380;
    expect(bad.readInt32BE(contentOffset)).toBe(3);
    bad.writeInt32BE(2, contentOffset);
    const r = await readLogFile(storage, file(bad), { withRecords: true });
    expect(r.blocks[0]!.corrupt!.reason).toMatch(/Kryo delete block data, byte 1: expected a \[Lorg\.apache\.hudi\.common\.model\.DeleteRecord;, found byte$/);
    expect(r.blocks[0]!.deletes).toBeUndefined();
  });

  it('merge scan: corrupt blocks are counted and ignored, good records still merged', async () => {
    const p = file(A, D.subarray(0, 300));
    const config = mergeConfigFromProperties({ 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.table.recordkey.fields': 'uuid' });
    const s = await scanLogRecords(storage, [{ path: p }], { config, isValidInstant: () => true });
    expect(s.stats).toMatchObject({ totalLogBlocks: 2, totalCorruptLogBlock: 1, totalLogRecords: 1, totalLogFilesCompacted: 1, totalLogSizeCompacted: A.length + 300 });
    expect([...s.entries.keys()]).toEqual(['334e26e9-8355-45cc-97c6-c31daf0df330']);
  });

  it('headers-only reads fetch ranges, not the whole file', async () => {
    const P = bytesOf('valid_log_parquet_data'); // 5311 bytes, 4373 of them parquet content
    const big = file(P, P, P, P);
    let read = 0;
    const counting: Storage = Object.create(storage, {
      readRange: { value: async (p: string, o: number, l: number) => { const b = await storage.readRange(p, o, l); read += b.length; return b; } },
    });
    const r = await readLogFile(counting, big, { chunkSize: 64 });
    expect(r.blocks.map((b) => b.offset)).toEqual([0, 5311, 10622, 15933]);
    expect(read).toBeLessThan((P.length - 4373) * 4 + 1000);
  });
});
