// Typed codecs for the Avro instant files other than commit metadata. Values are plain objects with the Avro
// field names; decoding resolves the file's writer schema to our schema by field name (missing → our default).
import { TblError } from '../errors/index.ts';
import { readAvroContainer, schemaRecordName, sniffContent, writeAvroContainer, type WriteAvroOptions } from './avro-container.ts';
import { SCHEMAS, type SchemaName } from './schemas.ts';

type StrMap<T> = Record<string, T>;

export interface InstantInfo { commitTime: string; action: string }

export interface CompactionOperation {
  baseInstantTime: string | null;
  deltaFilePaths: string[] | null;
  dataFilePath: string | null;
  fileId: string | null;
  partitionPath: string | null;
  metrics: StrMap<number> | null;
  bootstrapFilePath: string | null;
}
export interface CompactionStrategy { compactorClassName: string | null; strategyParams: StrMap<string> | null; version: number | null }
export interface CompactionPlan {
  operations: CompactionOperation[] | null;
  extraMetadata: StrMap<string> | null;
  version: number | null;
  strategy: CompactionStrategy | null;
  preserveHoodieMetadata: boolean | null;
  missingSchedulePartitions: string[] | null;
}

export interface ActionInstant { timestamp: string; action: string; state: string }
export interface CleanFileInfo { filePath: string | null; isBootstrapBaseFile: boolean | null }
export interface CleanerPlan {
  earliestInstantToRetain: ActionInstant | null;
  lastCompletedCommitTimestamp: string;
  policy: string;
  filesToBeDeletedPerPartition: StrMap<string[]> | null;
  version: number | null;
  filePathsToBeDeletedPerPartition: StrMap<CleanFileInfo[]> | null;
  partitionsToBeDeleted: string[] | null;
  extraMetadata: StrMap<string> | null;
}
export interface CleanPartitionMetadata {
  partitionPath: string;
  policy: string;
  deletePathPatterns: string[];
  successDeleteFiles: string[];
  failedDeleteFiles: string[];
  isPartitionDeleted: boolean | null;
}
export interface CleanMetadata {
  startCleanTime: string;
  timeTakenInMillis: number;
  totalFilesDeleted: number;
  earliestCommitToRetain: string;
  lastCompletedCommitTimestamp: string;
  partitionMetadata: StrMap<CleanPartitionMetadata>;
  version: number | null;
  bootstrapPartitionMetadata: StrMap<CleanPartitionMetadata> | null;
  extraMetadata: StrMap<string> | null;
}

export interface RollbackRequest {
  partitionPath: string;
  fileId: string | null;
  latestBaseInstant: string | null;
  filesToBeDeleted: string[];
  logBlocksToBeDeleted: StrMap<number> | null;
}
export interface RollbackPlan {
  instantToRollback: InstantInfo | null;
  /** Capital R: the exact Avro field name. */
  RollbackRequests: RollbackRequest[] | null;
  version: number | null;
}
export interface RollbackPartitionMetadata {
  partitionPath: string;
  successDeleteFiles: string[];
  failedDeleteFiles: string[];
  rollbackLogFiles: StrMap<number> | null;
  logFilesFromFailedCommit: StrMap<number> | null;
}
export interface RollbackMetadata {
  startRollbackTime: string;
  timeTakenInMillis: number;
  totalFilesDeleted: number;
  commitsRollback: string[];
  partitionMetadata: StrMap<RollbackPartitionMetadata>;
  version: number | null;
  instantsRollback: InstantInfo[];
}

export interface SavepointMetadata {
  savepointedBy: string;
  savepointedAt: number;
  comments: string;
  partitionMetadata: StrMap<{ partitionPath: string; savepointDataFile: string[] }>;
  version: number | null;
}
/** version 2 plans carry the savepoint they restore to; version 1 plans lack it (RestoreUtils derives it) */
export interface RestorePlan { instantsToRollback: InstantInfo[]; version: number | null; savepointToRestoreTimestamp?: string | null }
export interface RestoreMetadata {
  startRestoreTime: string;
  timeTakenInMillis: number;
  instantsToRollback: string[];
  hoodieRestoreMetadata: StrMap<(RollbackMetadata | null)[]>;
  version: number | null;
  restoreInstantInfo: InstantInfo[];
  extraMetadata: StrMap<string> | null;
}

