// The metadata table's `files` partition: record key = data partition path ("." for a non-partitioned
// table) or "__all_partitions__"; value = HoodieMetadataRecord with filesystemMetadata
// {fileName → {size, isDeleted}}. Records merge like Java HoodieMetadataPayload.combineFileSystemMetadata.
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { HFileReader } from '../hfile/index.ts';
import { readLogFile, COMMAND_ROLLBACK, type LogBlock, type LogRecord } from '../logfile/index.ts';
import { decodeDatum } from '../metadata/index.ts';
import { buildFileSystemView, type FileSlice } from '../fs-view/index.ts';
import { joinPath } from '../util/index.ts';
import { mdtViewTimeline, openMetadataTable, type MetadataTable } from './table.ts';
import { ALL_PARTITIONS_KEY, NON_PARTITIONED_NAME } from './keys.ts';

export const FILES_PARTITION = 'files';
export { ALL_PARTITIONS_KEY, NON_PARTITIONED_NAME };
/** HoodieMetadataPayload METADATA_TYPE_PARTITION_LIST / METADATA_TYPE_FILE_LIST */
export const TYPE_PARTITION_LIST = 1;
export const TYPE_FILE_LIST = 2;

export interface FileInfo {
  size: number;
  isDeleted: boolean;
}

/** One merged `files` record. */
export interface FilesRecord {
  key: string;
  type: number;
  files: Map<string, FileInfo>;
}

export interface SkippedBlock {
  path: string;
  offset: number;
  instant?: string;
  reason: string;
}

export interface MetadataTableFiles {
  mdtBasePath: string;
  /** data partitions from __all_partitions__ ('' for a non-partitioned table), sorted */
  partitions: string[];
  /** partition → file name → size, deleted files removed */
  files: Map<string, Map<string, number>>;
  /** the `files` partition slices that were merged */
  slices: FileSlice[];
  skippedBlocks: SkippedBlock[];
  warnings: string[];
}

/** Java combineFileSystemMetadata (1.x): later size wins as max(old, new); a tombstone removes, or is kept if nothing to remove. */
export function combineFiles(prev: Map<string, FileInfo>, next: Map<string, FileInfo>): Map<string, FileInfo> {
  const out = new Map(prev);
  for (const [name, info] of next) {
    const old = out.get(name);
    if (!old) out.set(name, info);
    else if (info.isDeleted) out.delete(name);
    else out.set(name, { size: Math.max(old.size, info.size), isDeleted: false });
  }
  return out;
}

/** Decodes a HoodieMetadataRecord datum (writer schema from the HFile or the block header). */
export function decodeFilesRecord(key: string, value: Uint8Array, schema: string, path: string): FilesRecord {
  const rec = decodeDatum<Record<string, unknown>>(value, { path, writerSchema: schema });
  const files = new Map<string, FileInfo>();
  const fsm = rec.filesystemMetadata;
  if (fsm && typeof fsm === 'object') {
    const entries = fsm instanceof Map ? [...fsm.entries()] : Object.entries(fsm);
    for (const [name, v] of entries) {
      const info = v as { size?: unknown; isDeleted?: unknown };
      files.set(String(name), { size: Number(info.size ?? 0), isDeleted: info.isDeleted === true });
    }
  }
  // Java blanks the "key" field in HFile values to save space: the HFile key is the record key.
  return { key, type: Number(rec.type ?? 0), files };
}

function hfileRecords(reader: HFileReader, schema: string | undefined, path: string): Promise<FilesRecord[]> {
  const s = schema ?? reader.avroSchemaJson;
  if (!s) throw new TblError('metadata', `${path}: HFile has no Avro schema in its file info`, { path });
  return reader.readAll().then((rs) => rs.map((r) => decodeFilesRecord(r.key, r.value, s, path)));
}

/**
 * Merges one `files` slice: the HFile base file, then the log blocks of valid instants in order
 * (rollback command blocks remove every earlier block of their target instant; deletes drop keys).
 */
