import { describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { buildTable, renderDelimited, renderJson, type ColumnSpec } from '../../src/render/index.ts';

describe('renderDelimited', () => {
  it('CSV: RFC 4180 quoting only where needed, quotes doubled, header line', () => {
    const got = renderDelimited(
      ['Partition Path', 'Note'],
      [
        ['p=1', 'plain'],
        ['a,b', 'say "hi"'],
        ['multi\nline', 'cr\rhere'],
        ['', ' spaced '],
      ],
      ',',
      { header: true },
    );
    expect(got).toBe(
      'Partition Path,Note\n' + 'p=1,plain\n' + '"a,b","say ""hi"""\n' + '"multi\nline","cr\rhere"\n' + ', spaced \n',
    );
  });

  it('TSV: tab, newline, CR and backslash escaped; nothing else touched', () => {
    const got = renderDelimited(['A', 'B'], [['x\ty', 'l1\nl2'], ['c:\\dir', 'a,"b"\r']], '\t', { header: true });
    expect(got).toBe('A\tB\n' + 'x\\ty\tl1\\nl2\n' + 'c:\\\\dir\ta,"b"\\r\n');
  });

  it('header: false → data lines only; no rows → empty string', () => {
    expect(renderDelimited(['A'], [['1'], ['2']], ',', { header: false })).toBe('1\n2\n');
    expect(renderDelimited(['A'], [], '\t', { header: false })).toBe('');
    expect(renderDelimited(['A', 'B'], [], ',', { header: true })).toBe('A,B\n');
  });
});

interface Row {
  id: string;
  size: number;
  ok: boolean | null;
}
const columns: ColumnSpec<Row>[] = [
  { key: 'fileId', header: 'File Id', value: (r) => r.id },
  { key: 'sizeBytes', header: 'Size', value: (r) => r.size, format: (v) => `${v} B` },
  { key: 'ok', header: 'OK', value: (r) => r.ok },
];
const rows: Row[] = [
  { id: 'f1', size: 10, ok: true },
  { id: 'f2', size: 2, ok: null },
];

describe('renderJson', () => {
  it('all fields, raw values (numbers stay numbers, null stays null), compact', () => {
    expect(renderJson(buildTable(columns, rows, {}), { pretty: false })).toBe(
      '[{"fileId":"f1","sizeBytes":10,"ok":true},{"fileId":"f2","sizeBytes":2,"ok":null}]',
    );
  });

  it('pretty → two-space indentation', () => {
    expect(renderJson(buildTable(columns, rows.slice(0, 1), {}), { pretty: true })).toBe(
      '[\n  {\n    "fileId": "f1",\n    "sizeBytes": 10,\n    "ok": true\n  }\n]',
    );
  });

  it('field selection keeps the requested order, drops duplicates; sort/limit apply', () => {
    const m = buildTable(columns, rows, { sortBy: 'Size', limit: 1 });
    expect(renderJson(m, { pretty: false, fields: ['sizeBytes', 'fileId', 'sizeBytes'] })).toBe(
      '[{"sizeBytes":2,"fileId":"f2"}]',
    );
  });

  it('row numbers appear as "no"', () => {
    const m = buildTable(columns, rows, { rowNumbers: true });
    expect(renderJson(m, { pretty: false, fields: ['no', 'fileId'] })).toBe('[{"no":1,"fileId":"f1"},{"no":2,"fileId":"f2"}]');
  });

  it('headerOnly → []', () => {
    expect(renderJson(buildTable(columns, rows, { headerOnly: true }), { pretty: false })).toBe('[]');
  });

  it('unknown field → usage error listing the available fields', () => {
    const m = buildTable(columns, rows, {});
    let err: unknown;
    try {
      renderJson(m, { pretty: false, fields: ['fileId', 'size'] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TblError);
    expect((err as TblError).kind).toBe('usage');
    expect((err as TblError).message).toBe("Unknown JSON field 'size'. Available fields: fileId, sizeBytes, ok");
  });
});
