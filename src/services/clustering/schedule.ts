// `clustering schedule`: under the table lock, a fresh timeline and file-system view, a plan as Hudi's
// size-based strategy makes it, a new instant time later than everything on the timeline, and
// `<t>.replacecommit.requested` (v6) / `<t>.clustering.requested` (v8/9) with HoodieRequestedReplaceMetadata.
import { TblError } from '../../errors/index.ts';
import { bucketIdFromFileId, type FileSlice, type FileSystemView } from '../../fs-view/index.ts';
import { decodeSavepointMetadata, encodeRequestedReplaceMetadata, type ClusteringPlan, type RequestedReplaceMetadata } from '../../metadata/index.ts';
import { loadFileSystemView, type Table } from '../../table/index.ts';
import { tableWriterSchema } from '../rewrite/inputs.ts';
import { sortColumnsOf } from '../rewrite/sort-order.ts';
import type { Action, Timeline } from '../../timeline/index.ts';
import { createRequested } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { metadataTableFor, nextInstantTime, underLock, type ServiceOptions } from '../transaction.ts';
import { prepareMetadataTable } from '../mdt-sync.ts';
import { clusteringConfig, CLUSTERING_KEYS, type ClusteringConfig, type ClusteringFlags } from './config.ts';
import { planClustering, type ClusteringPlanResult } from './plan.ts';

export interface ClusteringScheduleOptions extends ServiceOptions, ClusteringFlags {
  /** properties over the table's (the props file, then --hoodieConfigs) */
  props?: ReadonlyMap<string, string>;
  /** only plan; write nothing */
  dryRun?: boolean;
  /** plan file groups whose latest slice a savepoint keeps too (Hudi's planner does; tblcli leaves them out by default) */
  includeSavepointed?: boolean;
}

export interface ClusteringScheduleResult {
  /** the scheduled instant (a dry run: the instant it would get) */
  instant?: string;
  plan?: ClusteringPlan;
  reason?: string;
  skipped: ClusteringPlanResult['skipped'];
  partitions: string[];
  metadataTableDisabled: boolean;
}

/** The pending action of a clustering on this table: replacecommit on 0.x timelines, clustering on 1.x. */
export function clusteringAction(t: Table): Action {
  return t.config.version >= 8 ? 'clustering' : 'replacecommit';
}

/** Table properties, then the caller's (props file, --hoodieConfigs). */
export function mergedProps(t: Table, extra?: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...t.config.props, ...(extra ?? [])]);
}

/**
 * Refuses bucket-index tables (format-services-write.md §2.8): a simple bucket index finds records by
 * the bucket number in the file id, which clustering's new UUID file ids would break; consistent
 * hashing clusters to resize buckets and rewrites the hashing metadata, which tblcli does not do.
 */
export async function refuseBucketIndex(t: Table, props: ReadonlyMap<string, string>, view?: FileSystemView): Promise<void> {
  const engine = (props.get(CLUSTERING_KEYS.bucketEngine) ?? 'SIMPLE').toUpperCase();
  const consistent = engine === 'CONSISTENT_HASHING' || (await t.storage.exists(joinPath(t.metaPath, '.bucket_index')));
  const bucket = (props.get(CLUSTERING_KEYS.indexType) ?? '').toUpperCase() === 'BUCKET' || props.has('hoodie.bucket.index.num.buckets');
  let shaped = false;
  if (!bucket && !consistent && view) {
    const ids = view.allFileGroups().map((g) => g.fileId);
    const n = ids.filter((id) => bucketIdFromFileId(id) !== undefined).length;
    shaped = n >= 2 && n === ids.length;
  }
  if (consistent) {
    throw new TblError('unsupported', `${t.uri} uses the consistent-hashing bucket index: its clustering resizes buckets and rewrites the hashing metadata, which tblcli does not do`, {
      path: t.uri,
      hint: 'run clustering for this table with Hudi (Spark or Flink)',
    });
  }
  if (bucket || shaped) {
    throw new TblError('unsupported', `Clustering is not supported for simple bucket index: ${t.uri}${shaped ? ' (every file id is bucket-shaped)' : ''}; new file groups would lose the bucket number readers look records up by`, {
      path: t.uri,
      hint: 'a bucket-index table keeps one file group per bucket; it is not clustered',
    });
  }
}

