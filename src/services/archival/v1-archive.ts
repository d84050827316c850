// The layout-1 archived timeline writer (table versions < 8; format-services-write.md §5.3, format-timeline.md
// §3.5): HoodieArchivedMetaEntry records, one per state file of each archived instant, in AVRO_DATA blocks of
// `hoodie.commits.archival.batch` records (header SCHEMA only) of a new Hudi log file
// `.commits_.archive.<N+1>_1-0-1` per run (rolled over to the next version past the size threshold), the
// conversions of Hudi 0.14's MetadataConversionUtils.createMetaWrapper.
import { TblError } from '../../errors/index.ts';
import { encodeAvroDataContent, encodeBlockHeader, encodeLogBlock } from '../../logfile/writer.ts';
import {
  SCHEMAS,
  commitMetadataToAvroRecord,
  decodeCleanMetadata,
  decodeCleanerPlan,
  decodeCommitMetadata,
  decodeCompactionPlan,
  decodeRequestedReplaceMetadata,
  decodeRollbackMetadata,
  decodeSavepointMetadata,
} from '../../metadata/index.ts';
import { listOrEmpty, type Storage } from '../../storage/index.ts';
import type { Instant, State } from '../../timeline/index.ts';
import { formatInstantTime, joinPath } from '../../util/index.ts';
import { ARCHIVE_FILE_PREFIX, archiveFileVersion } from '../../archive/index.ts';

/** hoodie.commits.archival.batch */
export const ARCHIVAL_BATCH = 10;
/** HoodieLogFormat's default size threshold (the archive writer sets none) */
export const ARCHIVE_FILE_MAX_BYTES = 512 * 1024 * 1024;
/** the write token Hudi's log writer uses when none is supplied */
const ARCHIVE_WRITE_TOKEN = '1-0-1';
/** HoodieRollingStatMetadata.ROLLING_STAT_METADATA_KEY: blanked in archived commit metadata */
const ROLLING_STAT = 'ROLLING_STAT';

const ENTRY_SCHEMA_JSON = JSON.stringify(SCHEMAS.HoodieArchivedMetaEntry);
const ENTRY_FIELDS = (SCHEMAS.HoodieArchivedMetaEntry as { fields: { name: string }[] }).fields.map((f) => f.name);

/** One state file of an instant, read. */
export interface StateFile {
  state: State;
  bytes: Uint8Array;
  mtimeMs: number;
  path: string;
}

type Rec = Record<string, unknown>;

/** MetadataConversionUtils.convertCommitMetadata (0.14): Jackson's Avro record, COMPACT for compactions, ROLLING_STAT blanked. */
function archivedCommitRecord(bytes: Uint8Array, path: string, replace: boolean): Rec {
  const m = decodeCommitMetadata(bytes, { path });
  // Jackson fills a bare Avro record: the schema's version default is not applied
  const rec = commitMetadataToAvroRecord(m, { replace, version: null });
  if (!replace && m.compacted) rec.operationType = 'COMPACT';
  rec.extraMetadata = { ...m.extraMetadata, [ROLLING_STAT]: '' };
  return rec;
}

function emptyEntry(): Rec {
  const e: Rec = {};
  for (const f of ENTRY_FIELDS) e[f] = null;
  e.version = 1;
  return e;
}

/**
 * The records of one instant: one per state file, requested → inflight → completed (a compaction's
 * plan, from the requested file, goes on both of its pending states as 0.14 does).
 */
export function archivedEntries(instant: Instant, files: StateFile[], zone: 'UTC' | 'LOCAL'): Rec[] {
  const order: Record<State, number> = { REQUESTED: 0, INFLIGHT: 1, COMPLETED: 2 };
  const sorted = [...files].sort((a, b) => order[a.state] - order[b.state]);
  const requested = sorted.find((f) => f.state === 'REQUESTED');
  return sorted.map((f) => entryFor(instant, f, requested, zone));
}