export interface SliceInfo {
  dataFilePath: string | null;
  deltaFilePaths: string[] | null;
  fileId: string | null;
  partitionPath: string | null;
  bootstrapFilePath: string | null;
  version: number | null;
}
export interface ClusteringGroup {
  slices: SliceInfo[] | null;
  metrics: StrMap<number> | null;
  numOutputFileGroups: number | null;
  extraMetadata: StrMap<string> | null;
  version: number | null;
}
export interface ClusteringPlan {
  inputGroups: ClusteringGroup[] | null;
  strategy: { strategyClassName: string | null; strategyParams: StrMap<string> | null; version: number | null } | null;
  extraMetadata: StrMap<string> | null;
  version: number | null;
  preserveHoodieMetadata: boolean | null;
  missingSchedulePartitions: string[] | null;
}
export interface RequestedReplaceMetadata {
  operationType: string | null;
  clusteringPlan: ClusteringPlan | null;
  extraMetadata: StrMap<string> | null;
  version: number | null;
}

export interface IndexPartitionInfo {
  version: number | null;
  metadataPartitionPath: string | null;
  indexUptoInstant: string | null;
  extraMetadata: StrMap<string> | null;
}
export interface IndexPlan { version: number | null; indexPartitionInfos: IndexPartitionInfo[] | null }
export interface IndexCommitMetadata { version: number | null; operationType: string | null; indexPartitionInfos: IndexPartitionInfo[] | null }

export interface LSMTimelineInstant {
  instantTime: string | null;
  completionTime: string | null;
  action: string | null;
  metadata: Uint8Array | null;
  plan: Uint8Array | null;
  version: number;
}

/** One record of the v1 archived timeline (fields: see HoodieArchivedMetaEntry.avsc); typed loosely on purpose. */
export interface ArchivedMetaEntry {
  hoodieCommitMetadata: Record<string, unknown> | null;
  hoodieCleanMetadata: CleanMetadata | null;
  hoodieCompactionMetadata: Record<string, unknown> | null;
  hoodieRollbackMetadata: RollbackMetadata | null;
  hoodieSavePointMetadata: SavepointMetadata | null;
  commitTime: string | null;
  actionType: string | null;
  version: number | null;
  hoodieCompactionPlan: CompactionPlan | null;
  hoodieCleanerPlan: CleanerPlan | null;
  actionState: string | null;
  hoodieReplaceCommitMetadata: Record<string, unknown> | null;
  hoodieRequestedReplaceMetadata: RequestedReplaceMetadata | null;
  HoodieInflightReplaceMetadata: Record<string, unknown> | null;
  hoodieIndexCommitMetadata: IndexCommitMetadata | null;
  stateTransitionTime: string | null;
}

export interface DecodeOptions {
  /** Value returned for an empty (0-byte) file; without it an empty file is an error. */
  emptyValue?: unknown;
}

const DESCRIPTION: Partial<Record<SchemaName, string>> = {
  HoodieCompactionPlan: 'compaction plan',
  HoodieCleanerPlan: 'clean plan',
  HoodieCleanMetadata: 'clean metadata',
  HoodieRollbackPlan: 'rollback plan',
  HoodieRollbackMetadata: 'rollback metadata',
  HoodieSavepointMetadata: 'savepoint metadata',
  HoodieRestorePlan: 'restore plan',
  HoodieRestoreMetadata: 'restore metadata',
  HoodieRequestedReplaceMetadata: 'requested replace / clustering plan',
  HoodieIndexPlan: 'index plan',
  HoodieIndexCommitMetadata: 'index commit metadata',
};

