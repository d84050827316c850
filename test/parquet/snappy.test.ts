import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parquetReadObjects } from 'hyparquet';
import { snappyUncompress } from 'hyparquet/src/snappy.js';
import { compressors } from 'hyparquet-compressors';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { snappyCompress as hwCompress } from 'hyparquet-writer/src/snappy.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { snappyCompress, snappyMaxCompressedLength } from '../../src/parquet/snappy.ts';

const enc = new TextEncoder();
const wasmUncompress = compressors.SNAPPY!; // hysnappy: the C++ decompressor built to wasm

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function randomBytes(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (r() * 256) | 0;
  return b;
}

function keys(n: number): Uint8Array {
  let s = '';
  for (let i = 0; i < n; i++) s += `key-${String(i).padStart(8, '0')}`;
  return enc.encode(s);
}

function floats(n: number): Uint8Array {
  const f = new Float64Array(n);
  for (let i = 0; i < n; i++) f[i] = i / 7;
  return new Uint8Array(f.buffer);
}

function pattern(n: number, period: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i % period) * 31 + 7;
  return b;
}

interface Element {
  kind: 'literal' | 'copy1' | 'copy2' | 'copy4';
  len: number;
  offset: number;
  /** output position where the element starts */
  at: number;
}

/**
 * A strict third decoder, written from the format description: checks every element's bounds and
 * returns the bytes and the elements, so tests can check how the data was encoded too.
 */
function parse(c: Uint8Array): { bytes: Uint8Array; elements: Element[] } {
  let p = 0;
  let n = 0;
  for (let shift = 0; ; shift += 7) {
    if (p >= c.length || shift > 28) throw new Error('bad varint');
    const b = c[p++]!;
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out = new Uint8Array(n);
  const elements: Element[] = [];
  let o = 0;
  while (p < c.length) {
    const tag = c[p++]!;
    const at = o;
    if ((tag & 3) === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const k = len - 59;
        if (p + k > c.length) throw new Error('truncated literal length');
        len = 0;
        for (let i = 0; i < k; i++) len += c[p + i]! * 2 ** (8 * i);
        p += k;
      }
      len += 1;
      if (p + len > c.length || o + len > n) throw new Error(`literal of ${len} overruns at ${at}`);
      out.set(c.subarray(p, p + len), o);
      p += len;
      o += len;
      elements.push({ kind: 'literal', len, offset: 0, at });
      continue;
    }
    let len: number;
    let offset: number;
    let kind: Element['kind'];
    if ((tag & 3) === 1) {
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | c[p++]!;
      kind = 'copy1';
    } else if ((tag & 3) === 2) {
      len = (tag >>> 2) + 1;
      offset = c[p]! | (c[p + 1]! << 8);
      p += 2;
      kind = 'copy2';
    } else {
      len = (tag >>> 2) + 1;
      offset = (c[p]! | (c[p + 1]! << 8) | (c[p + 2]! << 16) | (c[p + 3]! << 24)) >>> 0;
      p += 4;
      kind = 'copy4';
    }
    if (p > c.length) throw new Error('truncated copy');
    if (offset === 0 || offset > o || o + len > n) throw new Error(`bad copy offset ${offset} len ${len} at ${o}`);
    for (let i = 0; i < len; i++, o++) out[o] = out[o - offset]!;
    elements.push({ kind, len, offset, at });
  }
  if (o !== n) throw new Error(`decoded ${o} of ${n} bytes`);
  return { bytes: out, elements };
}

/** Compresses, checks the size bound, and decodes with all three decoders; returns the compressed bytes. */
function roundTrip(input: Uint8Array): Uint8Array {
  const c = snappyCompress(input);
  expect(c.length).toBeLessThanOrEqual(snappyMaxCompressedLength(input.length));
  expect(snappyMaxCompressedLength(input.length)).toBe(32 + input.length + Math.floor(input.length / 6));
  const js = new Uint8Array(input.length);
  snappyUncompress(c, js);
  expect(Buffer.from(js).equals(Buffer.from(input))).toBe(true);
  expect(Buffer.from(wasmUncompress(c, input.length)).equals(Buffer.from(input))).toBe(true);
  expect(Buffer.from(parse(c).bytes).equals(Buffer.from(input))).toBe(true);
  return c;
}

