// Clustering planning as Hudi's size-based plan strategy (PartitionAwareClusteringPlanStrategy,
// SparkSizeBasedClusteringPlanStrategy, ClusteringPlanPartitionFilter), pure: partitions and their
// latest file slices in, a HoodieClusteringPlan out. Paths in the plan are absolute with the scheme.
import type { FileSlice } from '../../fs-view/index.ts';
import type { ClusteringGroup, ClusteringPlan, SliceInfo } from '../../metadata/index.ts';
import { strategyParams, type ClusteringConfig } from './config.ts';

export interface PlanInput {
  partitions: string[];
  /** latest file slice of every file group, by partition */
  slices: (partition: string) => FileSlice[];
  /** why a file group may not be clustered now (pending compaction or clustering), or undefined */
  excluded: (s: FileSlice) => string | undefined;
  /** absolute path with scheme (`file:/…`, `hdfs://…`) as Hudi writes it into the plan */
  uri: (path: string) => string;
  /** for DAY_ROLLING: the current hour */
  now: Date;
}

export interface ClusteringPlanResult {
  plan?: ClusteringPlan;
  reason?: string;
  partitions: string[];
  skipped: { partition: string; fileId: string; reason: string }[];
}

export const CLUSTERING_METRICS = ['TOTAL_LOG_FILES', 'TOTAL_IO_MB', 'TOTAL_IO_READ_MB', 'TOTAL_LOG_FILES_SIZE', 'TOTAL_IO_WRITE_MB'] as const;

const MB = 1024 * 1024;

/** ClusteringPlanPartitionFilter + the regex / selected-partitions step before it. */
export function selectPartitions(all: string[], c: ClusteringConfig, now: Date): string[] {
  let ps = c.selected ? [...c.selected] : all.filter((p) => c.regex === undefined || new RegExp(`^(?:${c.regex})$`).test(p));
  switch (c.filterMode) {
    case 'RECENT_DAYS': {
      const sorted = [...ps].sort().reverse().slice(Math.max(0, c.skipFromLatestPartitions));
      ps = c.lookbackPartitions > 0 ? sorted.slice(0, c.lookbackPartitions) : sorted;
      break;
    }
    case 'SELECTED_PARTITIONS':
      ps = ps.filter((p) => (c.beginPartition === undefined || p >= c.beginPartition) && (c.endPartition === undefined || p <= c.endPartition));
      break;
    case 'DAY_ROLLING': {
      const hour = now.getHours();
      ps = [...ps].sort().filter((_, i) => i % 24 === hour);
      break;
    }
  }
  return ps;
}

/** FileSliceMetricUtils.addFileSliceCommonMetrics (sizes in whole MB, Java's long division). */
export function groupMetrics(slices: FileSlice[], parquetMaxFileSize: number): Record<string, number> {
  let logFiles = 0;
  let logSize = 0;
  let read = 0;
  let write = 0;
  for (const s of slices) {
    logFiles += s.logFiles.length;
    logSize += s.logFiles.reduce((n, l) => n + Math.max(0, l.size), 0);
    const base = s.baseFile?.size ?? 0;
    read += base;
    write += base > 0 ? base : parquetMaxFileSize;
  }
  const readMb = Math.floor((read + logSize) / MB);
  const writeMb = Math.floor(write / MB);
  return { TOTAL_LOG_FILES: logFiles, TOTAL_IO_MB: readMb + writeMb, TOTAL_IO_READ_MB: readMb, TOTAL_LOG_FILES_SIZE: logSize, TOTAL_IO_WRITE_MB: writeMb };
}

function sliceInfo(s: FileSlice, uri: (p: string) => string): SliceInfo {
  return {
    dataFilePath: s.baseFile ? uri(s.baseFile.path) : '',
    deltaFilePaths: s.logFiles.map((l) => uri(l.path)),
    fileId: s.fileId,
    partitionPath: s.partition,
    bootstrapFilePath: '',
    version: 1,
  };
}

/** buildClusteringGroupsForPartition: biggest slices first, groups closed at max.bytes.per.group. */
export function groupsForPartition(slices: FileSlice[], c: ClusteringConfig): { slices: FileSlice[]; numOutputFileGroups: number }[] {
  const size = (s: FileSlice) => s.baseFile?.size ?? c.parquetMaxFileSize;
  // Java sorts with a comparator over (int) of the size difference; for sizes below 2 GiB that is descending size
  const sorted = [...slices].sort((a, b) => size(b) - size(a));
  const out: { slices: FileSlice[]; numOutputFileGroups: number }[] = [];
  let current: FileSlice[] = [];
  let total = 0;
  const outputs = (bytes: number) => Math.ceil(bytes / c.targetFileMaxBytes);
  for (const s of sorted) {
    const n = size(s);
    if (total + n > c.maxBytesPerGroup && current.length > 0) {
      out.push({ slices: current, numOutputFileGroups: outputs(total) });
      current = [];
      total = 0;
      if (out.length >= c.maxNumGroups) return out;
    }
    current.push(s);
    total += n;
  }
  if (current.length > 0 && (current.length > 1 || c.singleGroupClustering)) out.push({ slices: current, numOutputFileGroups: outputs(total) });
  return out;
}

export function planClustering(input: PlanInput, c: ClusteringConfig): ClusteringPlanResult {
  const skipped: ClusteringPlanResult['skipped'] = [];
  const partitions = selectPartitions(input.partitions, c, input.now);
  if (partitions.length === 0) return { partitions, skipped, reason: 'no partition selected' };
  const groups: ClusteringGroup[] = [];
  for (const p of partitions) {
    const eligible: FileSlice[] = [];
    for (const s of input.slices(p)) {
      const why = input.excluded(s);
      if (why) {
        skipped.push({ partition: p, fileId: s.fileId, reason: why });
        continue;
      }
      if ((s.baseFile?.size ?? 0) >= c.smallFileLimit) continue;
      if (s.baseFile && s.baseFile.ext !== 'parquet') {
        skipped.push({ partition: p, fileId: s.fileId, reason: `${s.baseFile.ext} base file (only parquet is supported)` });
        continue;
      }
      eligible.push(s);
    }
    for (const g of groupsForPartition(eligible, c).slice(0, c.maxNumGroups)) {
      groups.push({
        slices: g.slices.map((s) => sliceInfo(s, input.uri)),
        metrics: groupMetrics(g.slices, c.parquetMaxFileSize),
        numOutputFileGroups: g.numOutputFileGroups,
        extraMetadata: null,
        version: 1,
      });
    }
  }
  const kept = groups.slice(0, c.maxNumGroups);
  if (kept.length === 0) return { partitions, skipped, reason: 'no file slice smaller than the small-file limit to cluster' };
  return {
    partitions,
    skipped,
    plan: {
      inputGroups: kept,
      strategy: { strategyClassName: c.executionStrategy, strategyParams: strategyParams(c), version: 1 },
      extraMetadata: {},
      version: 1,
      preserveHoodieMetadata: true,
      missingSchedulePartitions: [],
    },
  };
}