export async function mergeFilesSlice(
  storage: Storage,
  slice: FileSlice,
  validInstants: ReadonlySet<string>,
  skipped: SkippedBlock[] = [],
): Promise<Map<string, FilesRecord>> {
  const merged = new Map<string, FilesRecord>();
  const apply = (r: FilesRecord): void => {
    const prev = merged.get(r.key);
    merged.set(r.key, prev ? { key: r.key, type: r.type, files: combineFiles(prev.files, r.files) } : r);
  };
  if (slice.baseFile) {
    const reader = await HFileReader.open(storage, slice.baseFile.path, { size: slice.baseFile.size });
    for (const r of await hfileRecords(reader, undefined, slice.baseFile.path)) apply(r);
  }
  const blocks: { path: string; block: LogBlock }[] = [];
  for (const lf of slice.logFiles) {
    const contents = await readLogFile(storage, lf.path, {
      size: lf.size,
      withRecords: true,
      decodeHFile: async (content, header) => {
        const reader = await HFileReader.fromBytes(content, lf.path);
        const recs = await hfileRecords(reader, header.SCHEMA, lf.path);
        return recs as unknown as LogRecord[];
      },
    });
    for (const block of contents.blocks) blocks.push({ path: lf.path, block });
  }
  // a rollback command block voids the blocks of its target read before it (BaseHoodieLogRecordReader
  // "rollback older read log block(s)"): a retry's blocks of the same instant after it count
  const voided = new Set<number>();
  blocks.forEach(({ block }, i) => {
    if (block.type !== 'COMMAND_BLOCK' || block.header.COMMAND_BLOCK_TYPE !== COMMAND_ROLLBACK || !block.header.TARGET_INSTANT_TIME) return;
    for (let j = 0; j < i; j++) if (blocks[j]!.block.type !== 'COMMAND_BLOCK' && blocks[j]!.block.header.INSTANT_TIME === block.header.TARGET_INSTANT_TIME) voided.add(j);
  });
  for (const [n, { path, block }] of blocks.entries()) {
    const instant = block.header.INSTANT_TIME;
    const skip = (reason: string) => skipped.push({ path, offset: block.offset, instant, reason });
    if (block.type === 'COMMAND_BLOCK') continue;
    if (block.type === 'CORRUPT_BLOCK' || block.corrupt) {
      skip(`corrupt: ${block.corrupt?.reason ?? 'corrupt block'}`);
      continue;
    }
    if (!instant || !validInstants.has(instant)) {
      skip(`instant ${instant ?? '(none)'} is not a valid completed instant`);
      continue;
    }
    if (voided.has(n)) {
      skip(`instant ${instant} was rolled back`);
      continue;
    }
    if (block.type === 'HFILE_DATA_BLOCK') {
      for (const r of (block.records ?? []) as unknown as FilesRecord[]) apply(r);
    } else if (block.type === 'DELETE_BLOCK') {
      if (block.unsupported) throw new TblError('unsupported', `${path} @${block.offset}: ${block.unsupported}`, { path, instant });
      for (const d of block.deletes ?? []) if (d.recordKey) merged.delete(d.recordKey);
    } else {
      skip(`unexpected ${block.type} in a metadata-table log`);
    }
  }
  return merged;
}

/** Reads the merged `files` partition of the table's metadata table. */
export async function readMetadataTableFiles(storage: Storage, basePath: string): Promise<MetadataTableFiles> {
  const m = await openMetadataTable(storage, basePath);
  return readFilesPartition(m);
}

export async function readFilesPartition(m: MetadataTable): Promise<MetadataTableFiles> {
  const storage = m.mdt.storage;
  const view = await buildFileSystemView(storage, m.mdt.basePath, await mdtViewTimeline(m), { partitions: [FILES_PARTITION] });
  const slices = view.latestMergedFileSlices(FILES_PARTITION);
  if (slices.length === 0) {
    throw new TblError('metadata', `${storage.uri(joinPath(m.mdt.basePath, FILES_PARTITION))}: no committed files-partition slice`, {
      path: storage.uri(joinPath(m.mdt.basePath, FILES_PARTITION)),
    });
  }
  const skippedBlocks: SkippedBlock[] = [];
  const merged = new Map<string, FilesRecord>();
  for (const slice of slices) {
    for (const [k, r] of await mergeFilesSlice(storage, slice, m.validInstants, skippedBlocks)) {
      const prev = merged.get(k);
      merged.set(k, prev ? { key: k, type: r.type, files: combineFiles(prev.files, r.files) } : r);
    }
  }
  const all = merged.get(ALL_PARTITIONS_KEY);
  const partitionName = (k: string) => (k === NON_PARTITIONED_NAME ? '' : k);
  const partitions = all
    ? [...all.files].filter(([, i]) => !i.isDeleted).map(([k]) => partitionName(k)).sort()
    : [];
  const files = new Map<string, Map<string, number>>();
  for (const p of partitions) {
    const rec = merged.get(p === '' ? NON_PARTITIONED_NAME : p);
    const live = new Map<string, number>();
    for (const [name, info] of [...(rec?.files ?? new Map<string, FileInfo>())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!info.isDeleted) live.set(name, info.size);
    }
    files.set(p, live);
  }
  return { mdtBasePath: m.mdt.basePath, partitions, files, slices, skippedBlocks, warnings: m.warnings };
}
