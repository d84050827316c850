import type { ColumnSpec } from '../render/index.ts';

/** What a listing command hands to Output.table: columns and the rows they read. */
export interface TableResult<R = any> {
  columns: ColumnSpec<R>[];
  rows: R[];
}

export function result<R>(columns: ColumnSpec<R>[], rows: R[]): TableResult<R> {
  return { columns, rows };
}