/** A file group's reason not to be clustered now. */
function exclusion(view: FileSystemView, partition: string, fileId: string): string | undefined {
  const g = view.allFileGroups(partition).find((x) => x.fileId === fileId);
  if (g?.pendingClustering) return `pending clustering ${g.pendingClustering}`;
  const c = view.pendingCompactionInstant(partition, fileId);
  if (c) return `pending compaction ${c}`;
  return undefined;
}

/**
 * `<partition>\0<file name>` → the completed savepoint keeping it. Clustering a group whose latest
 * slice a savepoint keeps rewrites data the cleaner may not delete until the savepoint goes (the
 * bytes are stored twice), so tblcli leaves such groups out unless asked.
 */
export async function savepointedFiles(t: Table, tl: Timeline): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const i of tl.completed().filter((x) => x.action === 'savepoint')) {
    const m = decodeSavepointMetadata(await tl.read(i), { path: t.storage.uri(i.files.COMPLETED!.path) });
    for (const [p, e] of Object.entries(m.partitionMetadata ?? {})) for (const f of e.savepointDataFile ?? []) out.set(`${e.partitionPath ?? p}\u0000${f}`, i.requestedTime);
  }
  return out;
}

export function planFromView(t: Table, view: FileSystemView, c: ClusteringConfig, now: Date, savepointed: ReadonlyMap<string, string> = new Map()): ClusteringPlanResult {
  const pendingGroups = new Map<string, string | undefined>();
  for (const g of view.allFileGroups()) pendingGroups.set(`${g.partition}\u0000${g.fileId}`, exclusion(view, g.partition, g.fileId));
  const savepointOf = (s: FileSlice) => {
    for (const name of [...(s.baseFile ? [s.baseFile.name] : []), ...s.logFiles.map((l) => l.name)]) {
      const sp = savepointed.get(`${s.partition}\u0000${name}`);
      if (sp) return `savepoint ${sp}`;
    }
    return undefined;
  };
  return planClustering(
    {
      partitions: view.partitions(),
      slices: (p) => view.latestFileSlices(p),
      excluded: (s) => (s.pendingCompaction ? `pending compaction ${s.baseInstant}` : (pendingGroups.get(`${s.partition}\u0000${s.fileId}`) ?? savepointOf(s))),
      uri: (p) => t.storage.uri(p).replace(/^\//, 'file:/'),
      now,
    },
    c,
  );
}

export function requestedReplaceMetadata(plan: ClusteringPlan): RequestedReplaceMetadata {
  return { operationType: 'CLUSTER', clusteringPlan: plan, extraMetadata: {}, version: 1 };
}

export async function scheduleClustering(table: Table, opts: ClusteringScheduleOptions = {}): Promise<ClusteringScheduleResult> {
  const r = await underLock(table, opts, async (locked): Promise<ClusteringScheduleResult> => {
    let t = locked;
    const props = mergedProps(t, opts.props);
    const config = clusteringConfig(props, opts);
    const view = await loadFileSystemView(t);
    await refuseBucketIndex(t, props, view);
    if (config.sortColumns.length > 0) sortColumnsOf(await tableWriterSchema(t), config.sortColumns);
    let metadataTableDisabled = false;
    // a plan changes no metadata-table partition: 'update' only checks the MDT can be kept in step at run time
    if (!opts.dryRun && (opts.metadataTable ?? 'update') !== 'update') ({ table: t, disabled: metadataTableDisabled } = await metadataTableFor(t, opts, 'clustering'));
    else if (!opts.dryRun) await prepareMetadataTable(t, 'update', 'clustering');
    const now = (opts.now ?? (() => new Date()))();
    const tl = await t.timeline();
    const res = planFromView(t, view, config, now, opts.includeSavepointed ? undefined : await savepointedFiles(t, tl));
    const base = { skipped: res.skipped, partitions: res.partitions, metadataTableDisabled };
    if (!res.plan) return { ...base, reason: res.reason };
    // a dry run names the instant the plan would get (nothing is written)
    const instant = await nextInstantTime(t, tl, opts);
    if (opts.dryRun) return { ...base, instant, plan: res.plan };
    await createRequested(t.timelineSource, instant, clusteringAction(t), encodeRequestedReplaceMetadata(requestedReplaceMetadata(res.plan)));
    return { ...base, instant, plan: res.plan };
  });
  if (r.instant && !opts.dryRun) await opts.onPoint?.('after-schedule');
  return r;
}
