// hudi-cli's Table.java semantics (HoodiePrintHelper.print): validate sortBy, stable sort on the raw
// value, limit, then convert each cell. Rendering is someone else's job (flip-table, delimited, json).

import { TblError } from '../errors/index.ts';
import { javaValueOf } from './java.ts';

export type Raw = string | number | boolean | null;

/** How a cell reads to a person on a colour terminal (a severity); ignored by FlipTable, CSV and JSON. */
export type Tone = 'good' | 'info' | 'warn' | 'bad' | 'dim';

export interface ColumnSpec<R> {
  /** Stable JSON field name (camelCase), documented in the man page. */
  key: string;
  /** hudi-cli header, verbatim; may contain '\n' (multi-line FlipTable cells). */
  header: string;
  /** Raw value: used for sorting and JSON. */
  value: (row: R) => Raw;
  /** hudi-cli converter (e.g. humanReadableByteCount); default Java String.valueOf (null → "null"). */
  format?: (raw: Raw) => string;
  /** colour of the cell on a terminal (tblcli's own commands) */
  tone?: (raw: Raw) => Tone | undefined;
}

export interface TableOptions {
  sortBy?: string;
  desc?: boolean;
  limit?: number;
  headerOnly?: boolean;
  rowNumbers?: boolean;
}

export interface TableModel {
  headers: string[];
  keys: string[];
  rawRows: Raw[][];
  cells: string[][];
}

/** hudi-cli's HoodieTableHeaderFields.HEADER_ROW_NO and our JSON key for it. */
export const ROW_NO_HEADER = 'No.';
export const ROW_NO_KEY = 'no';

export function buildTable<R>(columns: ColumnSpec<R>[], rows: R[], opts: TableOptions = {}): TableModel {
  const headers = columns.map((c) => c.header);
  const keys = columns.map((c) => c.key);
  let rawRows: Raw[][] = [];

  // hudi-cli: --headeronly returns before anything else is looked at, so a bad --sortBy is ignored.
  if (!opts.headerOnly) {
    const sorting = opts.sortBy !== undefined && opts.sortBy !== '';
    const limited = opts.limit !== undefined && opts.limit > 0;
    // Without a sort only the first `limit` rows are shown: do not compute values for the rest
    // (a value may cost I/O, e.g. a file's mtime on a 60k-file timeline).
    const source = !sorting && limited ? rows.slice(0, opts.limit) : rows;
    rawRows = source.map((r) => columns.map((c) => c.value(r)));
    if (sorting) {
      const idx = sortIndex(columns, opts.sortBy!);
      const sign = opts.desc ? -1 : 1;
      // Array.prototype.sort is stable (ES2019), like Java's Stream.sorted.
      rawRows.sort((a, b) => sign * compareRaw(a[idx]!, b[idx]!));
    }
    if (limited) rawRows = rawRows.slice(0, opts.limit);
  }

  let cells = rawRows.map((raw) => raw.map((v, i) => formatCell(columns[i]!, v)));
  if (opts.rowNumbers) {
    headers.unshift(ROW_NO_HEADER);
    keys.unshift(ROW_NO_KEY);
    rawRows = rawRows.map((raw, i) => [i + 1, ...raw]);
    cells = cells.map((c, i) => [String(i + 1), ...c]);
  }
  return { headers, keys, rawRows, cells };
}

function formatCell<R>(col: ColumnSpec<R>, raw: Raw): string {
  return col.format ? col.format(raw) : javaValueOf(raw);
}

/**
 * The exact, case-sensitive header (hudi-cli), or the JSON key as a convenience. Otherwise the
 * hudi-cli message, whose column list is Java's List.toString: `[a, b, c]`.
 */
function sortIndex<R>(columns: ColumnSpec<R>[], sortBy: string): number {
  let idx = columns.findIndex((c) => c.header === sortBy);
  if (idx < 0) idx = columns.findIndex((c) => c.key === sortBy);
  if (idx < 0) {
    const list = `[${columns.map((c) => c.header).join(', ')}]`;
    throw new TblError('usage', `Field[${sortBy}] is not in table, given columns[${list}]`, {
      key: sortBy,
    });
  }
  return idx;
}

/**
 * Java compareTo on the raw values: numbers numerically (Double.compare: -0 < 0, NaN greatest),
 * strings by UTF-16 code unit (JS `<` on strings is exactly that), false < true.
 * Java would NPE on null and throw ClassCastException on mixed types; we give a total order
 * instead: null first, then booleans < numbers < strings.
 */
export function compareRaw(a: Raw, b: Raw): number {
  if (typeof a === 'number' && typeof b === 'number') return compareDouble(a, b);
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'boolean') return a ? 1 : -1; // a !== b here, so b is the other value
  return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
}

function typeRank(v: Raw): number {
  return typeof v === 'boolean' ? 0 : typeof v === 'number' ? 1 : 2;
}

function compareDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an && bn ? 0 : an ? 1 : -1;
  if (a === 0 && b === 0) return Object.is(a, -0) === Object.is(b, -0) ? 0 : Object.is(a, -0) ? -1 : 1;
  return 0;
}