function entryFor(instant: Instant, f: StateFile, requested: StateFile | undefined, zone: 'UTC' | 'LOCAL'): Rec {
  const action = instant.stateActions[f.state] ?? instant.action;
  const e = emptyEntry();
  e.commitTime = instant.requestedTime;
  e.actionState = f.state;
  e.actionType = action;
  e.stateTransitionTime = formatInstantTime(new Date(f.mtimeMs), zone);
  const ctx = { path: f.path };
  // an empty completed file (a crash between create and write): only the common fields
  if (f.state === 'COMPLETED' && f.bytes.length === 0) return e;
  switch (action) {
    case 'commit':
    case 'deltacommit':
      e.hoodieCommitMetadata = archivedCommitRecord(f.bytes, f.path, false);
      break;
    case 'replacecommit':
      if (f.state === 'COMPLETED') e.hoodieReplaceCommitMetadata = archivedCommitRecord(f.bytes, f.path, true);
      else if (f.bytes.length === 0) break;
      else if (f.state === 'INFLIGHT') e.HoodieInflightReplaceMetadata = archivedCommitRecord(f.bytes, f.path, false);
      else e.hoodieRequestedReplaceMetadata = decodeRequestedReplaceMetadata(f.bytes, ctx);
      break;
    case 'clean':
      if (f.state === 'COMPLETED') e.hoodieCleanMetadata = decodeCleanMetadata(f.bytes, ctx);
      else if (f.bytes.length > 0) e.hoodieCleanerPlan = decodeCleanerPlan(f.bytes, ctx);
      break;
    case 'rollback':
      if (f.state === 'COMPLETED') e.hoodieRollbackMetadata = decodeRollbackMetadata(f.bytes, ctx);
      break;
    case 'savepoint':
      if (f.state === 'COMPLETED') e.hoodieSavePointMetadata = decodeSavepointMetadata(f.bytes, ctx);
      break;
    case 'compaction':
    case 'logcompaction':
      // CompactionUtils.getCompactionPlan(metaClient, time) reads the requested plan for either state
      if (requested && requested.bytes.length > 0) e.hoodieCompactionPlan = decodeCompactionPlan(requested.bytes, { path: requested.path });
      break;
    default:
      throw new TblError('unsupported', `instant ${instant.requestedTime}: Hudi's archiver does not archive ${action} instants (${f.path})`, { instant: instant.requestedTime, path: f.path });
  }
  return e;
}

/** The AVRO_DATA blocks of `records`, `batch` records each (header: SCHEMA only, as the archiver writes). */
export function encodeArchiveBlocks(records: readonly Rec[], batch = ARCHIVAL_BATCH): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  // every block carries the same (15 kB) schema header
  const header = encodeBlockHeader([['SCHEMA', ENTRY_SCHEMA_JSON]]);
  for (let i = 0; i < records.length; i += batch) {
    blocks.push(
      encodeLogBlock({
        type: 'AVRO_DATA_BLOCK',
        header,
        content: encodeAvroDataContent(ENTRY_SCHEMA_JSON, records.slice(i, i + batch)),
      }),
    );
  }
  return blocks;
}

export function archiveFileName(version: number): string {
  return `${ARCHIVE_FILE_PREFIX}.${version}_${ARCHIVE_WRITE_TOKEN}`;
}

/** Archive files of `dir`, newest version first. */
export async function listArchiveFiles(storage: Storage, dir: string) {
  return (await listOrEmpty(storage, dir))
    .filter((f) => !f.isDirectory && f.name.startsWith(ARCHIVE_FILE_PREFIX) && archiveFileVersion(f.name) !== undefined)
    .sort((a, b) => archiveFileVersion(b.name)! - archiveFileVersion(a.name)! || (a.name < b.name ? 1 : -1));
}

/**
 * Writes the blocks as new archive versions after the newest one (never appends: a crash leaves a whole
 * file or none). A file takes blocks until it reaches `maxBytes` (Hudi rolls over before the next block).
 * Returns the paths written, in order.
 */
export async function writeArchiveFiles(
  storage: Storage,
  dir: string,
  blocks: readonly Uint8Array[],
  opts: { maxBytes?: number; onFile?: (path: string) => void | Promise<void> } = {},
): Promise<string[]> {
  const maxBytes = opts.maxBytes ?? ARCHIVE_FILE_MAX_BYTES;
  await storage.mkdirs(dir);
  const newest = (await listArchiveFiles(storage, dir))[0];
  let version = newest ? archiveFileVersion(newest.name)! + 1 : 1;
  const written: string[] = [];
  let i = 0;
  while (i < blocks.length) {
    const parts: Uint8Array[] = [];
    let size = 0;
    while (i < blocks.length && (parts.length === 0 || size < maxBytes)) {
      parts.push(blocks[i]!);
      size += blocks[i]!.length;
      i++;
    }
    const out = Buffer.allocUnsafe(size);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    const path = joinPath(dir, archiveFileName(version++));
    await storage.writeNew(path, out);
    written.push(path);
    await opts.onFile?.(path);
  }
  return written;
}
