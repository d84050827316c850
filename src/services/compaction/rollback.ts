// Rolling back a failed (inflight) compaction the way HoodieTable.rollbackInflightCompaction does for an
// offline compactor: delete the files the attempt wrote (its markers name them; a listing of the plan's
// partitions for `<fileId>_*_<t>.parquet` catches anything written without a marker), delete the
// marker dir and the `.compaction.inflight` file, keep the `.requested` plan. The next run re-executes
// the same plan with the same instant time. Call with the table lock held.
import type { CompactionPlan } from '../../metadata/index.ts';
import { parseBaseFileName } from '../../fs-view/index.ts';
import type { Table } from '../../table/index.ts';
import { deleteInstantFile } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { heartbeatPath } from '../heartbeat.ts';
import { deleteMarkerDir, listMarkers } from '../markers.ts';

/** tblcli's own in-progress create files (Storage.writeNew on local and WebHDFS). */
export const TEMP_PREFIX = '.tblcli-tmp-';

export interface RollbackResult {
  instant: string;
  deletedFiles: string[];
}

export async function rollbackInflightCompaction(table: Table, instant: string, plan: CompactionPlan): Promise<RollbackResult> {
  const { storage, basePath } = table;
  const deleted: string[] = [];
  const del = async (path: string) => {
    if (await storage.delete(path)) deleted.push(path);
  };
  for (const m of await listMarkers(storage, basePath, instant)) await del(joinPath(basePath, m.partition, m.fileName));
  const fileIds = new Map<string, Set<string>>();
  for (const op of plan.operations ?? []) {
    const p = op.partitionPath ?? '';
    const set = fileIds.get(p) ?? new Set<string>();
    set.add(op.fileId ?? '');
    fileIds.set(p, set);
  }
  for (const [partition, ids] of fileIds) {
    const dir = partition === '' ? basePath : joinPath(basePath, partition);
    if (!(await storage.exists(dir))) continue;
    for (const f of await storage.list(dir)) {
      if (f.isDirectory) continue;
      const b = parseBaseFileName(f.name);
      if ((b && b.instant === instant && ids.has(b.fileId)) || f.name.startsWith(TEMP_PREFIX)) await del(f.path);
    }
  }
  await deleteMarkerDir(storage, basePath, instant);
  await deleteInstantFile(table.timelineSource, instant, 'compaction', 'INFLIGHT');
  await storage.delete(heartbeatPath(table.metaPath, instant));
  return { instant, deletedFiles: deleted };
}
