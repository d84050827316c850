// Writing the metadata table (format-mdt-write.md §4): one deltacommit per data-table action, with
// the data instant's requested time, completed before the data instant. Per MDT file group that
// receives records, one new log file (v8/v9: `.<fileId>_<t>.log.1_<token>`; v6: the next version of
// the slice's log, `.<fileId>_<sliceBase>.log.<n+1>_<token>`) holding an HFILE_DATA_BLOCK of the
// upserts sorted by key, and a DELETE_BLOCK for key deletes; an APPEND marker first, so a crashed
// attempt is rolled back marker-based (the MDT's own listing-based rollback cannot find v6 logs).
// An MDT instant `t` that already exists (a retry) is rolled back in the MDT first, as Hudi's
// commitInternal does. Call everything here holding the data table's lock.
import { TblError } from '../errors/index.ts';
import { buildFileSystemView, formatLogFileName, parseLogFileName, type FileSlice } from '../fs-view/index.ts';
import { HFileReader, writeHFile } from '../hfile/index.ts';
import { encodeDeleteBlock, encodeLogBlock, iterateLogBlocks, writeLogFile } from '../logfile/index.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat, type CommitMetadata, type WriteStat } from '../metadata/index.ts';
import { openTableAt, type Table } from '../table/index.ts';
import { loadActiveTimeline, type Timeline } from '../timeline/index.ts';
import { completeInstant, createRequested, newInstantTime, timesOnTimeline, transitionToInflight } from '../timeline/writer.ts';
import { compareBytes } from '../hfile/index.ts';
import { joinPath } from '../util/index.ts';
import { createMarker, deleteMarkerDir } from '../write/markers.ts';
import { rollbackInstant, type RollbackResult } from '../write/rollback.ts';
import { fileGroupIndex } from './keys.ts';
import { metadataTablePath, mdtViewTimeline, validInstants } from './table.ts';

/** One record of an MDT partition: an upsert (Avro value bytes, key blanked, writer schema) or a key delete. */
export interface MdtRecord {
  key: string;
  /** undefined: delete the key (DELETE_BLOCK) */
  value?: Uint8Array;
}

export interface MdtPartition {
  name: string;
  /** latest slices of the partition's file groups, sorted by file id (index = file group of a key) */
  slices: FileSlice[];
}

/** The metadata table as a write sees it under the lock. */
export interface MdtWriteTarget {
  data: Table;
  mdt: Table;
  timeline: Timeline;
  /** HoodieMetadataRecord with the 5 meta fields: the schema the MDT's newest HFile was written with */
  writerSchema: string;
  partitions: Map<string, MdtPartition>;
}

const utf8 = new TextEncoder();
const utf8Dec = new TextDecoder();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The writer schema from the newest HFile of the MDT: a log block's SCHEMA header, else a base
 * file's `schema`. Files that name none (a v6 MDT rollback's command-block log, a log holding only
 * deletes: an init log, record-index deletes) are skipped.
 */
export async function writerSchemaOf(mdt: Table, slices: FileSlice[]): Promise<string> {
  const candidates: { order: string; schema: () => Promise<string | undefined> }[] = [];
  for (const s of slices) {
    if (s.baseFile) {
      const f = s.baseFile;
      candidates.push({ order: `${f.completionTime ?? f.instant}`, schema: async () => (await HFileReader.open(mdt.storage, f.path, { size: f.size })).avroSchemaJson });
    }
    for (const l of s.logFiles) {
      candidates.push({
        order: `${l.completionTime ?? l.instant}.${String(l.version).padStart(9, '0')}`,
        schema: async () => {
          let schema: string | undefined;
          for await (const b of iterateLogBlocks(mdt.storage, l.path, { size: l.size })) if (b.type === 'HFILE_DATA_BLOCK' && b.header.SCHEMA) schema = b.header.SCHEMA;
          return schema;
        },
      });
    }
  }
  candidates.sort((a, b) => (a.order < b.order ? 1 : a.order > b.order ? -1 : 0));
  for (const c of candidates) {
    const s = await c.schema();
    if (s) return s;
  }
  throw new TblError('metadata', `${mdt.uri}: no HFile in the metadata table names its writer schema`, { path: mdt.uri });
}

