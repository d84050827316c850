// Snapshot of a table through our own reader (table → fs-view → merged slices), as compaction tests
// compare it before and after.
import { LocalStorage } from '../../../src/storage/index.ts';
import { openTable, loadFileSystemView } from '../../../src/table/index.ts';
import { mergeConfigFromProperties, mergeFileSlice, type Row } from '../../../src/merge/index.ts';

/** `asOf`: the snapshot as of that instant (time travel: the view up to it, its blocks only). */
export async function snapshotRows(base: string, opts: { readOptimized?: boolean; asOf?: string } = {}): Promise<Row[]> {
  const table = await openTable(base);
  const view = await loadFileSystemView(table, opts.asOf ? { maxInstant: opts.asOf } : {});
  const config = mergeConfigFromProperties(Object.fromEntries(table.config.props));
  const rows: Row[] = [];
  // a pending compaction slice reads merged with the slice before it, as Hudi readers do
  for (const s of view.latestMergedFileSlices()) {
    const m = await mergeFileSlice(
      table.storage,
      { partition: s.partition, fileId: s.fileId, baseFile: s.baseFile, logFiles: opts.readOptimized ? [] : s.logFiles },
      { config, isValidInstant: view.isCommitted },
    );
    rows.push(...m.rows);
  }
  return rows;
}

/** Logical types of top-level fields, from the table's create schema or latest commit schema. */
export function logicalTypes(schemaJson: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!schemaJson) return out;
  for (const f of (JSON.parse(schemaJson) as { fields: { name: string; type: unknown }[] }).fields) {
    const t = Array.isArray(f.type) ? f.type.find((x) => x !== 'null') : f.type;
    if (t && typeof t === 'object' && 'logicalType' in t) out.set(f.name, String((t as { logicalType: string }).logicalType));
  }
  return out;
}

/** One representation per value whether it came from an Avro log block (raw) or hyparquet (Date). */
function norm(v: unknown, lt: string | undefined): unknown {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') v = Number(v);
  if (typeof v === 'number' && lt === 'date') return v * 86_400_000;
  if (typeof v === 'number' && (lt === 'timestamp-micros' || lt === 'local-timestamp-micros')) return Math.floor(v / 1000);
  return v;
}

/** Rows without _hoodie_file_name, values normalised, sorted by record key — comparable across compaction. */
export function comparable(rows: Row[], types: Map<string, string> = new Map()): Record<string, unknown>[] {
  return rows
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== '_hoodie_file_name').map(([k, v]) => [k, norm(v, types.get(k))])))
    .sort((a, b) => (String(a._hoodie_record_key) < String(b._hoodie_record_key) ? -1 : 1));
}

export const storage = new LocalStorage();
