import { describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { humanReadableByteCount } from '../../src/util/index.ts';
import { buildTable, compareRaw, javaDouble, type ColumnSpec, type Raw } from '../../src/render/index.ts';

interface Commit {
  time: string;
  bytes: number;
  files: number;
  ok: boolean | null;
}

const columns: ColumnSpec<Commit>[] = [
  { key: 'commitTime', header: 'CommitTime', value: (r) => r.time },
  {
    key: 'totalBytesWritten',
    header: 'Total Bytes Written',
    value: (r) => r.bytes,
    format: (v) => humanReadableByteCount(v as number),
  },
  { key: 'totalFilesAdded', header: 'Total Files Added', value: (r) => r.files },
  { key: 'ok', header: 'OK', value: (r) => r.ok },
];

const rows: Commit[] = [
  { time: '20240101120000123', bytes: 445_542, files: 2, ok: true },
  { time: '20240101110000456', bytes: 1_258_291, files: 10, ok: false },
  { time: '20240101100000789', bytes: 512, files: 9, ok: null },
  { time: '20240101090000000', bytes: 445_542, files: 1, ok: true },
];

describe('buildTable', () => {
  it('no options → insertion order, converters applied, default String.valueOf', () => {
    const m = buildTable(columns, rows, {});
    expect(m.headers).toEqual(['CommitTime', 'Total Bytes Written', 'Total Files Added', 'OK']);
    expect(m.keys).toEqual(['commitTime', 'totalBytesWritten', 'totalFilesAdded', 'ok']);
    expect(m.cells).toEqual([
      ['20240101120000123', '435.1 KB', '2', 'true'],
      ['20240101110000456', '1.2 MB', '10', 'false'],
      ['20240101100000789', '512.0 B', '9', 'null'],
      ['20240101090000000', '435.1 KB', '1', 'true'],
    ]);
    expect(m.rawRows[0]).toEqual(['20240101120000123', 445_542, 2, true]);
  });

  it('sort on a numeric column → numeric, not lexicographic (10 after 9)', () => {
    const m = buildTable(columns, rows, { sortBy: 'Total Files Added' });
    expect(m.cells.map((c) => c[2])).toEqual(['1', '2', '9', '10']);
  });

  it('sort is stable on ties; desc negates the comparator (ties keep insertion order)', () => {
    const asc = buildTable(columns, rows, { sortBy: 'Total Bytes Written' });
    expect(asc.cells.map((c) => c[0])).toEqual([
      '20240101100000789',
      '20240101120000123',
      '20240101090000000',
      '20240101110000456',
    ]);
    const desc = buildTable(columns, rows, { sortBy: 'Total Bytes Written', desc: true });
    expect(desc.cells.map((c) => c[0])).toEqual([
      '20240101110000456',
      '20240101120000123',
      '20240101090000000',
      '20240101100000789',
    ]);
  });

  it('sort on raw value, not the converted text ("1.2 MB" sorts above "435.1 KB")', () => {
    const m = buildTable(columns, rows, { sortBy: 'Total Bytes Written', desc: true, limit: 1 });
    expect(m.cells).toEqual([['20240101110000456', '1.2 MB', '10', 'false']]);
  });

  it('booleans false < true and null first', () => {
    const m = buildTable(columns, rows, { sortBy: 'OK' });
    expect(m.rawRows.map((r) => r[3])).toEqual([null, false, true, true]);
  });

  it('JSON key accepted as sort field', () => {
    const m = buildTable(columns, rows, { sortBy: 'commitTime' });
    expect(m.cells[0]![0]).toBe('20240101090000000');
  });

  it('desc without sortBy → no effect', () => {
    expect(buildTable(columns, rows, { desc: true }).cells).toEqual(buildTable(columns, rows, {}).cells);
  });

  it('limit after sort; limit <= 0 → unlimited', () => {
    expect(buildTable(columns, rows, { sortBy: 'CommitTime', limit: 2 }).cells.map((c) => c[0])).toEqual([
      '20240101090000000',
      '20240101100000789',
    ]);
    expect(buildTable(columns, rows, { limit: 0 }).cells).toHaveLength(4);
    expect(buildTable(columns, rows, { limit: -1 }).cells).toHaveLength(4);
    expect(buildTable(columns, rows, { limit: 99 }).cells).toHaveLength(4);
  });

  it('converters run only on rows that survive the limit', () => {
    const seen: Raw[] = [];
    const cols: ColumnSpec<number>[] = [{ key: 'n', header: 'N', value: (n) => n, format: (v) => (seen.push(v), String(v)) }];
    buildTable(cols, [3, 1, 2], { sortBy: 'N', limit: 2 });
    expect(seen).toEqual([1, 2]);
  });

  it('unknown sortBy → usage TblError with Java List.toString of the headers', () => {
    let err: unknown;
    try {
      buildTable(columns, rows, { sortBy: 'committime' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TblError);
    expect((err as TblError).kind).toBe('usage');
    expect((err as TblError).message).toBe(
      'Field[committime] is not in table, given columns[[CommitTime, Total Bytes Written, Total Files Added, OK]]',
    );
  });

  it('headerOnly → zero rows and no sortBy validation (hudi-cli returns before it)', () => {
    const m = buildTable(columns, rows, { headerOnly: true, sortBy: 'nope' });
    expect(m.headers).toHaveLength(4);
    expect(m.rawRows).toEqual([]);
    expect(m.cells).toEqual([]);
  });

  it('rowNumbers → leading No. column numbered 1.. after sort and limit', () => {
    const m = buildTable(columns, rows, { rowNumbers: true, sortBy: 'Total Files Added', desc: true, limit: 3 });
    expect(m.headers[0]).toBe('No.');
    expect(m.keys[0]).toBe('no');
    expect(m.cells.map((c) => [c[0], c[3]])).toEqual([
      ['1', '10'],
      ['2', '9'],
      ['3', '2'],
    ]);
    expect(m.rawRows.map((r) => r[0])).toEqual([1, 2, 3]);
  });

  it('rowNumbers with headerOnly → header includes No., no rows', () => {
    const m = buildTable(columns, rows, { rowNumbers: true, headerOnly: true });
    expect(m.headers).toEqual(['No.', 'CommitTime', 'Total Bytes Written', 'Total Files Added', 'OK']);
    expect(m.cells).toEqual([]);
  });
});

describe('compareRaw', () => {
  it('strings compare by UTF-16 code unit like Java compareTo', () => {
    // 'Z' (0x5A) < 'a' (0x61); U+FF21 (BMP) > U+1F600 surrogate 0xD83D in UTF-16
    expect(compareRaw('Z', 'a')).toBeLessThan(0);
    expect(compareRaw('\uFF21', '\u{1F600}')).toBeGreaterThan(0);
    expect(compareRaw('abc', 'abc')).toBe(0);
    expect(compareRaw('ab', 'abc')).toBeLessThan(0);
  });
  it('numbers like Double.compare: -0 < 0, NaN greatest', () => {
    expect(compareRaw(-0, 0)).toBeLessThan(0);
    expect(compareRaw(NaN, Infinity)).toBeGreaterThan(0);
    expect(compareRaw(NaN, NaN)).toBe(0);
    expect(compareRaw(2, 10)).toBeLessThan(0);
  });
  it('mixed types → null < boolean < number < string (total order instead of a Java exception)', () => {
    const v: Raw[] = ['x', 1, true, null];
    expect([...v].sort(compareRaw)).toEqual([null, true, 1, 'x']);
  });
});

describe('javaDouble', () => {
  it('matches Java Double.toString', () => {
    expect(javaDouble(1)).toBe('1.0');
    expect(javaDouble(-1)).toBe('-1.0');
    expect(javaDouble(0.123456789)).toBe('0.123456789');
    expect(javaDouble(0)).toBe('0.0');
    expect(javaDouble(1e7)).toBe('1.0E7');
    expect(javaDouble(12345678.9)).toBe('1.23456789E7');
    expect(javaDouble(0.0001)).toBe('1.0E-4');
    expect(javaDouble(0.001)).toBe('0.001');
    expect(javaDouble(9999999)).toBe('9999999.0');
    expect(javaDouble(NaN)).toBe('NaN');
  });
});
