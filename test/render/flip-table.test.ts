import { describe, expect, it } from 'vitest';
import { bold, renderFlipTable, renderPlainTable, stripAnsi } from '../../src/render/index.ts';

// Goldens: hudi-cli.md §3.3 (the first matches real hudi-cli output in apache/hudi PR #1312) and
// the expectations of fliptables' own FlipTableTest.
const lines = (...l: string[]): string => l.map((s) => `${s}\n`).join('');

describe('renderFlipTable', () => {
  it('commits-style table → exact hudi-cli bytes', () => {
    const got = renderFlipTable(
      ['CommitTime', 'Total Bytes Written', 'Total Files Added'],
      [
        ['20240101120000123', '435.1 KB', '2'],
        ['20240101110000456', '1.2 MB', '10'],
      ],
    );
    expect(got).toBe(
      lines(
        '╔═══════════════════╤═════════════════════╤═══════════════════╗',
        '║ CommitTime        │ Total Bytes Written │ Total Files Added ║',
        '╠═══════════════════╪═════════════════════╪═══════════════════╣',
        '║ 20240101120000123 │ 435.1 KB            │ 2                 ║',
        '╟───────────────────┼─────────────────────┼───────────────────╢',
        '║ 20240101110000456 │ 1.2 MB              │ 10                ║',
        '╚═══════════════════╧═════════════════════╧═══════════════════╝',
      ),
    );
  });

  it('no rows → (empty) row spanning the inner width', () => {
    expect(renderFlipTable(['CommitTime', 'Total Bytes Written', 'Total Files Added'], [])).toBe(
      lines(
        '╔════════════╤═════════════════════╤═══════════════════╗',
        '║ CommitTime │ Total Bytes Written │ Total Files Added ║',
        '╠════════════╧═════════════════════╧═══════════════════╣',
        '║ (empty)                                              ║',
        '╚══════════════════════════════════════════════════════╝',
      ),
    );
  });

  it('multi-line header (Requested\\nTime) with No. column → extra physical header line', () => {
    const got = renderFlipTable(
      ['No.', 'Instant', 'Action', 'State', 'Requested\nTime'],
      [['1', '20240101120000123', 'commit', 'COMPLETED', '01-01 12:00']],
    );
    expect(got).toBe(
      lines(
        '╔═════╤═══════════════════╤════════╤═══════════╤═════════════╗',
        '║ No. │ Instant           │ Action │ State     │ Requested   ║',
        '║     │                   │        │           │ Time        ║',
        '╠═════╪═══════════════════╪════════╪═══════════╪═════════════╣',
        '║ 1   │ 20240101120000123 │ commit │ COMPLETED │ 01-01 12:00 ║',
        '╚═════╧═══════════════════╧════════╧═══════════╧═════════════╝',
      ),
    );
  });

  it('one narrow column, no rows → last column widened to fit (empty)', () => {
    expect(renderFlipTable(['A'], [])).toBe(
      lines('╔═════════╗', '║ A       ║', '╠═════════╣', '║ (empty) ║', '╚═════════╝'),
    );
  });

  it('two narrow columns, no rows → only the last column widened', () => {
    expect(renderFlipTable(['A', 'B'], [])).toBe(
      lines('╔═══╤═════╗', '║ A │ B   ║', '╠═══╧═════╣', '║ (empty) ║', '╚═════════╝'),
    );
  });

  it('width exactly fitting (empty) with data rows → not widened', () => {
    // 2 + 3 + 2 = 7 = "(empty)".length
    expect(renderFlipTable(['ab', 'cd'], [['1', '2']])).toBe(
      lines('╔════╤════╗', '║ ab │ cd ║', '╠════╪════╣', '║ 1  │ 2  ║', '╚════╧════╝'),
    );
  });

  it('narrow table with data rows → last column still widened (FlipTable does it unconditionally)', () => {
    expect(renderFlipTable(['A', 'B'], [['1', '2']])).toBe(
      lines('╔═══╤═════╗', '║ A │ B   ║', '╠═══╪═════╣', '║ 1 │ 2   ║', '╚═══╧═════╝'),
    );
  });

  it('multi-line data cells, first line shorter or longer', () => {
    expect(renderFlipTable(['One', 'Two'], [['Foo Bar\nBaz', 'Two']])).toBe(
      lines('╔═════════╤═════╗', '║ One     │ Two ║', '╠═════════╪═════╣', '║ Foo Bar │ Two ║', '║ Baz     │     ║', '╚═════════╧═════╝'),
    );
    expect(renderFlipTable(['One', 'Two'], [['Foo\nBar Baz', 'Two']])).toBe(
      lines('╔═════════╤═════╗', '║ One     │ Two ║', '╠═════════╪═════╣', '║ Foo     │ Two ║', '║ Bar Baz │     ║', '╚═════════╧═════╝'),
    );
  });

  it('Java split semantics: trailing newline adds no line, empty cell is one empty line', () => {
    expect(renderFlipTable(['H', 'I'], [['a\n', ''], ['\n', 'x']])).toBe(
      lines('╔═══╤═════╗', '║ H │ I   ║', '╠═══╪═════╣', '║ a │     ║', '╟───┼─────╢', '║   │ x   ║', '╚═══╧═════╝'),
    );
  });

  it('ANSI codes are ignored for width and padding', () => {
    const got = renderFlipTable(['One', 'Two'], [['\u001b[31mR\u001b[0m', 'Blue']]);
    expect(stripAnsi(got)).toBe(
      lines('╔═════╤══════╗', '║ One │ Two  ║', '╠═════╪══════╣', '║ R   │ Blue ║', '╚═════╧══════╝'),
    );
  });

  it('header style is applied per header line, text only', () => {
    const got = renderFlipTable(['No.', 'Req\nTime'], [['1', 'x']], { header: bold });
    expect(got).toContain('║ \u001b[1mNo.\u001b[22m │ \u001b[1mReq\u001b[22m  ║\n');
    expect(got).toContain('║     │ \u001b[1mTime\u001b[22m ║\n');
    expect(stripAnsi(got)).toBe(renderFlipTable(['No.', 'Req\nTime'], [['1', 'x']]));
  });

  it('row with the wrong number of cells → FlipTable error', () => {
    expect(() => renderFlipTable(['The', 'Headers'], [['Less']])).toThrow("Row 1's 1 columns != 2 columns");
    expect(() => renderFlipTable([], [])).toThrow('Headers must not be empty.');
  });

  it('renderPlainTable is the same FlipTable', () => {
    expect(renderPlainTable(['Hi', 'Header'], [['Foo', 'Bar'], ['Kit', 'Kat'], ['Ping', 'Pong']])).toBe(
      lines(
        '╔══════╤════════╗',
        '║ Hi   │ Header ║',
        '╠══════╪════════╣',
        '║ Foo  │ Bar    ║',
        '╟──────┼────────╢',
        '║ Kit  │ Kat    ║',
        '╟──────┼────────╢',
        '║ Ping │ Pong   ║',
        '╚══════╧════════╝',
      ),
    );
  });
});

