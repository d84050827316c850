// Adapts the timeline to the file-system view's small ViewTimeline interface (the view never
// imports the timeline), reading only replacecommit metadata and pending plans.
import {
  decodeCommitMetadata,
  decodeCompactionPlan,
  decodeRequestedReplaceMetadata,
} from '../metadata/index.ts';
import { buildFileSystemView, type FileSystemView, type ViewOptions, type ViewTimeline } from '../fs-view/index.ts';
import type { Instant } from '../timeline/index.ts';
import { WRITE_ACTIONS } from '../timeline/index.ts';
import { baseName } from '../util/index.ts';
import type { Table } from './open.ts';

/** Partition of a clustering slice: its partitionPath, else the directory part of its data file path. */
function slicePartition(p: string | null | undefined, dataFilePath: string | null | undefined, basePath: string): string {
  if (p !== null && p !== undefined) return p;
  if (!dataFilePath) return '';
  const rel = dataFilePath.replace(/^file:/, '');
  const i = rel.indexOf(basePath);
  const inner = i >= 0 ? rel.slice(i + basePath.length + 1) : rel;
  return inner.includes('/') ? inner.slice(0, inner.lastIndexOf('/')) : '';
}

export interface ViewTimelineOptions {
  /** hudi-cli --excludeCompaction: build the view on the commits timeline, ignoring pending compactions */
  excludeCompaction?: boolean;
  /** the caller decodes the completed replacecommits itself (a scan that reads each instant once): no reads here */
  replacedFileGroups?: ViewTimeline['replacedFileGroups'];
}

export async function viewTimelineOf(table: Table, vopts: ViewTimelineOptions = {}): Promise<ViewTimeline> {
  const tl = await table.timeline();
  const uri = (i: Instant, s: 'COMPLETED' | 'REQUESTED') => ({ path: table.storage.uri(i.files[s]!.path) });
  const completed = tl.completed().filter((i) => WRITE_ACTIONS.has(i.action));
  const replaces = completed.filter((i) => i.action === 'replacecommit');
  const replacedLists = vopts.replacedFileGroups ? [vopts.replacedFileGroups] : await tl.mapRead(replaces, 'COMPLETED', (b, i) => {
    const m = decodeCommitMetadata(b, uri(i, 'COMPLETED'));
    return Object.entries(m.partitionToReplaceFileIds ?? {}).flatMap(([partition, ids]) =>
      ids.map((fileId) => ({ partition, fileId, byInstant: i.requestedTime })),
    );
  });
  const pending = tl.pending();
  const compactions = vopts.excludeCompaction ? [] : pending.filter((i) => i.effectiveAction === 'compaction' && i.files.REQUESTED);
  const pendingCompactions = await tl.mapRead(compactions, 'REQUESTED', (b, i) => ({
    instant: i.requestedTime,
    operations: (decodeCompactionPlan(b, uri(i, 'REQUESTED')).operations ?? []).map((o) => ({
      partitionPath: o.partitionPath ?? '',
      fileId: o.fileId ?? '',
      baseInstantTime: o.baseInstantTime ?? '',
    })),
  }));
  const clusterings = pending.filter(
    (i) => (i.effectiveAction === 'clustering' || i.effectiveAction === 'replacecommit') && i.files.REQUESTED && i.files.REQUESTED.size > 0,
  );
  const clusteringGroups = await tl.mapRead(clusterings, 'REQUESTED', (b, i) => {
    let m;
    try {
      m = decodeRequestedReplaceMetadata(b, uri(i, 'REQUESTED'));
    } catch {
      return [];
    }
    return (m.clusteringPlan?.inputGroups ?? []).flatMap((g) =>
      (g.slices ?? []).map((s) => ({
        partition: slicePartition(s.partitionPath, s.dataFilePath, table.basePath),
        fileId: s.fileId ?? (s.dataFilePath ? baseName(s.dataFilePath).split('_')[0]! : ''),
        instant: i.requestedTime,
      })),
    );
  });
  return {
    layout: table.config.layoutVersion,
    completedInstants: completed.map((i) => ({ requestedTime: i.requestedTime, action: i.action, completionTime: i.completionTime })),
    completionTimeOf: (t) => tl.completionTimeOf(t),
    replacedFileGroups: replacedLists.flat(),
    pendingCompactions,
    pendingClusteringFileGroups: clusteringGroups.flat(),
    firstActiveInstant: tl.instants[0]?.requestedTime,
  };
}

/** The table's file-system view (listing + timeline), as Hudi's HoodieTableFileSystemView builds it. */
export async function loadFileSystemView(table: Table, opts: ViewOptions & ViewTimelineOptions = {}): Promise<FileSystemView> {
  return buildFileSystemView(table.storage, table.basePath, await viewTimelineOf(table, opts), opts);
}
