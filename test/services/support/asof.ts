// Time travel through our own reader: the snapshot of a table as of an instant (the as-of file-system
// view — `show fsview … --maxInstant` — with every slice merged), comparable across a clean.
import { mergeConfigFromProperties, mergeFileSlice } from '../../../src/merge/index.ts';
import { LocalStorage } from '../../../src/storage/index.ts';
import { loadFileSystemView, openTable } from '../../../src/table/index.ts';
import { comparable, logicalTypes } from './snapshot.ts';

const storage = new LocalStorage();

/** Rows visible as of `instant` (requested time; undefined = latest), sorted by key, file names dropped. */
export async function snapshotAsOf(base: string, instant?: string): Promise<Record<string, unknown>[]> {
  const table = await openTable(base);
  const view = await loadFileSystemView(table, instant ? { maxInstant: instant } : {});
  const config = mergeConfigFromProperties(Object.fromEntries(table.config.props));
  const rows = [];
  for (const s of view.latestMergedFileSlices()) {
    const m = await mergeFileSlice(storage, { partition: s.partition, fileId: s.fileId, baseFile: s.baseFile, logFiles: s.logFiles }, { config, isValidInstant: view.isCommitted });
    rows.push(...m.rows);
  }
  return comparable(rows, logicalTypes(table.config.createSchema));
}
