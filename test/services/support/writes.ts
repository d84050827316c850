// "More commits" on real tables for the rollback and restore tests: tblcli has no upsert writer, so
// this test helper writes a DELETE of a few records of one file group the way Hudi writers do:
//   MOR: a delta commit with a DELETE_BLOCK in a new log file of the latest slice (table version 6:
//        named by the slice's base instant, the next version; 8/9: named by the delta commit);
//   COW: a commit with a new base file version of the file group without those records (merged
//        with the compaction merge, src/services/rewrite/merge-op.ts).
// It goes through the shared transaction: Attempt (heartbeat, inflight with the workload profile,
// markers), the metadata table kept in step (files, bloom filters, column stats of the new base
// file, record-index deletes of the keys), the completed instant. `pending` stops after the data
// files (markers left, heartbeat gone): a failed write.
import { mkdtempSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBaseFileName, formatLogFileName, formatWriteToken } from '../../../src/fs-view/index.ts';
import { encodeDeleteBlock } from '../../../src/logfile/writer.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../../../src/merge/index.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat, type CommitMetadata, type WriteStat } from '../../../src/metadata/index.ts';
import { HOODIE_META_FIELDS, withHoodieMetaFields, type AvroRecordSchema } from '../../../src/parquet/write.ts';
import { mergeToParquet } from '../../../src/services/rewrite/merge-op.ts';
import { Attempt, metadataTableFor, nextInstantTime, underLock } from '../../../src/services/transaction.ts';
import { LocalStorage } from '../../../src/storage/index.ts';
import { latestTableSchema, loadFileSystemView, openTable, viewTimelineOf, type Table } from '../../../src/table/index.ts';
import { createRequested } from '../../../src/timeline/writer.ts';

export interface WrittenCommit {
  instant: string;
  action: 'commit' | 'deltacommit';
  partition: string;
  fileId: string;
  /** table-relative path of the file written */
  file: string;
  deletedKeys: string[];
}

export interface DeleteOptions {
  /** records to delete (default 1) */
  count?: number;
  /** leave the instant inflight after writing its file (a failed writer) */
  pending?: boolean;
  /** pick the n-th eligible file group (default 0) */
  fileGroup?: number;
  clockSkewMs?: number;
  /**
   * MOR v6, for the compaction-admin tests: 'pending-compaction' writes into the new slice a pending
   * compaction opened (named by the compaction instant, as 0.x writers do); 'before-pending-compaction'
   * into the slice it compacts (what a writer unaware of the plan does: `compaction repair` moves it)
   */
  slice?: 'latest' | 'pending-compaction' | 'before-pending-compaction';
}

function commitBytes(t: Table, m: CommitMetadata): Uint8Array {
  return t.config.layoutVersion === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m);
}

