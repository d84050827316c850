// Archived timeline readers (format-timeline.md §3.4, §3.5). Loaded only when asked.
//  layout 1: `.hoodie/archived/.commits_.archive.N_<token>` — Hudi log files of AVRO_DATA blocks whose
//            records are HoodieArchivedMetaEntry (one per archived instant state).
//  layout 2: `.hoodie/timeline/history/` — `_version_`, `manifest_N` JSON ({"files":[{fileName,fileLen}]}),
//            `<min>_<max>_<level>.parquet` files of HoodieLSMTimelineInstant (Java LSMTimeline).
import { StorageError, TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { mapLimit, listOrEmpty } from '../storage/index.ts';
import { readLogFile } from '../logfile/index.ts';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from '../parquet/index.ts';
import { asyncBufferOf } from '../storage/index.ts';
import {
  SCHEMA_NAMES,
  decodeAvroInstant,
  readAvroContainer,
  schemaRecordName,
  sniffContent,
  type SchemaName,
} from '../metadata/index.ts';
import { joinPath } from '../util/index.ts';

export type ArchivedState = 'REQUESTED' | 'INFLIGHT' | 'COMPLETED';

export interface ArchivedInstant {
  requestedTime: string;
  completionTime?: string;
  action: string;
  state: ArchivedState;
  /** decoded metadata (layout 1: the populated HoodieArchivedMetaEntry field; layout 2: the completed file) */
  metadata?: unknown;
  /** decoded plan (layout 2 only: clean/compaction/clustering plans) */
  plan?: unknown;
  /** where it was read from */
  source: string;
}

export interface LoadArchivedOptions {
  layout: 1 | 2;
  /** inclusive bounds on the requested time */
  startTs?: string;
  endTs?: string;
  /** decode metadata/plan bytes (default true) */
  withMetadata?: boolean;
  /** layout 1 dir (default `<base>/.hoodie/archived`, or hoodie.archivelog.folder) / layout 2 dir (default `<base>/.hoodie/timeline/history`) */
  archiveDir?: string;
  concurrency?: number;
}

export const ARCHIVE_FILE_PREFIX = '.commits_.archive';
export const LSM_FILE = /^(\d+)_(\d+)_(\d)\.parquet$/;
export const MANIFEST_FILE = /^manifest_(\d+)$/;
export const VERSION_FILE = '_version_';

function inRange(t: string, o: LoadArchivedOptions): boolean {
  return (o.startTs === undefined || t >= o.startTs) && (o.endTs === undefined || t <= o.endTs);
}

/** Instants of the archived timeline in requested-time order (then by state). */
export async function loadArchivedTimeline(storage: Storage, basePath: string, opts: LoadArchivedOptions): Promise<ArchivedInstant[]> {
  const out = opts.layout === 1 ? await loadV1(storage, basePath, opts) : await loadLsm(storage, basePath, opts);
  const order: Record<ArchivedState, number> = { REQUESTED: 0, INFLIGHT: 1, COMPLETED: 2 };
  return out.sort((a, b) =>
    a.requestedTime !== b.requestedTime ? (a.requestedTime < b.requestedTime ? -1 : 1) : order[a.state] - order[b.state],
  );
}

// ---------------------------------------------------------------- layout 1

/** The version number N of `.commits_.archive.N_<token>`, for ordering files. */
export function archiveFileVersion(name: string): number | undefined {
  const m = /^\.commits_\.archive\.(\d+)(?:_.*)?$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** ArchivedTimelineV1.getMetadataKey: the entry field that holds an action's metadata. */
export function archivedMetadataField(action: string, state: ArchivedState): string[] {
  switch (action) {
    case 'clean':
      return state === 'COMPLETED' ? ['hoodieCleanMetadata'] : ['hoodieCleanerPlan'];
    case 'commit':
    case 'deltacommit':
      return ['hoodieCommitMetadata'];
    case 'rollback':
      return ['hoodieRollbackMetadata'];
    case 'savepoint':
      return ['hoodieSavePointMetadata'];
    case 'compaction':
    case 'logcompaction':
      return ['hoodieCompactionPlan'];
    case 'replacecommit':
    case 'clustering':
      if (state === 'REQUESTED') return ['hoodieRequestedReplaceMetadata'];
      if (state === 'INFLIGHT') return ['HoodieInflightReplaceMetadata'];
      return ['hoodieReplaceCommitMetadata'];
    case 'indexing':
      return ['hoodieIndexCommitMetadata'];
    default:
      return [];
  }
}

const METADATA_FIELDS = [
  'hoodieCommitMetadata', 'hoodieCleanMetadata', 'hoodieCompactionMetadata', 'hoodieRollbackMetadata',
  'hoodieSavePointMetadata', 'hoodieCompactionPlan', 'hoodieCleanerPlan', 'hoodieReplaceCommitMetadata',
  'hoodieRequestedReplaceMetadata', 'HoodieInflightReplaceMetadata', 'hoodieIndexCommitMetadata',
];

function toState(s: unknown): ArchivedState {
  return s === 'REQUESTED' || s === 'INFLIGHT' ? s : 'COMPLETED';
}

/** One HoodieArchivedMetaEntry (as decoded with its writer schema) → ArchivedInstant. */
export function fromArchivedMetaEntry(e: Record<string, unknown>, source: string, withMetadata = true): ArchivedInstant {
  const action = String(e.actionType ?? '');
  const state = toState(e.actionState);
  const inst: ArchivedInstant = { requestedTime: String(e.commitTime ?? ''), action, state, source };
  // 0.x writes stateTransitionTime = the state file's modification time, i.e. completion for COMPLETED.
  if (state === 'COMPLETED' && typeof e.stateTransitionTime === 'string') inst.completionTime = e.stateTransitionTime;
  if (withMetadata) {
    const fields = [...archivedMetadataField(action, state), ...METADATA_FIELDS];
    for (const f of fields) {
      const v = e[f];
      if (v !== null && v !== undefined) {
        inst.metadata = v;
        break;
      }
    }
  }
  return inst;
}

async function loadV1(storage: Storage, basePath: string, opts: LoadArchivedOptions): Promise<ArchivedInstant[]> {
  const dir = opts.archiveDir ?? joinPath(basePath, '.hoodie', 'archived');
  const files = (await listOrEmpty(storage, dir))
    .filter((f) => !f.isDirectory && f.name.startsWith(ARCHIVE_FILE_PREFIX))
    .sort((a, b) => (archiveFileVersion(a.name) ?? 0) - (archiveFileVersion(b.name) ?? 0) || (a.name < b.name ? -1 : 1));
  const perFile = await mapLimit(files, opts.concurrency ?? 8, async (f) => {
    const contents = await readLogFile(storage, f.path, { size: f.size, withRecords: true });
    const out: ArchivedInstant[] = [];
    for (const b of contents.blocks) {
      if (b.type === 'CORRUPT_BLOCK' || b.corrupt) {
        // Java's archived-timeline loader skips what it cannot read; we surface it.
        throw new TblError('logfile', `${storage.uri(f.path)}: corrupt archived block at offset ${b.offset}: ${b.corrupt?.reason ?? 'corrupt'}`, {
          path: storage.uri(f.path),
        });
      }
      if (b.type !== 'AVRO_DATA_BLOCK') continue;
      for (const r of b.records ?? []) {
        const inst = fromArchivedMetaEntry(r, f.path, opts.withMetadata ?? true);
        if (inRange(inst.requestedTime, opts)) out.push(inst);
      }
    }
    return out;
  });
  return perFile.flat();
}

// ---------------------------------------------------------------- layout 2

export interface LsmManifest {
  version: number;
  files: { fileName: string; fileLen: number }[];
}

/** The latest snapshot: `_version_`, or the highest `manifest_N` when the version file is unreadable. */
export async function readLsmManifest(storage: Storage, historyDir: string): Promise<LsmManifest | undefined> {
  let version: number | undefined;
  try {
    const text = new TextDecoder().decode(await storage.readFile(joinPath(historyDir, VERSION_FILE))).trim();
    if (/^\d+$/.test(text)) version = Number(text);
  } catch (e) {
    if (!(e instanceof StorageError)) throw e;
  }
  if (version === undefined) {
    const versions = (await listOrEmpty(storage, historyDir))
      .map((f) => MANIFEST_FILE.exec(f.name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
    if (versions.length === 0) return undefined;
    version = Math.max(...versions);
  }
  const path = joinPath(historyDir, `manifest_${version}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(await storage.readFile(path)));
  } catch (e) {
    throw new TblError('timeline', `${storage.uri(path)}: cannot read the archived-timeline manifest: ${(e as Error).message}`, {
      path: storage.uri(path),
      cause: e,
    });
  }
  const files = (parsed as { files?: unknown }).files;
  if (!Array.isArray(files)) {
    throw new TblError('timeline', `${storage.uri(path)}: manifest has no "files" list`, { path: storage.uri(path) });
  }
  return {
    version,
    files: files.map((f) => ({ fileName: String((f as { fileName?: unknown }).fileName), fileLen: Number((f as { fileLen?: unknown }).fileLen ?? 0) })),
  };
}

/** Decodes instant-file bytes stored in the LSM timeline: Avro (by its record name) or JSON (0.x-style). */
export function decodeInstantBytes(bytes: Uint8Array | undefined | null, path: string): unknown {
  if (!bytes || bytes.length === 0) return undefined;
  const kind = sniffContent(bytes, { path });
  if (kind === 'empty') return undefined;
  if (kind === 'json') return JSON.parse(new TextDecoder().decode(bytes));
  const name = schemaRecordName(bytes, { path });
  if (name && (SCHEMA_NAMES as readonly string[]).includes(name)) return decodeAvroInstant(name as SchemaName, bytes, { path });
  return readAvroContainer(bytes, { path }).records[0];
}

/**
 * Rows of one LSM parquet file. hyparquet is called directly (not src/parquet) because the `metadata`
 * and `plan` columns are un-annotated BYTE_ARRAY and must stay bytes (utf8: false).
 */
export async function readLsmRows(storage: Storage, path: string, fileLen: number, columns?: string[]): Promise<Record<string, unknown>[]> {
  const size = fileLen > 0 ? fileLen : (await storage.stat(path)).size;
  try {
    return (await parquetReadObjects({ file: asyncBufferOf(storage, path, size), columns, compressors, utf8: false })) as Record<
      string,
      unknown
    >[];
  } catch (e) {
    if (e instanceof TblError) throw e;
    throw new TblError('parquet', `${storage.uri(path)}: cannot read archived-timeline parquet: ${(e as Error).message}`, {
      path: storage.uri(path),
      cause: e,
    });
  }
}

function asBytes(v: unknown): Uint8Array | undefined {
  return v instanceof Uint8Array ? v : undefined;
}

async function loadLsm(storage: Storage, basePath: string, opts: LoadArchivedOptions): Promise<ArchivedInstant[]> {
  const dir = opts.archiveDir ?? joinPath(basePath, '.hoodie', 'timeline', 'history');
  const manifest = await readLsmManifest(storage, dir);
  if (!manifest) return [];
  const files = manifest.files.filter((f) => {
    const m = LSM_FILE.exec(f.fileName);
    if (!m) return false;
    // prune by the min/max instants in the file name (LSMTimeline.isFileInRange)
    return (opts.endTs === undefined || m[1]! <= opts.endTs) && (opts.startTs === undefined || m[2]! >= opts.startTs);
  });
  const withMeta = opts.withMetadata ?? true;
  const columns = withMeta ? undefined : ['instantTime', 'completionTime', 'action'];
  const perFile = await mapLimit(files, opts.concurrency ?? 8, async (f) => {
    const path = joinPath(dir, f.fileName);
    const rows = await readLsmRows(storage, path, f.fileLen, columns);
    const out: ArchivedInstant[] = [];
    for (const r of rows) {
      const requestedTime = String(r.instantTime ?? '');
      if (!inRange(requestedTime, opts)) continue;
      const inst: ArchivedInstant = { requestedTime, action: String(r.action ?? ''), state: 'COMPLETED', source: path };
      if (r.completionTime !== null && r.completionTime !== undefined) inst.completionTime = String(r.completionTime);
      if (withMeta) {
        const where = `${storage.uri(path)} (instant ${requestedTime})`;
        const metadata = decodeInstantBytes(asBytes(r.metadata), `${where} metadata`);
        const plan = decodeInstantBytes(asBytes(r.plan), `${where} plan`);
        if (metadata !== undefined) inst.metadata = metadata;
        if (plan !== undefined) inst.plan = plan;
      }
      out.push(inst);
    }
    return out;
  });
  return perFile.flat();
}
