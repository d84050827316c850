// com.jakewharton.fliptables.FlipTable (1.0.x, as used by hudi-cli's HoodiePrintHelper), reproduced
// byte for byte:
//   - column width = longest line (cells split on '\n', Java split semantics) over header and data,
//     ANSI SGR codes ignored;
//   - every cell is " " + line padded to the width + " ";
//   - no data rows: a ╠═╧═╣ divider, one "(empty)" row spanning the inner width, ╚═══╝; when the
//     whole table is narrower than "(empty)" the last column is widened;
//   - every line ends with '\n'.
// One deliberate difference: FlipTable pads with String.format, which counts ANSI codes, so a
// coloured cell narrower than its column comes out misaligned. We pad by visible width; without
// colour (always the case off a TTY) the bytes are identical.

import { visibleLength } from './ansi.ts';

const EMPTY = '(empty)';

// Divider characters in FlipTable's order: start, fill, joint, (unused), end.
const TOP = '╔═╤═╗';
const HEADER_BOTTOM = '╠═╪═╣';
const HEADER_BOTTOM_NO_DATA = '╠═╧═╣';
const ROW_DIVIDER = '╟─┼─╢';
const FOOTER = '╚═╧═╝';
const FOOTER_NO_DATA = '╚═══╝';
const ROW_START = '║';
const COLUMN_SEPARATOR = '│';
const ROW_END = '║';

export interface FlipTableStyle {
  /** Applied to each header line's text after widths are measured (e.g. bold on a TTY). */
  header?: (line: string) => string;
  /**
   * Receives the table in pieces of a few thousand lines (then the return value is ''): a 20k-row
   * table is ~15 MB, and one string of it costs a join, a copy and the GC.
   */
  write?: (chunk: string) => void;
  /**
   * Like `write`, in UTF-8 chunks of about a megabyte (each a fresh buffer the receiver may keep):
   * the row divider, two thirds of a big table's bytes, is then encoded once and copied.
   */
  writeBytes?: (chunk: Uint8Array) => void;
}

export function renderFlipTable(headers: string[], cells: string[][], style: FlipTableStyle = {}): string {
  const columns = headers.length;
  if (columns === 0) throw new Error('Headers must not be empty.');
  const widths = new Array<number>(columns).fill(0);
  const measure = (row: string[], rowNo: number): void => {
    if (row.length !== columns) {
      throw new Error(`Row ${rowNo}'s ${row.length} columns != ${columns} columns`);
    }
    for (let c = 0; c < columns; c++) {
      const cell = row[c]!;
      if (isPlain(cell)) {
        if (cell.length > widths[c]!) widths[c] = cell.length;
      } else for (const line of javaSplitLines(cell)) widths[c] = Math.max(widths[c]!, visibleLength(line));
    }
  };
  measure(headers, 0);
  cells.forEach((row, i) => measure(row, i + 1));

  const emptyWidth = widths.reduce((a, w) => a + w, 3 * (columns - 1));
  if (emptyWidth < EMPTY.length) widths[columns - 1]! += EMPTY.length - emptyWidth;

  let out = divider(widths, TOP);
  out += dataLines(widths, headers, style.header);
  if (cells.length === 0) {
    out += divider(widths, HEADER_BOTTOM_NO_DATA);
    out += `${ROW_START}${pad(emptyWidth, EMPTY)}${ROW_END}\n`;
    out += divider(widths, FOOTER_NO_DATA);
  } else {
    // 20k-row listings: build each divider once, and single-line plain rows without splitting
    const rowDivider = divider(widths, ROW_DIVIDER);
    const head = out + divider(widths, HEADER_BOTTOM);
    if (style.writeBytes) {
      writeRowBytes(widths, head, rowDivider, cells, style.writeBytes);
      return '';
    }
    const parts: string[] = [head];
    const write = style.write;
    cells.forEach((row, i) => {
      if (i > 0) parts.push(rowDivider);
      parts.push(row.every(isPlain) ? plainLine(widths, row) : dataLines(widths, row));
      if (write && parts.length >= 4096) {
        write(parts.join(''));
        parts.length = 0;
      }
    });
    parts.push(divider(widths, FOOTER));
    if (!write) return parts.join('');
    write(parts.join(''));
    return '';
  }
  if (style.writeBytes) {
    style.writeBytes(Buffer.from(out));
    return '';
  }
  if (style.write) {
    style.write(out);
    return '';
  }
  return out;
}

const CHUNK_BYTES = 1 << 20;
const START = Buffer.from(`${ROW_START} `);
const SEPARATOR = Buffer.from(` ${COLUMN_SEPARATOR} `);
const END = Buffer.from(` ${ROW_END}\n`);

