// Compaction planning (HoodieCompactionPlanGenerator + strategies), pure: latest file slices in, a
// HoodieCompactionPlan out. One operation per eligible file group = its latest slice with log files;
// file groups in a pending compaction or clustering are skipped.
import type { FileSlice } from '../../fs-view/index.ts';
import type { CompactionOperation, CompactionPlan } from '../../metadata/index.ts';

export type CompactionStrategyName = 'num-commits' | 'log-size' | 'all';

export interface PlanOptions {
  strategy: CompactionStrategyName;
  /** num-commits trigger: delta commits since the last compaction (compaction.delta_commits, default 5) */
  deltaCommits: number;
  /** completed deltacommits after the latest completed compaction */
  deltaCommitsSinceLastCompaction: number;
  /** log-size: slices whose logs total less are skipped (hoodie.compaction.logfile.size.threshold) */
  logSizeThreshold?: number;
  /** log-size: cap on the plan's total IO in MB (hoodie.compaction.target.io, default 500 GB) */
  targetIoMb?: number;
  /** file groups to leave alone (pending clustering), keyed partition + '\0' + fileId */
  excluded?: ReadonlySet<string>;
  /** table version: plan version 2 (relative paths) for all supported versions */
  tableVersion: number;
}

export interface PlanResult {
  plan?: CompactionPlan;
  /** why nothing was planned */
  reason?: string;
  skipped: { partition: string; fileId: string; reason: string }[];
}

/** CompactionStrategy constants (metric names as Hudi writes them). */
export const METRICS = {
  TOTAL_LOG_FILES: 'TOTAL_LOG_FILES',
  TOTAL_LOG_FILES_SIZE: 'TOTAL_LOG_FILES_SIZE',
  TOTAL_IO_READ_MB: 'TOTAL_IO_READ_MB',
  TOTAL_IO_WRITE_MB: 'TOTAL_IO_WRITE_MB',
  TOTAL_IO_MB: 'TOTAL_IO_MB',
} as const;

export function groupKey(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

const MB = 1024 * 1024;

/** CompactionStrategy.captureMetrics: sizes in whole MB like Java's long division. */
function operationOf(s: FileSlice): CompactionOperation {
  const logSize = s.logFiles.reduce((n, l) => n + l.size, 0);
  const baseSize = s.baseFile?.size ?? 0;
  const readMb = Math.floor((baseSize + logSize) / MB);
  const writeMb = Math.floor(baseSize / MB);
  return {
    baseInstantTime: s.baseInstant,
    deltaFilePaths: s.logFiles.map((l) => l.name),
    dataFilePath: s.baseFile?.name ?? null,
    fileId: s.fileId,
    partitionPath: s.partition,
    metrics: {
      [METRICS.TOTAL_LOG_FILES]: s.logFiles.length,
      [METRICS.TOTAL_IO_MB]: readMb + writeMb,
      [METRICS.TOTAL_IO_READ_MB]: readMb,
      [METRICS.TOTAL_LOG_FILES_SIZE]: logSize,
      [METRICS.TOTAL_IO_WRITE_MB]: writeMb,
    },
    bootstrapFilePath: null,
  };
}

export function planCompaction(slices: readonly FileSlice[], opts: PlanOptions): PlanResult {
  const skipped: PlanResult['skipped'] = [];
  if (opts.strategy === 'num-commits' && opts.deltaCommitsSinceLastCompaction < opts.deltaCommits) {
    return {
      skipped,
      reason: `${opts.deltaCommitsSinceLastCompaction} delta commit(s) since the last compaction, fewer than --delta-commits ${opts.deltaCommits}`,
    };
  }
  let ops: CompactionOperation[] = [];
  for (const s of slices) {
    if (s.pendingCompaction) {
      skipped.push({ partition: s.partition, fileId: s.fileId, reason: 'pending compaction' });
      continue;
    }
    if (opts.excluded?.has(groupKey(s.partition, s.fileId))) {
      skipped.push({ partition: s.partition, fileId: s.fileId, reason: 'pending clustering' });
      continue;
    }
    if (s.logFiles.length === 0) continue;
    if (s.baseFile && s.baseFile.ext !== 'parquet') {
      skipped.push({ partition: s.partition, fileId: s.fileId, reason: `${s.baseFile.ext} base file (only parquet is supported)` });
      continue;
    }
    ops.push(operationOf(s));
  }
  if (opts.strategy === 'log-size') {
    // LogFileSizeBasedCompactionStrategy: biggest logs first, under the threshold dropped, IO capped
    const size = (o: CompactionOperation) => o.metrics?.[METRICS.TOTAL_LOG_FILES_SIZE] ?? 0;
    ops = ops.filter((o) => size(o) >= (opts.logSizeThreshold ?? 0)).sort((a, b) => size(b) - size(a));
    const cap = opts.targetIoMb ?? 500 * 1024;
    let io = 0;
    const kept: CompactionOperation[] = [];
    for (const o of ops) {
      io += o.metrics?.[METRICS.TOTAL_IO_MB] ?? 0;
      if (io > cap) break;
      kept.push(o);
    }
    ops = kept;
  }
  if (ops.length === 0) return { skipped, reason: 'no file slice with log files to compact' };
  return {
    skipped,
    plan: {
      operations: ops,
      extraMetadata: null,
      version: 2,
      strategy: null,
      preserveHoodieMetadata: false,
      missingSchedulePartitions: [],
    },
  };
}
