// What every table service shares: the lock/heartbeat settings, a fresh view of the table, the
// metadata-table guard, and the test hook.
import { TblError } from '../errors/index.ts';
import { openTableAt, type Table } from '../table/index.ts';
import { joinPath } from '../util/index.ts';
import { withTableLock, type LockOptions, type TableLock } from './lock.ts';
import { disableMetadataTable } from './table-properties.ts';

export type MetadataTableMode = 'refuse' | 'disable';

export interface ServiceOptions {
  lock?: LockOptions;
  /** heartbeat beat interval (default 60 s) and expiry (default 120 s, Hudi's 60 s × 2 misses) */
  heartbeatIntervalMs?: number;
  heartbeatExpiryMs?: number;
  /** what to do when the table has a metadata table (default refuse) */
  metadataTable?: MetadataTableMode;
  /** TrueTime-style wait after generating an instant time, holding the lock (Hudi: 200 ms) */
  clockSkewMs?: number;
  now?: () => Date;
  /**
   * Test hook: called at named points of a run (e.g. 'after-inflight'); crash tests kill the process
   * there. Never set in production code paths; absent = no-op.
   */
  onPoint?: (point: string) => void | Promise<void>;
}

/** The table re-opened: fresh hoodie.properties and timeline (Table caches its timeline). */
export function reopen(table: Table): Promise<Table> {
  return openTableAt(table.storage, table.basePath, table.uri);
}

export function lockOf(table: Table, opts: ServiceOptions): <T>(fn: (lock: TableLock) => Promise<T>) => Promise<T> {
  return (fn) => withTableLock(table.storage, table.metaPath, opts.lock ?? {}, fn);
}

export async function hasMetadataTable(table: Table): Promise<boolean> {
  if (table.config.metadataPartitions.length > 0 || table.config.metadataPartitionsInflight.length > 0) return true;
  return table.storage.exists(joinPath(table.metaPath, 'metadata', '.hoodie'));
}

/**
 * A commit written without updating the metadata table would be invisible to MDT-based readers,
 * so refuse, or disable the MDT the way a Hudi writer with hoodie.metadata.enable=false does.
 * Call with the table lock held. Returns true when it disabled the MDT.
 */
export async function guardMetadataTable(table: Table, opts: ServiceOptions): Promise<boolean> {
  if (!(await hasMetadataTable(table))) return false;
  if (opts.metadataTable !== 'disable') {
    throw new TblError(
      'unsupported',
      `${table.uri} has a metadata table (hoodie.table.metadata.partitions=${table.config.metadataPartitions.join(',') || '<empty>'}); ` +
        'tblcli cannot update it, and a compaction it does not know about would hide the new base files from readers that list through it',
      {
        path: table.uri,
        hint: 'pass --metadata-table disable to clear hoodie.table.metadata.partitions and delete .hoodie/metadata first (as a Hudi writer with hoodie.metadata.enable=false does); make sure the other writers run with the metadata table disabled too',
      },
    );
  }
  await disableMetadataTable(table.storage, table.metaPath, (opts.now ?? (() => new Date()))());
  return true;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