/** Writes a delete of `count` records of one file group (see the file comment). */
export async function addDeleteCommit(base: string, opts: DeleteOptions = {}): Promise<WrittenCommit> {
  const count = opts.count ?? 1;
  const sopts = { clockSkewMs: opts.clockSkewMs ?? 1, heartbeatIntervalMs: 60_000 };
  const table = await openTable(base);
  return underLock(table, sopts, async (t0) => {
    const tl = await t0.timeline();
    const view = await loadFileSystemView(t0);
    const config = mergeConfigFromProperties(Object.fromEntries(t0.config.props));
    const mor = t0.config.type === 'MERGE_ON_READ';
    // a file group with enough live records, not under a pending compaction or clustering
    const eligible = [];
    const which = opts.slice ?? 'latest';
    for (const g of view.allFileGroups()) {
      const last = g.slices[g.slices.length - 1]!;
      const underCompaction = last.pendingCompaction === true;
      if (g.pendingClustering || (which === 'latest' ? underCompaction : !underCompaction)) continue;
      const s = which === 'before-pending-compaction' ? g.slices[g.slices.length - 2] : last;
      if (!s || (!mor && !s.baseFile)) continue;
      const merged = view.latestMergedFileSlices(g.partition).find((x) => x.fileId === g.fileId)!;
      const rows = (await mergeFileSlice(t0.storage, merged, { config, isValidInstant: view.isCommitted })).rows;
      if (rows.length >= count) eligible.push({ slice: s, rows });
    }
    const pick = eligible[opts.fileGroup ?? 0];
    if (!pick) throw new Error(`${base}: no file group with ${count} records to delete from`);
    const { slice, rows } = pick;
    const keys = rows.slice(0, count).map((r) => String(r._hoodie_record_key));
    const partition = slice.partition;
    const instant = await nextInstantTime(t0, tl, sopts);
    const action = mor ? 'deltacommit' : 'commit';
    const { table: t, mdt } = await metadataTableFor(t0, sopts, 'delete');
    const schemaText = (await latestTableSchema(t)).schema;
    const workload: CommitMetadata = {
      partitionToWriteStats: { [partition]: [newWriteStat({ fileId: slice.fileId, path: null, prevCommit: slice.baseInstant, partitionPath: partition, numDeletes: count })] },
      compacted: false,
      extraMetadata: {},
      operationType: 'DELETE',
    };
    await createRequested(t.timelineSource, instant, action);
    const attempt = await Attempt.start(t, instant, action, mdt, sopts, commitBytes(t, workload));
    const deletes = keys.map((recordKey) => ({ recordKey, partitionPath: partition }));
    let stat: WriteStat;
    let rel: string;
    if (mor) {
      const v8 = t.config.version >= 8;
      const version = v8 ? 1 : Math.max(0, ...slice.logFiles.map((l) => l.version)) + 1;
      const name = formatLogFileName({ fileId: slice.fileId, instant: v8 ? instant : slice.baseInstant, ext: 'log', version, writeToken: formatWriteToken(0, 7, 1) });
      const bytes = encodeDeleteBlock({ instantTime: instant, schema: schemaText, deletes });
      await attempt.writeFile(partition, name, bytes, 'APPEND');
      rel = partition === '' ? name : `${partition}/${name}`;
      stat = newWriteStat({
        fileId: slice.fileId, path: rel, prevCommit: slice.baseInstant, partitionPath: partition, numDeletes: count,
        totalWriteBytes: bytes.length, fileSizeInBytes: bytes.length, logVersion: version, logOffset: 0,
        baseFile: slice.baseFile?.name ?? '', logFiles: [...slice.logFiles.map((l) => l.name), name],
      });
    } else {
      // the delete block only feeds the merge: it lives outside the table
      const tmp = join(mkdtempSync(join(tmpdir(), 'tblcli-cow-delete-')), 'deletes.log');
      writeFileSync(tmp, encodeDeleteBlock({ instantTime: instant, schema: schemaText, deletes }));
      const parsed = JSON.parse(schemaText) as AvroRecordSchema;
      const tableSchema = { ...parsed, fields: parsed.fields.filter((f) => !(HOODIE_META_FIELDS as readonly string[]).includes(f.name)) };
      const name = formatBaseFileName({ fileId: slice.fileId, writeToken: formatWriteToken(0, 7, 1), instant, ext: 'parquet' });
      const vt = await viewTimelineOf(t);
      const out = await mergeToParquet(new LocalStorage(), {
        partition, fileId: slice.fileId, baseFile: { path: slice.baseFile!.path, size: slice.baseFile!.size }, logFiles: [{ path: tmp, size: statSync(tmp).size }],
        instant, index: 0, fileName: name, writerSchema: withHoodieMetaFields(tableSchema),
        config, committed: { completed: [...vt.completedInstants.map((i) => i.requestedTime), instant], first: vt.firstActiveInstant }, rowGroupSize: 10_000,
      });
      await attempt.writeFile(partition, name, out.bytes, 'MERGE');
      rel = partition === '' ? name : `${partition}/${name}`;
      stat = newWriteStat({
        fileId: slice.fileId, path: rel, prevCommit: slice.baseInstant, partitionPath: partition, numWrites: out.rowCount, numDeletes: count,
        totalWriteBytes: out.bytes.length, fileSizeInBytes: out.bytes.length, prevBaseFile: slice.baseFile!.name,
      });
    }
    const result: WrittenCommit = { instant, action, partition, fileId: slice.fileId, file: rel, deletedKeys: keys };
    if (opts.pending) {
      await attempt.heartbeat.stop(); // the writer dies: inflight, markers and files left, no heartbeat
      return result;
    }
    const meta: CommitMetadata = { partitionToWriteStats: { [partition]: [stat] }, compacted: false, extraMetadata: { schema: schemaText }, operationType: 'DELETE' };
    // commit() takes the lock itself: give this one back first
    return { result, meta, attempt };
  }).then(async (r) => {
    if ('instant' in r) return r;
    await r.attempt.commit({ completedAction: r.result.action, content: (layout) => (layout === 2 ? encodeCommitMetadataAvro(r.meta) : encodeCommitMetadataJson(r.meta)), mdt: { kind: 'commit', metadata: r.meta, recordIndexDeletes: r.result.deletedKeys } });
    return r.result;
  });
}