/** Decodes a one-record Avro instant file of record type `name`. */
export function decodeAvroInstant<T>(name: SchemaName, bytes: Uint8Array, ctx: { path: string }, opts: DecodeOptions = {}): T {
  const path = ctx.path;
  const kind = sniffContent(bytes, ctx);
  if (kind === 'empty') {
    if ('emptyValue' in opts) return opts.emptyValue as T;
    throw new TblError('metadata', `${path}: empty file, expected Avro ${name} (${DESCRIPTION[name] ?? 'content'})`, { path });
  }
  if (kind === 'json') throw new TblError('metadata', `${path}: expected Avro ${name}, found JSON`, { path });
  const found = schemaRecordName(bytes, ctx);
  if (found !== name) throw new TblError('metadata', `${path}: expected Avro ${name}, found ${found}`, { path });
  const { records } = readAvroContainer(bytes, ctx, { readerSchema: SCHEMAS[name] });
  if (records.length === 0) throw new TblError('metadata', `${path}: empty Avro ${name} (no records)`, { path });
  return records[0] as T;
}

export function encodeAvroInstant(name: SchemaName, value: unknown, opts?: WriteAvroOptions): Uint8Array {
  return writeAvroContainer(SCHEMAS[name], [value], opts);
}

type Ctx = { path: string };
const dec =
  <T>(name: SchemaName) =>
  (bytes: Uint8Array, ctx: Ctx, opts?: DecodeOptions): T =>
    decodeAvroInstant<T>(name, bytes, ctx, opts);
const enc =
  <T>(name: SchemaName) =>
  (value: T, opts?: WriteAvroOptions): Uint8Array =>
    encodeAvroInstant(name, value, opts);

export const decodeCompactionPlan = dec<CompactionPlan>('HoodieCompactionPlan');
export const encodeCompactionPlan = enc<CompactionPlan>('HoodieCompactionPlan');
export const decodeCleanerPlan = dec<CleanerPlan>('HoodieCleanerPlan');
export const encodeCleanerPlan = enc<CleanerPlan>('HoodieCleanerPlan');
export const decodeCleanMetadata = dec<CleanMetadata>('HoodieCleanMetadata');
export const encodeCleanMetadata = enc<CleanMetadata>('HoodieCleanMetadata');
export const decodeRollbackPlan = dec<RollbackPlan>('HoodieRollbackPlan');
export const encodeRollbackPlan = enc<RollbackPlan>('HoodieRollbackPlan');
export const decodeRollbackMetadata = dec<RollbackMetadata>('HoodieRollbackMetadata');
export const encodeRollbackMetadata = enc<RollbackMetadata>('HoodieRollbackMetadata');
export const decodeSavepointMetadata = dec<SavepointMetadata>('HoodieSavepointMetadata');
export const encodeSavepointMetadata = enc<SavepointMetadata>('HoodieSavepointMetadata');
export const decodeRestorePlan = dec<RestorePlan>('HoodieRestorePlan');
export const encodeRestorePlan = enc<RestorePlan>('HoodieRestorePlan');
export const decodeRestoreMetadata = dec<RestoreMetadata>('HoodieRestoreMetadata');
export const encodeRestoreMetadata = enc<RestoreMetadata>('HoodieRestoreMetadata');
export const decodeRequestedReplaceMetadata = dec<RequestedReplaceMetadata>('HoodieRequestedReplaceMetadata');
export const encodeRequestedReplaceMetadata = enc<RequestedReplaceMetadata>('HoodieRequestedReplaceMetadata');
export const decodeIndexPlan = dec<IndexPlan>('HoodieIndexPlan');
export const encodeIndexPlan = enc<IndexPlan>('HoodieIndexPlan');
export const decodeIndexCommitMetadata = dec<IndexCommitMetadata>('HoodieIndexCommitMetadata');
export const encodeIndexCommitMetadata = enc<IndexCommitMetadata>('HoodieIndexCommitMetadata');

// Shorter aliases matching the action names ("clean plan").
export const decodeCleanPlan = decodeCleanerPlan;
export const encodeCleanPlan = encodeCleanerPlan;