/** The rows and the footer as UTF-8 chunks; plain cells are written straight into the chunk. */
function writeRowBytes(widths: number[], head: string, rowDivider: string, cells: string[][], write: (chunk: Uint8Array) => void): void {
  const div = Buffer.from(rowDivider);
  // a plain ASCII row is the blank row with each cell's text at its column's byte offset: two copies
  // and the cells' characters instead of building the row byte by byte
  const blank = Buffer.from(plainLine(widths, widths.map(() => '')));
  const cellAt: number[] = [];
  for (let c = 0, o = START.length; c < widths.length; o += widths[c]! + SEPARATOR.length, c++) cellAt.push(o);
  // a plain row's bytes at most: every UTF-16 unit of a cell is ≤ 3 bytes, padding makes up the width
  const rowMax = div.length + START.length + (widths.length - 1) * SEPARATOR.length + END.length + 3 * widths.reduce((a, w) => a + w, 0);
  let buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, Buffer.byteLength(head))); // a very wide column's header may not fit a chunk
  let at = buf.write(head);
  const room = (n: number): void => {
    if (at + n <= buf.length) return;
    write(buf.subarray(0, at));
    buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, n)); // fresh: the receiver may still hold the last one
    at = 0;
  };
  for (let i = 0; i < cells.length; i++) {
    const row = cells[i]!;
    room(rowMax);
    if (asciiRowBytes(buf, at, i > 0 ? div : undefined, blank, cellAt, row)) {
      at += (i > 0 ? div.length : 0) + blank.length;
      continue;
    }
    if (!row.every(isPlain)) {
      const text = (i > 0 ? rowDivider : '') + dataLines(widths, row);
      room(Buffer.byteLength(text));
      at += buf.write(text, at);
      continue;
    }
    at = plainRowBytes(buf, at, i > 0 ? div : undefined, widths, row);
  }
  const footer = divider(widths, FOOTER);
  room(Buffer.byteLength(footer));
  at += buf.write(footer, at);
  write(buf.subarray(0, at));
}

/**
 * Writes [divider +] the row at `at` as the blank row filled in, when every cell is ASCII without
 * control characters below 0x20 (so no line break, no escape code, nothing multi-byte); false
 * otherwise (the bytes written are then garbage the caller overwrites).
 */
function asciiRowBytes(buf: Buffer, at: number, div: Buffer | undefined, blank: Buffer, cellAt: number[], row: string[]): boolean {
  if (div) {
    buf.set(div, at); // TypedArray set is a memcpy
    at += div.length;
  }
  buf.set(blank, at);
  for (let c = 0; c < row.length; c++) {
    const text = row[c]!;
    const o = at + cellAt[c]!;
    for (let k = 0; k < text.length; k++) {
      const ch = text.charCodeAt(k);
      if (ch >= 0x80 || ch < 0x20) return false;
      buf[o + k] = ch;
    }
  }
  return true;
}

/** Writes [divider +] one plain row at `at` (room is there); byte by byte: short cells cost less in a loop than in a native call each. */
function plainRowBytes(buf: Buffer, at: number, div: Buffer | undefined, widths: number[], row: string[]): number {
  if (div) {
    buf.set(div, at); // TypedArray set is a memcpy
    at += div.length;
  }
  for (let c = 0; c < row.length; c++) {
    const text = row[c]!;
    const sep = c === 0 ? START : SEPARATOR;
    for (let k = 0; k < sep.length; k++) buf[at++] = sep[k]!;
    let k = 0;
    for (; k < text.length; k++) {
      const ch = text.charCodeAt(k);
      if (ch >= 0x80) break;
      buf[at++] = ch;
    }
    if (k < text.length) at += buf.write(text.slice(k), at);
    for (let n = widths[c]! - text.length; n > 0; n--) buf[at++] = 0x20;
  }
  for (let k = 0; k < END.length; k++) buf[at++] = END[k]!;
  return at;
}

/** No line break and no ANSI code: width is the length. */
function isPlain(s: string): boolean {
  return s.indexOf('\n') < 0 && s.indexOf('\u001b') < 0;
}

function plainLine(widths: number[], row: string[]): string {
  let s = '';
  for (let c = 0; c < row.length; c++) {
    const text = row[c]!;
    s += `${c === 0 ? ROW_START : COLUMN_SEPARATOR} ${text}${' '.repeat(widths[c]! - text.length)} `;
  }
  return `${s}${ROW_END}\n`;
}

function divider(widths: number[], format: string): string {
  let s = '';
  widths.forEach((w, c) => {
    s += (c === 0 ? format[0] : format[2]) + format[1]!.repeat(w + 2);
  });
  return `${s}${format[4]}\n`;
}

function dataLines(widths: number[], row: string[], styleLine?: (s: string) => string): string {
  const split = row.map(javaSplitLines);
  const lines = Math.max(1, ...split.map((l) => l.length));
  let s = '';
  for (let line = 0; line < lines; line++) {
    split.forEach((cellLines, c) => {
      s += c === 0 ? ROW_START : COLUMN_SEPARATOR;
      const text = cellLines[line] ?? '';
      s += pad(widths[c]!, text, styleLine && text !== '' ? styleLine(text) : text);
    });
    s += `${ROW_END}\n`;
  }
  return s;
}

/** " " + text + spaces up to width + " " (Java `String.format(" %-Ns ", text)` by visible width). */
function pad(width: number, text: string, shown: string = text): string {
  return ` ${shown}${' '.repeat(Math.max(0, width - visibleLength(text)))} `;
}

/** Java String.split("\\n"): trailing empty strings are dropped, so "a\n" is one line and "\n" none. */
function javaSplitLines(s: string): string[] {
  const parts = s.split('\n');
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  // Java returns the input itself when there is no match, so "" is one (empty) line.
  return end === 0 && !s.includes('\n') ? [s] : parts.slice(0, end);
}

/** hudi-cli's plain `HoodiePrintHelper.print(String[] header, String[][] rows)`: FlipTable, no sort/convert. */
export function renderPlainTable(headers: string[], cells: string[][]): string {
  return renderFlipTable(headers, cells);
}
