// Opening a table's metadata table (`<base>/.hoodie/metadata`, a MOR table of HFiles) and the set of
// MDT instants whose log blocks a reader may use (Java HoodieTableMetadataUtil.getValidInstantTimestamps).
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { openTableAt, type Table } from '../table/index.ts';
import { decodeAvroInstant, type CompactionPlan } from '../metadata/index.ts';
import type { Timeline } from '../timeline/index.ts';
import { WRITE_ACTIONS } from '../timeline/index.ts';
import type { ViewTimeline } from '../fs-view/index.ts';
import { joinPath } from '../util/index.ts';

export interface MetadataTable {
  data: Table;
  mdt: Table;
  dataTimeline: Timeline;
  mdtTimeline: Timeline;
  /** instants whose MDT log blocks count (data completions + MDT-only deltacommits, rollbacks, init) */
  validInstants: Set<string>;
  warnings: string[];
}

/** SOLO_COMMIT_TIMESTAMP: MDT initialisation instants start with it (00000000000000000, …001, …). */
const SOLO_COMMIT_PREFIX = '00000000000000';

export function metadataTablePath(basePath: string): string {
  return joinPath(basePath, '.hoodie', 'metadata');
}

export async function openMetadataTable(storage: Storage, basePath: string): Promise<MetadataTable> {
  const data = await openTableAt(storage, basePath);
  const mdtPath = metadataTablePath(basePath);
  if (!(await storage.exists(joinPath(mdtPath, '.hoodie', 'hoodie.properties')))) {
    throw new TblError('not-found', `Metadata Table not enabled/initialized: ${storage.uri(mdtPath)} does not exist`, {
      path: storage.uri(mdtPath),
      hint: 'the table was written with hoodie.metadata.enable=false',
    });
  }
  const mdt = await openTableAt(storage, mdtPath);
  const [dataTimeline, mdtTimeline] = await Promise.all([data.timeline(), mdt.timeline()]);
  const warnings = [...data.warnings, ...mdt.warnings];
  if (!data.config.metadataPartitions.includes('files')) {
    warnings.push(
      `${data.uri}: hoodie.table.metadata.partitions does not list "files"; Hudi readers would not use this metadata table`,
    );
  }
  return { data, mdt, dataTimeline, mdtTimeline, validInstants: validInstants(dataTimeline, mdtTimeline), warnings };
}

/**
 * Java getValidInstantTimestamps, minus the instants rolled back on the data table (reading them needs
 * the rollback metadata; their MDT deltacommits are already valid through the second rule unless the
 * data instant is still pending, which is exactly when Java excludes them too).
 */
export function validInstants(dataTl: Timeline, mdtTl: Timeline): Set<string> {
  const pending = new Set(dataTl.pending().map((i) => i.requestedTime));
  const valid = new Set(dataTl.completed().map((i) => i.requestedTime));
  for (const i of mdtTl.completed()) {
    if (i.action === 'deltacommit' && !pending.has(i.requestedTime)) valid.add(i.requestedTime);
    if (i.action === 'rollback' || i.action === 'restore') valid.add(i.requestedTime);
    if (i.action === 'deltacommit' && i.requestedTime.startsWith(SOLO_COMMIT_PREFIX)) valid.add(i.requestedTime);
  }
  return valid;
}

/** The MDT timeline as fs-view wants it; pending compactions come from their plans. */
export async function mdtViewTimeline(m: MetadataTable): Promise<ViewTimeline> {
  const tl = m.mdtTimeline;
  const completed = tl
    .completed()
    .filter((i) => WRITE_ACTIONS.has(i.action))
    .map((i) => ({ requestedTime: i.requestedTime, action: i.action, completionTime: i.completionTime }));
  const pending = tl.pending().filter((i) => i.stateActions.REQUESTED === 'compaction' && i.files.REQUESTED);
  const plans = await tl.mapRead(pending, 'REQUESTED', (bytes, i) =>
    decodeAvroInstant<CompactionPlan>('HoodieCompactionPlan', bytes, { path: m.mdt.storage.uri(i.files.REQUESTED!.path) }),
  );
  const pendingCompactions = pending.map((i, n) => ({
      instant: i.requestedTime,
      operations: (plans[n]!.operations ?? []).map((o) => ({
        partitionPath: o.partitionPath ?? '',
        fileId: o.fileId ?? '',
        baseInstantTime: o.baseInstantTime ?? '',
      })),
    }));
  return {
    layout: tl.layout,
    completedInstants: completed,
    completionTimeOf: (t) => tl.completionTimeOf(t),
    replacedFileGroups: [],
    pendingCompactions,
    firstActiveInstant: tl.instants[0]?.requestedTime,
  };
}
