// Snapshot of a table through our own reader (table → fs-view → merged slices), as compaction tests
// compare it before and after.
import { LocalStorage } from '../../../src/storage/index.ts';
import { openTable, loadFileSystemView } from '../../../src/table/index.ts';
import { mergeConfigFromProperties, mergeFileSlice, type Row } from '../../../src/merge/index.ts';

export async function snapshotRows(base: string, opts: { readOptimized?: boolean } = {}): Promise<Row[]> {
  const table = await openTable(base);
  const view = await loadFileSystemView(table);
  const config = mergeConfigFromProperties(Object.fromEntries(table.config.props));
  const rows: Row[] = [];
  for (const s of view.latestFileSlices()) {
    const m = await mergeFileSlice(
      table.storage,
      { partition: s.partition, fileId: s.fileId, baseFile: s.baseFile, logFiles: opts.readOptimized ? [] : s.logFiles },
      { config, isValidInstant: view.isCommitted },
    );
    rows.push(...m.rows);
  }
  return rows;
}

const norm = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);

/** Rows without _hoodie_file_name, values normalised, sorted by record key — comparable across compaction. */
export function comparable(rows: Row[]): Record<string, unknown>[] {
  return rows
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== '_hoodie_file_name').map(([k, v]) => [k, norm(v)])))
    .sort((a, b) => (String(a._hoodie_record_key) < String(b._hoodie_record_key) ? -1 : 1));
}

export const storage = new LocalStorage();