/** Opens the MDT of `data` for writing the listed partitions. */
export async function openMdtWriteTarget(data: Table, partitions: readonly string[]): Promise<MdtWriteTarget> {
  const mdtPath = metadataTablePath(data.basePath);
  const mdt = await openTableAt(data.storage, mdtPath);
  const timeline = await mdt.timeline();
  const m = { data, mdt, dataTimeline: await data.timeline(), mdtTimeline: timeline, validInstants: new Set<string>(), warnings: [] };
  m.validInstants = validInstants(m.dataTimeline, timeline);
  const view = await buildFileSystemView(mdt.storage, mdtPath, await mdtViewTimeline(m), { partitions: [...partitions], includeInflight: false });
  const out = new Map<string, MdtPartition>();
  const all: FileSlice[] = [];
  for (const name of partitions) {
    const slices = view.latestFileSlices(name).sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0));
    if (slices.length === 0) throw new TblError('metadata', `${mdt.storage.uri(joinPath(mdtPath, name))}: metadata-table partition ${name} has no file groups`, { path: mdt.storage.uri(joinPath(mdtPath, name)) });
    out.set(name, { name, slices });
    all.push(...slices);
  }
  return { data, mdt, timeline, writerSchema: await writerSchemaOf(mdt, all), partitions: out };
}

/** The MDT instant `t` (any state) of a deltacommit, if there is one. */
function mdtInstant(tl: Timeline, t: string) {
  return tl.find(t).find((i) => i.action === 'deltacommit' || i.effectiveAction === 'deltacommit');
}

/** HoodieAvroUtils.removeMetadataFields: the record schema without the 5 meta fields (commit extraMetadata.schema). */
export function withoutMetaFields(writerSchema: string): string {
  const s = JSON.parse(writerSchema) as { fields: { name: string }[] };
  return JSON.stringify({ ...s, fields: s.fields.filter((f) => !f.name.startsWith('_hoodie_')) });
}

export interface MdtWriteOptions {
  now?: () => Date;
  clockSkewMs?: number;
  keepAlive?: () => Promise<void>;
  onPoint?: (point: string) => void | Promise<void>;
}

export interface MdtCommitResult {
  instant: string;
  completionTime?: string;
  /** log files written, MDT-relative */
  files: string[];
  /** the MDT's earlier attempt at this instant, rolled back first */
  rolledBack?: RollbackResult;
}

/**
 * Writes MDT deltacommit `instant` with `records` per MDT partition (only partitions of the target).
 * Duplicate keys within a partition must already be merged by the caller.
 */