describe('renderFlipTable writeBytes (big tables as UTF-8 chunks)', () => {
  const collect = (headers: string[], cells: string[][], header?: (s: string) => string) => {
    const chunks: Uint8Array[] = [];
    expect(renderFlipTable(headers, cells, { writeBytes: (c) => chunks.push(c), header })).toBe('');
    return { text: Buffer.concat(chunks).toString('utf8'), chunks };
  };

  it('same bytes as the string form: plain, non-ASCII, multi-line, ANSI, control-character and empty cells, across chunk boundaries', () => {
    const headers = ['Time', 'Partition\nPath', 'Size'];
    const cells = Array.from({ length: 9000 }, (_, i) => [
      String(20250101000000000 + i),
      i % 5 === 0 ? `région=ü/${i}` : i % 7 === 0 ? `two\nlines ${i}` : i % 11 === 0 ? bold(`b${i}`) : i % 19 === 0 ? `tab\t${i}\u007f` : `p=${i % 13}`,
      i % 17 === 0 ? '' : `${i}.5 KB`,
    ]);
    const { text, chunks } = collect(headers, cells, bold);
    expect(chunks.length).toBeGreaterThan(1); // > 1 MB: the chunk boundary is crossed
    expect(text).toBe(renderFlipTable(headers, cells, { header: bold }));
  });

  it('a column wider than a chunk (a 400k-character cell): nothing is cut', () => {
    const cells = [['a', 'x'.repeat(400_000)], ['b', 'ü']];
    expect(collect(['k', 'v'], cells).text).toBe(renderFlipTable(['k', 'v'], cells));
  });

  it('no rows: the (empty) table as one chunk', () => {
    expect(collect(['a', 'b'], []).text).toBe(renderFlipTable(['a', 'b'], []));
  });

  it('every chunk is a fresh buffer (a pipe may still hold the previous one)', () => {
    const cells = Array.from({ length: 8000 }, (_, i) => [String(i), 'x'.repeat(60)]);
    const { chunks } = collect(['n', 'x'], cells);
    expect(new Set(chunks.map((c) => c.buffer)).size).toBe(chunks.length);
  });
});
