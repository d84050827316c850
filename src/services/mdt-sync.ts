// What the metadata table receives for each data-table action tblcli commits (format-mdt-write.md
// §3, §6), and the guard that decides, before anything is written, whether the MDT can be kept in
// step ('update'), must be dropped the Hudi way ('disable') or makes the write refuse ('refuse').
import { TblError } from '../errors/index.ts';
import type { CleanMetadata, CommitMetadata, RollbackMetadata } from '../metadata/index.ts';
import type { Table } from '../table/index.ts';
import { joinPath } from '../util/index.ts';

export type MetadataTableMode = 'update' | 'disable' | 'refuse';

/** Decided under the lock before the first timeline write: which MDT partitions the write maintains. */
export interface MetadataTablePlan {
  mdtPath: string;
  /** partitions listed in hoodie.table.metadata.partitions */
  partitions: string[];
}

export type MetadataChange =
  | { kind: 'commit'; metadata: CommitMetadata }
  | { kind: 'clean'; metadata: CleanMetadata }
  | { kind: 'rollback'; target: string; metadata: RollbackMetadata };

export async function hasMetadataTable(t: Table): Promise<boolean> {
  if (t.config.metadataPartitions.length > 0 || t.config.metadataPartitionsInflight.length > 0) return true;
  return t.storage.exists(joinPath(t.metaPath, 'metadata', '.hoodie'));
}

/**
 * The MDT side of a write: undefined when the table has no MDT, 'disable' when the caller asked for
 * it to be dropped, else a plan for keeping it in step. Throws when it cannot be kept in step.
 */
export async function prepareMetadataTable(t: Table, mode: MetadataTableMode): Promise<MetadataTablePlan | 'disable' | undefined> {
  if (!(await hasMetadataTable(t))) return undefined;
  if (mode === 'disable') return 'disable';
  const listed = t.config.metadataPartitions.join(',') || '<empty>';
  const why =
    mode === 'refuse'
      ? 'and --metadata-table is refuse'
      : 'that this build of tblcli cannot update yet';
  throw new TblError('unsupported', `${t.uri} has a metadata table (hoodie.table.metadata.partitions=${listed}) ${why}; a commit it does not know about would hide the new files from readers that list through it`, {
    path: t.uri,
    hint: 'pass --metadata-table disable to clear hoodie.table.metadata.partitions and delete .hoodie/metadata first (as a Hudi writer with hoodie.metadata.enable=false does); make sure the other writers run with the metadata table disabled too',
  });
}

/** Writes the MDT deltacommit (or MDT rollback) for `instant` of the data table. Call holding the lock. */
export async function metadataTableChange(t: Table, plan: MetadataTablePlan, instant: string, change: MetadataChange, _opts: { keepAlive?: () => Promise<void> }): Promise<void> {
  throw new TblError('bug', `metadata table update of ${change.kind} ${instant} in ${plan.mdtPath} reached without a metadata-table writer`, { instant, path: t.uri });
}