export async function writeMdtDeltacommit(w: MdtWriteTarget, instant: string, records: Map<string, MdtRecord[]>, opts: MdtWriteOptions = {}): Promise<MdtCommitResult> {
  const { mdt } = w;
  const src = mdt.timelineSource;
  const now = opts.now ?? (() => new Date());
  let rolledBack: RollbackResult | undefined;
  if (mdtInstant(w.timeline, instant)) {
    rolledBack = await rollbackInstant(mdt, instant, { targetFiles: 'delete', now, clockSkewMs: opts.clockSkewMs, keepAlive: opts.keepAlive });
  }
  await createRequested(src, instant, 'deltacommit');
  await transitionToInflight(src, instant, 'deltacommit');
  await opts.onPoint?.('mdt-inflight');
  const schema = w.writerSchema;
  const version = w.data.config.version;
  const stats: Record<string, WriteStat[]> = {};
  const files: string[] = [];
  let token = 0;
  for (const [partition, recs] of records) {
    const p = w.partitions.get(partition);
    if (!p) throw new TblError('bug', `metadata-table partition ${partition} was not opened for writing`);
    if (recs.length === 0) continue;
    // v6 names log files by the slice's base instant: the next version comes from a fresh listing, which
    // also sees files the view does not (a rollback just made, a crashed attempt's leftovers)
    const listed = version >= 8 ? [] : (await mdt.storage.list(joinPath(mdt.basePath, partition))).map((f) => parseLogFileName(f.name)).filter((l) => l !== undefined);
    const groups = new Map<number, MdtRecord[]>();
    for (const r of recs) {
      const g = fileGroupIndex(r.key, p.slices.length);
      let list = groups.get(g);
      if (!list) groups.set(g, (list = []));
      list.push(r);
    }
    for (const [g, list] of [...groups].sort((a, b) => a[0] - b[0])) {
      await opts.keepAlive?.();
      const slice = p.slices[g]!;
      const upserts = list.filter((r) => r.value !== undefined).map((r) => ({ key: utf8.encode(r.key), value: r.value! }));
      upserts.sort((a, b) => compareBytes(a.key, b.key));
      for (let i = 1; i < upserts.length; i++) {
        if (compareBytes(upserts[i - 1]!.key, upserts[i]!.key) === 0) throw new TblError('bug', `metadata-table record ${utf8Dec.decode(upserts[i]!.key)} of ${partition} given twice`);
      }
      const deletes = list.filter((r) => r.value === undefined);
      const blocks: Uint8Array[] = [];
      if (upserts.length > 0) {
        blocks.push(
          encodeLogBlock({
            type: 'HFILE_DATA_BLOCK',
            header: [
              ['SCHEMA', schema],
              ['INSTANT_TIME', instant],
            ],
            content: writeHFile(upserts, { fileInfo: { schema } }),
          }),
        );
      }
      if (deletes.length > 0) {
        blocks.push(encodeDeleteBlock({ instantTime: instant, schema, deletes: deletes.map((d) => ({ recordKey: d.key, partitionPath: partition })) }));
      }
      const base = version >= 8 ? instant : slice.baseInstant;
      const logVersion =
        version >= 8
          ? 1
          : Math.max(0, ...slice.logFiles.filter((l) => l.instant === base).map((l) => l.version), ...listed.filter((l) => l.fileId === slice.fileId && l.instant === base && l.ext === 'log').map((l) => l.version)) + 1;
      const name = formatLogFileName({ fileId: slice.fileId, instant: base, ext: 'log', version: logVersion, writeToken: `${token++}-0-1` });
      await createMarker(mdt.storage, mdt.basePath, instant, { partition, fileName: name, ioType: 'APPEND' });
      const size = await writeLogFile(mdt.storage, joinPath(mdt.basePath, partition, name), blocks);
      await opts.onPoint?.('mdt-log-written');
      const rel = `${partition}/${name}`;
      files.push(rel);
      (stats[partition] ??= []).push(
        newWriteStat({
          fileId: slice.fileId,
          path: rel,
          prevCommit: version >= 8 ? instant : slice.baseInstant,
          partitionPath: partition,
          numWrites: upserts.length,
          numUpdateWrites: upserts.length,
          numDeletes: deletes.length,
          totalWriteBytes: size,
          fileSizeInBytes: size,
          logVersion,
          logOffset: 0,
          baseFile: slice.baseFile?.name ?? '',
          logFiles: [name],
          totalLogBlocks: 0,
        }),
      );
    }
  }
  const metadata: CommitMetadata = { partitionToWriteStats: stats, compacted: false, extraMetadata: { schema: withoutMetaFields(schema) }, operationType: 'UPSERT_PREPPED' };
  let ct: string | undefined;
  if (src.layout === 2) {
    const times = [...timesOnTimeline(await loadActiveTimeline(src)), ...timesOnTimeline(await loadActiveTimeline(w.data.timelineSource)), instant];
    ct = newInstantTime(times, mdt.config.timezone, now());
    await sleep(opts.clockSkewMs ?? 200);
  }
  const bytes = src.layout === 2 ? encodeCommitMetadataAvro(metadata) : encodeCommitMetadataJson(metadata, { delta: true });
  await completeInstant(src, instant, 'deltacommit', 'deltacommit', bytes, ct);
  await deleteMarkerDir(mdt.storage, mdt.basePath, instant);
  return { instant, completionTime: ct, files, rolledBack };
}