/** The encoding choices the reference compressor makes, checked on every element. */
function expectReferenceShape(c: Uint8Array): void {
  const bad = parse(c).elements.filter(
    (e) =>
      e.kind !== 'literal' &&
      // never the 4-byte offset form: fragments are 64 KB
      (e.kind === 'copy4' ||
        // a copy never reaches back before its own 64 KB fragment
        Math.floor((e.at - e.offset) / 65536) !== Math.floor(e.at / 65536) ||
        // the 2-byte copy form is not used where the 1-byte one fits
        (e.kind === 'copy2' && e.len < 12 && e.offset < 2048) ||
        // copies are at least 4 bytes (a shorter tail is never split off a long copy)
        e.len < 4),
  );
  expect(bad.slice(0, 5)).toEqual([]);
}

describe('snappyCompress', () => {
  it('empty input is the one-byte block [0]', () => {
    expect([...roundTrip(new Uint8Array(0))]).toEqual([0]);
  });

  it('tiny inputs (1..40 bytes) of every shape round-trip', () => {
    for (let n = 1; n <= 40; n++) {
      roundTrip(randomBytes(n, n));
      roundTrip(new Uint8Array(n).fill(0x61));
      roundTrip(pattern(n, 3));
    }
    // below 17 bytes a block is one literal, as in the reference
    expect([...snappyCompress(enc.encode('abcde'))]).toEqual([5, 4 << 2, 0x61, 0x62, 0x63, 0x64, 0x65]);
  });

  it('page-like inputs (the bench inputs) round-trip, in the reference shape, no bigger than hyparquet-writer by >1%', () => {
    const inputs = [
      keys(100_000),
      floats(100_000),
      enc.encode('status=COMPLETED;x=42;\n'.repeat(40_000)),
      randomBytes(1 << 20, 7),
    ];
    for (const input of inputs) {
      const c = roundTrip(input);
      expectReferenceShape(c);
      expect(c.length).toBeLessThanOrEqual(Math.ceil(hwCompress(input).length * 1.01));
    }
  });

  it('compresses: keys to under 40%, a repeated string to under 5%, zeros to under 5%', () => {
    const k = keys(100_000);
    expect(snappyCompress(k).length).toBeLessThan(k.length * 0.4);
    const s = enc.encode('status=COMPLETED;x=42;\n'.repeat(40_000));
    expect(snappyCompress(s).length).toBeLessThan(s.length * 0.05);
    const z = new Uint8Array(1 << 20);
    // 64-byte copies of 3 bytes each: ~4.7%
    expect(snappyCompress(z).length).toBeLessThan(z.length * 0.05);
  });

  it('random data stays within the bound and is mostly literal', () => {
    for (const n of [100, 4096, 65536, 300_000]) {
      const c = roundTrip(randomBytes(n, n + 1));
      expect(c.length).toBeLessThan(n + 16 + 5 * Math.ceil(n / 65536));
    }
  });

  it('64 KB fragment boundaries: 65535, 65536, 65537, 200000 bytes, compressible and not', () => {
    for (const n of [65535, 65536, 65537, 131072, 131073, 200_000]) {
      for (const input of [pattern(n, 23), pattern(n, 1000), randomBytes(n, n), new Uint8Array(n).fill(9), keys(Math.ceil(n / 12)).subarray(0, n)]) {
        expectReferenceShape(roundTrip(input));
      }
    }
  });

  it('a fragment shorter than 17 bytes after a full one is a literal', () => {
    for (const tail of [1, 5, 16, 17, 18]) {
      const input = pattern(65536 + tail, 4);
      const els = parse(roundTrip(input)).elements;
      const last = els.filter((e) => e.at >= 65536);
      if (tail < 17) expect(last).toEqual([{ kind: 'literal', len: tail, offset: 0, at: 65536 }]);
      else expect(last[0]!.kind).toBe('literal');
    }
  });

  it('matches near fragment edges: data repeated across the 64 KB line, runs ending exactly on it', () => {
    for (const cut of [65536 - 100, 65536 - 17, 65536 - 16, 65536 - 15, 65536 - 4, 65536 - 1, 65536, 65537]) {
      const chunk = randomBytes(200, cut);
      const input = new Uint8Array(65536 * 2 + 50);
      input.set(randomBytes(input.length, cut + 1));
      // the same chunk just before the line, across it, and after it
      input.set(chunk, Math.max(0, cut - 400));
      input.set(chunk.subarray(0, Math.min(200, input.length - cut)), cut);
      input.set(chunk, cut + 300);
      const c = roundTrip(input);
      expectReferenceShape(c);
      // a run that ends exactly at a fragment's end, then a different byte
      const run = new Uint8Array(65536 * 2);
      run.fill(1, 0, cut);
      run.fill(2, cut);
      expectReferenceShape(roundTrip(run));
    }
  });

  it('long runs: one byte, two bytes, 64..68-byte copies split so no copy is under 4 bytes', () => {
    for (const n of [1 << 20, 3_000_000]) expectReferenceShape(roundTrip(new Uint8Array(n).fill(0xab)));
    expectReferenceShape(roundTrip(pattern(1 << 20, 2)));
    // matches of every length 4..200 after a unique prefix
    for (let len = 4; len <= 200; len++) {
      const base = randomBytes(300, len);
      const input = new Uint8Array(300 + len + 40);
      input.set(base);
      input.set(base.subarray(0, len), 300);
      input.set(randomBytes(40, len + 1000), 300 + len);
      expectReferenceShape(roundTrip(input));
    }
  });

  it('offsets of every copy form: under 2048, 2048..65535', () => {
    for (const gap of [1, 7, 2047, 2048, 2049, 40_000, 65_000]) {
      // a random unit, zeros up to gap (matches keep the search stride short), the unit again at gap
      const input = new Uint8Array(gap + 64 + 100);
      input.set(randomBytes(Math.min(gap, 64), gap), 0);
      for (let i = gap; i < gap + 64; i++) input[i] = input[i - gap]!;
      const { elements } = parse(roundTrip(input));
      const copies = elements.filter((e) => e.kind !== 'literal');
      expect(copies.length).toBeGreaterThan(0);
      expect(copies.some((e) => e.offset === gap)).toBe(true);
    }
  });

  it('the input may be a view into a bigger buffer at any byte offset', () => {
    const all = keys(20_000);
    for (const off of [1, 2, 3, 5, 4093]) {
      const view = all.subarray(off, off + 100_000);
      const c = roundTrip(view);
      expect(Buffer.from(c).equals(Buffer.from(snappyCompress(view.slice())))).toBe(true);
    }
  });

  it('results are fresh arrays: a later call does not change an earlier result', () => {
    const a = snappyCompress(keys(1000));
    const copy = a.slice();
    snappyCompress(randomBytes(50_000, 1));
    expect(Buffer.from(a).equals(Buffer.from(copy))).toBe(true);
    // larger than the kept output buffer
    const big = pattern(5 << 20, 17);
    roundTrip(big);
  });

  it('property: arbitrary byte arrays round-trip within the bound', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 3000 }), (input) => {
        const c = snappyCompress(input);
        if (c.length > snappyMaxCompressedLength(input.length)) return false;
        const js = new Uint8Array(input.length);
        snappyUncompress(c, js);
        return Buffer.from(js).equals(Buffer.from(input)) && Buffer.from(wasmUncompress(c, input.length)).equals(Buffer.from(input));
      }),
      { numRuns: 500 },
    );
  });

  it('property: low-entropy arrays (small alphabets, repeated chunks) round-trip in the reference shape', () => {
    const smallAlphabet = fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(255), { minLength: 0, maxLength: 5000 }))
      .map(([k, xs]) => Uint8Array.from(xs, (x) => (x % k) * 37));
    const chunks = fc
      .tuple(fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 400 }))
      .map(([pool, picks]) => {
        const parts = picks.map((i) => pool[i % pool.length]!);
        const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
        let o = 0;
        for (const p of parts) {
          out.set(p, o);
          o += p.length;
        }
        return out;
      });
    fc.assert(
      fc.property(fc.oneof(smallAlphabet, chunks), (input) => {
        const c = snappyCompress(input);
        if (c.length > snappyMaxCompressedLength(input.length)) return false;
        const { bytes, elements } = parse(c);
        const js = new Uint8Array(input.length);
        snappyUncompress(c, js);
        return (
          Buffer.from(bytes).equals(Buffer.from(input)) &&
          Buffer.from(js).equals(Buffer.from(input)) &&
          Buffer.from(wasmUncompress(c, input.length)).equals(Buffer.from(input)) &&
          elements.every((e) => e.kind === 'literal' || (e.len >= 4 && e.kind !== 'copy4' && (e.kind === 'copy1' || e.len >= 12 || e.offset >= 2048)))
        );
      }),
      { numRuns: 300 },
    );
  });

  it('property: low-entropy arrays over fragment edges (up to 200 KB) round-trip', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60_000, max: 200_000 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 6 }), (n, period, k) => {
        const r = rng(n ^ period);
        const unit = Uint8Array.from({ length: period }, () => ((r() * k) | 0) * 41);
        const input = new Uint8Array(n);
        for (let i = 0; i < n; i++) input[i] = r() < 0.01 ? 255 : unit[i % period]!;
        const c = snappyCompress(input);
        if (c.length > snappyMaxCompressedLength(n)) return false;
        const js = new Uint8Array(n);
        snappyUncompress(c, js);
        return Buffer.from(js).equals(Buffer.from(input)) && Buffer.from(wasmUncompress(c, n)).equals(Buffer.from(input));
      }),
      { numRuns: 40 },
    );
  });

  it('a parquet file with our SNAPPY pages: hyparquet and DuckDB read it back', async () => {
    const n = 30_000;
    const ids = Array.from({ length: n }, (_, i) => `key-${String(i).padStart(8, '0')}`);
    const amounts = Array.from({ length: n }, (_, i) => i / 7);
    const status = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : `status-${i % 5}`));
    let calls = 0;
    let bytesIn = 0;
    const ours = (b: Uint8Array): Uint8Array => {
      calls++;
      bytesIn += b.length;
      return snappyCompress(b);
    };
    const ab = parquetWriteBuffer({
      codec: 'SNAPPY',
      compressors: { SNAPPY: ours },
      rowGroupSize: 10_000,
      columnData: [
        { name: 'id', data: ids, type: 'STRING' },
        { name: 'amount', data: amounts, type: 'DOUBLE' },
        { name: 'status', data: status, type: 'STRING' },
      ],
    });
    // every page went through ours (3 row groups × 3 columns, at least one page each)
    expect(calls).toBeGreaterThanOrEqual(9);
    expect(bytesIn).toBeGreaterThan(n * 20);

    // hyparquet with its own JS snappy decoder, and with hysnappy's
    for (const opts of [{}, { compressors }]) {
      const rows = await parquetReadObjects({ file: ab, ...opts });
      expect(rows.length).toBe(n);
      expect(rows.map((r) => r.id)).toEqual(ids);
      expect(rows.map((r) => r.amount)).toEqual(amounts);
      expect(rows.map((r) => r.status)).toEqual(status);
    }

    const dir = mkdtempSync(join(tmpdir(), 'tblcli-snappy-'));
    const path = join(dir, 'ours.snappy.parquet');
    writeFileSync(path, new Uint8Array(ab));
    expect(readFileSync(path).length).toBe(ab.byteLength);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const codecs = await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${path}')`);
      expect(codecs.getRowObjects()).toEqual([{ compression: 'SNAPPY' }]);
      const r = await c.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids, min(id) AS lo, max(id) AS hi,
                sum(amount)::DOUBLE AS total, count(status)::INTEGER AS statuses, string_agg(DISTINCT status, ',' ORDER BY status) AS kinds
           FROM read_parquet('${path}')`,
      );
      expect(r.getRowObjects()[0]).toEqual({
        n,
        ids: n,
        lo: ids[0],
        hi: ids[n - 1],
        total: amounts.reduce((s, x) => s + x, 0),
        statuses: status.filter((s) => s !== null).length,
        kinds: 'status-0,status-1,status-2,status-3,status-4',
      });
    } finally {
      c.closeSync();
    }
  });
});
