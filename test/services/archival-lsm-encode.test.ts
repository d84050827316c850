// The LSM file encoder (encodeLsmFile): packed, the metadata column taken as it lies when the values
// are adjacent in one buffer (as archival reads them), else copied. Pinned against the row writer
// (hyparquet-writer through writeHoodieParquet, which the packed path replaced) byte for byte, and
// read back by DuckDB.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { SCHEMAS } from '../../src/metadata/index.ts';
import { writeHoodieParquet, type AvroRecordSchema } from '../../src/parquet/index.ts';
import { encodeLsmFile, type LsmRow } from '../../src/services/archival/lsm.ts';
import { ByteArena } from '../../src/util/index.ts';

function rowsOf(n: number, arena?: ByteArena): LsmRow[] {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: n }, (_, i) => {
    const t = String(20250101000000000 + i * 1000);
    // sizes from empty to ~9 kB (a page holds a few hundred), some with a plan, some without metadata
    const meta = i % 97 === 5 ? null : Uint8Array.from({ length: Math.floor(rnd() * 9000) }, (_, k) => (k * 31 + i) & 0xff);
    return {
      instantTime: t,
      completionTime: i % 13 === 0 ? null : String(Number(t) + 500),
      action: i % 11 === 0 ? 'clean' : 'deltacommit',
      metadata: meta && arena ? arena.copy(meta) : meta,
      plan: i % 11 === 0 ? new TextEncoder().encode(`plan ${i}`) : null,
      version: 1,
    };
  });
}

function rowWriter(rows: readonly LsmRow[]): Uint8Array {
  return writeHoodieParquet({
    schema: SCHEMAS.HoodieLSMTimelineInstant as unknown as AvroRecordSchema,
    rows: rows as unknown as Record<string, unknown>[],
    codec: 'GZIP',
    recordKeyField: 'instantTime',
    bloomFilter: false,
    recordKeyFooter: false,
    statistics: false,
  }).bytes;
}

describe('encodeLsmFile', () => {
  it('writes the row writer\'s bytes, whether the metadata lies end to end in one buffer or not', async () => {
    const arena = new ByteArena(undefined, 1500);
    const adjacent = rowsOf(1500, arena);
    const scattered = rowsOf(1500);
    // the arena did put them end to end (else this test would not cover the adopted column)
    const metas = adjacent.map((r) => r.metadata).filter((m) => m !== null);
    for (let i = 1; i < metas.length; i++) {
      expect(metas[i]!.buffer).toBe(metas[0]!.buffer);
      expect(metas[i]!.byteOffset).toBe(metas[i - 1]!.byteOffset + metas[i - 1]!.length);
    }
    const expected = rowWriter(scattered);
    expect(Buffer.from(await encodeLsmFile(adjacent)).equals(Buffer.from(expected))).toBe(true);
    expect(Buffer.from(await encodeLsmFile(scattered)).equals(Buffer.from(expected))).toBe(true);
    // a file of one row
    const one = rowsOf(1);
    expect(Buffer.from(await encodeLsmFile(one)).equals(Buffer.from(rowWriter(one)))).toBe(true);
  });

  it('is read back by DuckDB: every row, every value', async () => {
    const rows = rowsOf(1200, new ByteArena(undefined, 1200));
    const path = join(mkdtempSync(join(tmpdir(), 'tblcli-lsm-enc-')), 'f.parquet');
    writeFileSync(path, await encodeLsmFile(rows));
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const r = await db.runAndReadAll(`SELECT instantTime, completionTime, action, hex(metadata), hex(plan), version FROM read_parquet('${path}') ORDER BY instantTime`);
    db.closeSync();
    const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex').toUpperCase());
    expect(r.getRows().map((x) => x.map((v) => (v === null ? null : String(v))))).toEqual(rows.map((x) => [x.instantTime, x.completionTime, x.action, hex(x.metadata), hex(x.plan), '1']));
  });
});

describe('ByteArena', () => {
  it('keeps every copy intact across slabs, and gives a large copy its own buffer', () => {
    const arena = new ByteArena(1024);
    const inputs = Array.from({ length: 200 }, (_, i) => Uint8Array.from({ length: (i * 37) % 300 }, (_, k) => (i + k) & 0xff));
    const copies = inputs.map((b) => arena.copy(b));
    inputs.forEach((b, i) => expect(Buffer.from(copies[i]!).equals(Buffer.from(b))).toBe(true));
    expect(new Set(copies.map((c) => c.buffer)).size).toBeGreaterThan(1);
    const big = arena.copy(new Uint8Array(600).fill(9));
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(600);
  });
});

describe('ByteArena sized for the copies to come', () => {
  it('lays similar copies end to end in its first slab, and caps that slab for a huge first copy', () => {
    const arena = new ByteArena(1024, 100);
    const copies = Array.from({ length: 100 }, (_, i) => arena.copy(new Uint8Array(500 + (i % 7)).fill(i)));
    for (let i = 1; i < copies.length; i++) expect(copies[i]!.byteOffset).toBe(copies[i - 1]!.byteOffset + copies[i - 1]!.length);
    // a 64 MB first copy of 10,000 expected would size 1.3 TB: capped (256 MB), the copy still made
    const big = new ByteArena(undefined, 10_000).copy(new Uint8Array(64 * 1024 * 1024).fill(3));
    expect(big.length).toBe(64 * 1024 * 1024);
    expect(big.buffer.byteLength).toBeLessThanOrEqual(256 * 1024 * 1024);
    expect(big[big.length - 1]).toBe(3);
  });
});
