// `metadata delete [--backup]` and `metadata delete-record-index [--backup]` (hudi-cli MetadataCommand,
// HoodieTableMetadataUtil.deleteMetadataTable / deleteMetadataTablePartition): under the table lock,
// hoodie.table.metadata.partitions[.inflight] is updated first — readers stop using the MDT (or the
// partition) at once — then the directory is renamed to `.hoodie/.metadata_<t>`
// (`.metadata_record_index_<t>`) or deleted. A dry run reports the same without writing.
import { KEYS } from '../config/index.ts';
import { finishPendingMdtCompactions } from '../mdt/compaction.ts';
import { metadataTablePath } from '../mdt/table.ts';
import type { Table } from '../table/index.ts';
import { joinPath } from '../util/index.ts';
import { modifyTableProperties } from '../write/table-properties.ts';
import { dropMetadataPartitions } from './mdt-sync.ts';
import { nextInstantTime, underLock, type ServiceOptions } from './transaction.ts';

export interface MetadataDeleteOptions extends ServiceOptions {
  /** rename to `.hoodie/.metadata_<t>` instead of deleting (hudi-cli default true) */
  backup?: boolean;
  dryRun?: boolean;
}

export interface MetadataDeleteResult {
  target: 'metadata-table' | 'record-index';
  dryRun: boolean;
  /** the directory that was (or would be) removed; undefined when there was none */
  removedPath?: string;
  backupPath?: string;
  /** hoodie.table.metadata.partitions before and after */
  partitionsBefore: string[];
  partitionsAfter: string[];
  /** metadata-table compactions a crash had left pending, finished first (delete-record-index) */
  finishedCompactions: string[];
}

function listed(t: Table): string[] {
  return [...t.config.metadataPartitions];
}

/** HoodieTableMetadataUtil.deleteMetadataTable: properties cleared first, then rename (backup) or delete. */
export async function deleteMetadataTable(table: Table, opts: MetadataDeleteOptions = {}): Promise<MetadataDeleteResult> {
  return underLock(table, opts, async (t) => {
    const mdt = metadataTablePath(t.basePath);
    const exists = await t.storage.exists(mdt);
    const before = listed(t);
    const inflight = t.config.metadataPartitionsInflight;
    const res: MetadataDeleteResult = { target: 'metadata-table', dryRun: opts.dryRun === true, partitionsBefore: before, partitionsAfter: [], finishedCompactions: [] };
    if (exists) res.removedPath = t.storage.uri(mdt);
    const backup = exists && opts.backup !== false ? joinPath(t.metaPath, `.metadata_${await nextInstantTime(t, await t.timeline(), opts)}`) : undefined;
    if (opts.dryRun) {
      if (backup) res.backupPath = t.storage.uri(backup);
      return res;
    }
    if (before.length > 0 || inflight.length > 0) {
      await modifyTableProperties(
        t.storage,
        t.metaPath,
        (p) => {
          for (const k of [KEYS.metadataPartitions, KEYS.metadataPartitionsInflight]) if (p.has(k)) p.set(k, '');
        },
        (opts.now ?? (() => new Date()))(),
      );
    }
    if (!exists) return res;
    if (backup) {
      try {
        await t.storage.rename(mdt, backup);
        res.backupPath = t.storage.uri(backup);
        return res;
      } catch {
        // as Hudi: a failed backup rename still deletes the metadata table
      }
    }
    await t.storage.delete(mdt, { recursive: true });
    return res;
  });
}

/**
 * HoodieTableMetadataUtil.deleteMetadataTablePartition(record_index): the partition leaves
 * hoodie.table.metadata.partitions first (dropMetadataPartitions), then its directory is renamed to
 * `.hoodie/.metadata_record_index_<t>` or deleted. A pending MDT compaction (its plan names the
 * partition's file groups) is finished first.
 */
export async function deleteRecordIndex(table: Table, opts: MetadataDeleteOptions = {}): Promise<MetadataDeleteResult> {
  return underLock(table, opts, async (t, lock) => {
    const mdt = metadataTablePath(t.basePath);
    const dir = joinPath(mdt, 'record_index');
    const exists = await t.storage.exists(dir);
    const before = listed(t);
    const known = before.includes('record_index') || t.config.metadataPartitionsInflight.includes('record_index');
    const res: MetadataDeleteResult = {
      target: 'record-index',
      dryRun: opts.dryRun === true,
      partitionsBefore: before,
      partitionsAfter: before.filter((p) => p !== 'record_index'),
      finishedCompactions: [],
    };
    if (!exists && !known) return res;
    if (exists) res.removedPath = t.storage.uri(dir);
    const backup = exists && opts.backup !== false ? joinPath(t.metaPath, `.metadata_record_index_${await nextInstantTime(t, await t.timeline(), opts)}`) : undefined;
    if (opts.dryRun) {
      if (backup) res.backupPath = t.storage.uri(backup);
      return res;
    }
    if (await t.storage.exists(joinPath(mdt, '.hoodie', 'hoodie.properties'))) {
      const done = await finishPendingMdtCompactions(t, { now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive: () => lock.keepAlive() });
      res.finishedCompactions = done.map((d) => d.instant);
    }
    let moved = false;
    await dropMetadataPartitions(t, { mdtPath: mdt, update: [], drop: ['record_index'] }, (opts.now ?? (() => new Date()))(), {
      remove: async (path) => {
        if (!backup || !(await t.storage.exists(path))) return false;
        try {
          await t.storage.rename(path, backup);
          moved = true;
          return true;
        } catch {
          return false; // as Hudi: deleted instead
        }
      },
    });
    if (moved) res.backupPath = t.storage.uri(backup!);
    return res;
  });
}
