// The LSM archived timeline writer (table versions 8/9; format-services-write.md §5.4, format-timeline.md
// §3.4; Java LSMTimelineWriter): one `<first>_<last>_0.parquet` of HoodieLSMTimelineInstant rows per run,
// made visible by a write-once `manifest_<N+1>` and then `_version_` (delete + create); L0 files compacted
// into the next layer ten at a time; old manifests and unreferenced files cleaned.
import { TblError } from '../../errors/index.ts';
import { LSM_FILE, MANIFEST_FILE, VERSION_FILE, readLsmManifest, readLsmRows, type LsmManifest } from '../../archive/index.ts';
import { jacksonPretty, SCHEMAS } from '../../metadata/index.ts';
import { openHoodiePackedWriter, PackedColumn, type AvroRecordSchema, type ParquetCodec } from '../../parquet/index.ts';
import { listOrEmpty, type Storage } from '../../storage/index.ts';
import { joinPath } from '../../util/index.ts';

export interface LsmRow {
  instantTime: string;
  completionTime: string | null;
  action: string;
  metadata: Uint8Array | null;
  plan: Uint8Array | null;
  version: number;
}

export interface LsmOptions {
  codec?: ParquetCodec;
  /** hoodie.timeline.compaction.batch.size */
  compactionBatch?: number;
  /** hoodie.timeline.compaction.target.file.max.bytes (1 GiB) */
  compactionMaxBytes?: number;
  /** manifest versions kept besides one per compacted layer (LSMTimelineWriter: 3) */
  retainedVersions?: number;
  /** crash-test hook, called with the step just done */
  onPoint?: (point: string) => void | Promise<void>;
}

export const LSM_COMPACTION_BATCH = 10;
const COMPACTION_MAX_BYTES = 1024 * 1024 * 1024;
const RETAINED_VERSIONS = 3;
const SCHEMA = SCHEMAS.HoodieLSMTimelineInstant as unknown as AvroRecordSchema;

export function lsmFileName(min: string, max: string, layer: number): string {
  return `${min}_${max}_${layer}.parquet`;
}

function layerOf(name: string): number | undefined {
  const m = LSM_FILE.exec(name);
  return m ? Number(m[3]) : undefined;
}

/**
 * One parquet file of rows, as Hudi's Avro parquet writer with populateMetaFields=false writes it.
 * Packed rather than row by row (the metadata column is most of an archival run's bytes): values lying
 * end to end in one buffer are the column as they are, others are copied once; 1 MB pages are
 * compressed on libuv's pool in parallel. The same bytes as the row writer (writeHoodieParquet).
 */
export async function encodeLsmFile(rows: readonly LsmRow[], codec: ParquetCodec = 'GZIP'): Promise<Uint8Array> {
  const w = openHoodiePackedWriter({
    schema: SCHEMA,
    codec,
    recordKeyField: 'instantTime',
    bloomFilter: false,
    recordKeyFooter: false,
    // min/max of the metadata and plan bytes serve no reader (and parquet-mr drops those over 4 kB)
    statistics: false,
  });
  const R = w.groupRows;
  const pending: Promise<void>[] = [];
  for (let from = 0; from < rows.length; from += R) {
    const part = rows.slice(from, from + R);
    const bytesOf = (f: (r: LsmRow) => Uint8Array | null) => part.reduce((n, r) => n + (f(r)?.length ?? 0), 0);
    const text = (f: (r: LsmRow) => string | null) => {
      const c = new PackedColumn('BYTE_ARRAY', part.length, 32 * part.length);
      for (const r of part) {
        const v = f(r);
        if (v === null) c.appendNull();
        else c.appendString(v);
      }
      return c;
    };
    const bytes = (f: (r: LsmRow) => Uint8Array | null) => {
      const adopted = adjacentColumn(part.map(f));
      if (adopted) return adopted;
      const c = new PackedColumn('BYTE_ARRAY', part.length, bytesOf(f));
      for (const r of part) {
        const v = f(r);
        if (v === null) c.appendNull();
        else c.appendBytes(v);
      }
      return c;
    };
    const version = new PackedColumn('INT32', part.length);
    const four = new Uint8Array(4);
    const dv = new DataView(four.buffer);
    for (const r of part) {
      dv.setInt32(0, r.version, true);
      version.appendBytes(four);
    }
    // the columns in HoodieLSMTimelineInstant's field order
    pending.push(w.writeGroup([text((r) => r.instantTime), text((r) => r.completionTime), text((r) => r.action), bytes((r) => r.metadata), bytes((r) => r.plan), version]));
  }
  await Promise.all(pending);
  return (await w.finish()).bytes;
}

/**
 * The values as a column over the buffer they already lie in, end to end (archival reads the metadata
 * files so): no copy of the batch's largest column; undefined if they do not.
 */
function adjacentColumn(values: readonly (Uint8Array | null)[]): PackedColumn | undefined {
  const first = values.find((v) => v !== null);
  if (!first) return undefined;
  const c = new PackedColumn('BYTE_ARRAY', values.length, 1);
  const base = first.byteOffset;
  let at = base;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) {
      c.nulls[i] = 1;
      c.nullCount++;
    } else if (v.buffer !== first.buffer || v.byteOffset !== at) return undefined;
    else at += v.length;
    c.offsets[i + 1] = at - base;
  }
  c.data = new Uint8Array(first.buffer, base, at - base);
  c.length = values.length;
  c.size = at - base;
  return c;
}

/** The latest snapshot (`_version_`, else the highest manifest), or version −1 with no files. */
export async function latestManifest(storage: Storage, dir: string): Promise<LsmManifest> {
  return (await readLsmManifest(storage, dir)) ?? { version: -1, files: [] };
}

async function deleteIfExists(storage: Storage, path: string): Promise<void> {
  await storage.delete(path);
}

/** HoodieLSMTimelineManifest.toJsonString (Jackson's default pretty printer). */
export function manifestJson(files: LsmManifest['files']): Uint8Array {
  return new TextEncoder().encode(jacksonPretty({ files: files.map((f) => ({ fileName: f.fileName, fileLen: f.fileLen })) }));
}

/**
 * updateManifest: the latest manifest minus `remove` plus `add` as `manifest_<N+1>` (a leftover one of
 * a crashed run is deleted first), then `_version_` = N+1. Readers see the change only with the manifest.
 */
export async function updateManifest(storage: Storage, dir: string, remove: readonly string[], add: string, opts: LsmOptions, tag: string): Promise<number> {
  const latest = await latestManifest(storage, dir);
  const gone = new Set(remove);
  const size = (await storage.stat(joinPath(dir, add))).size;
  const files = [...latest.files.filter((f) => !gone.has(f.fileName)), { fileName: add, fileLen: size }];
  const version = latest.version < 0 ? 1 : latest.version + 1;
  const manifest = joinPath(dir, `manifest_${version}`);
  await deleteIfExists(storage, manifest);
  await storage.writeNew(manifest, manifestJson(files));
  await opts.onPoint?.(`${tag}-manifest`);
  const versionFile = joinPath(dir, VERSION_FILE);
  await storage.delete(versionFile);
  await opts.onPoint?.(`${tag}-version-deleted`);
  await storage.writeNew(versionFile, new TextEncoder().encode(String(version)));
  await opts.onPoint?.(`${tag}-version`);
  return version;
}

/**
 * A run killed between deleting `_version_` and writing it again leaves readers listing the manifests
 * (they take the highest): write the version file back with that version.
 */
export async function repairVersionFile(storage: Storage, dir: string): Promise<void> {
  const versionFile = joinPath(dir, VERSION_FILE);
  if (await storage.exists(versionFile)) return;
  const latest = await readLsmManifest(storage, dir);
  if (latest) await storage.writeNew(versionFile, new TextEncoder().encode(String(latest.version)));
}

export interface LsmWrite {
  fileName: string;
  /** bytes of the file written (0 when already committed) */
  bytes: number;
  /** the file was already committed by a run that died before deleting the active instants */
  alreadyCommitted: boolean;
}

/** LSMTimelineWriter.write: the L0 file of one run, then the manifest and version. */
export async function writeLsmBatch(storage: Storage, dir: string, rows: readonly LsmRow[], opts: LsmOptions = {}): Promise<LsmWrite> {
  const fileName = lsmFileName(rows[0]!.instantTime, rows[rows.length - 1]!.instantTime, 0);
  const path = joinPath(dir, fileName);
  await storage.mkdirs(dir);
  if (await storage.exists(path)) {
    // committed (listed in the latest manifest): a previous run got that far; else a leftover to redo
    if ((await latestManifest(storage, dir)).files.some((f) => f.fileName === fileName)) return { fileName, bytes: 0, alreadyCommitted: true };
    await storage.delete(path);
  }
  const bytes = await encodeLsmFile(rows, opts.codec);
  await storage.writeNew(path, bytes);
  await opts.onPoint?.('after-lsm-file');
  await updateManifest(storage, dir, [], fileName, opts, 'after-lsm');
  return { fileName, bytes: bytes.length, alreadyCommitted: false };
}

/**
 * getCandidateFiles: from the oldest file of a layer, at most `batch` consecutive files whose total stays
 * within the size target (a single oversized file restarts the group); fewer than two means none.
 */
function candidateFiles(files: LsmManifest['files'], batch: number, maxBytes: number): string[] {
  let candidates: string[] = [];
  let total = 0;
  for (const f of files) {
    total += f.fileLen;
    candidates.push(f.fileName);
    if (candidates.length >= batch) break;
    if (total > maxBytes) {
      if (candidates.length < 2) {
        total = 0;
        candidates = [];
      } else break;
    }
  }
  return candidates;
}

function compactedName(files: readonly string[]): string {
  const parsed = files.map((f) => LSM_FILE.exec(f)!);
  const min = parsed.map((m) => m[1]!).sort()[0]!;
  const max = parsed.map((m) => m[2]!).sort().pop()!;
  return lsmFileName(min, max, Number(parsed[0]![3]) + 1);
}

async function compactLayer(storage: Storage, dir: string, manifest: LsmManifest, layer: number, opts: LsmOptions): Promise<string | undefined> {
  const batch = opts.compactionBatch ?? LSM_COMPACTION_BATCH;
  const files = manifest.files.filter((f) => layerOf(f.fileName) === layer);
  if (files.length < batch) return undefined;
  // LSMFileEntry.compareTo: by the file's min instant
  files.sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
  const candidates = candidateFiles(files, batch, opts.compactionMaxBytes ?? COMPACTION_MAX_BYTES);
  if (candidates.length < 2) return undefined;
  const name = compactedName(candidates);
  const lens = new Map(files.map((f) => [f.fileName, f.fileLen]));
  const rows: LsmRow[] = [];
  for (const c of candidates) rows.push(...((await readLsmRows(storage, joinPath(dir, c), lens.get(c) ?? 0)) as unknown as LsmRow[]));
  const path = joinPath(dir, name);
  await deleteIfExists(storage, path);
  await storage.writeNew(path, await encodeLsmFile(rows.map(normaliseRow), opts.codec));
  await opts.onPoint?.('after-compaction-file');
  await updateManifest(storage, dir, candidates, name, opts, 'after-compaction');
  return name;
}

function normaliseRow(r: LsmRow): LsmRow {
  return {
    instantTime: String(r.instantTime),
    completionTime: r.completionTime === null || r.completionTime === undefined ? null : String(r.completionTime),
    action: String(r.action),
    metadata: r.metadata ?? null,
    plan: r.plan ?? null,
    version: typeof r.version === 'number' ? r.version : 1,
  };
}

/**
 * compactAndClean: compact L0, then each next layer that filled up; then keep the newest
 * `retained + compacted layers` manifests and delete older manifests and every file none of them lists.
 * Returns the compacted files written.
 */
export async function compactAndClean(storage: Storage, dir: string, opts: LsmOptions = {}): Promise<string[]> {
  const manifest = await latestManifest(storage, dir);
  const written: string[] = [];
  let layer = 0;
  let name = await compactLayer(storage, dir, manifest, layer, opts);
  while (name) {
    written.push(name);
    manifest.files.push({ fileName: name, fileLen: (await storage.stat(joinPath(dir, name))).size });
    name = await compactLayer(storage, dir, manifest, ++layer, opts);
  }
  await clean(storage, dir, (opts.retainedVersions ?? RETAINED_VERSIONS) + layer, opts);
  return written;
}

async function clean(storage: Storage, dir: string, keep: number, opts: LsmOptions): Promise<void> {
  const listing = await listOrEmpty(storage, dir);
  const versions = listing
    .map((f) => MANIFEST_FILE.exec(f.name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => b - a);
  if (versions.length <= keep) return;
  const kept = versions.slice(0, keep);
  const referenced = new Set<string>();
  for (const v of kept) {
    for (const f of await manifestFiles(storage, dir, v)) referenced.add(f);
  }
  for (const v of versions.slice(keep)) await storage.delete(joinPath(dir, `manifest_${v}`));
  await opts.onPoint?.('after-clean-manifests');
  for (const f of listing) {
    if (!f.isDirectory && LSM_FILE.test(f.name) && !referenced.has(f.name)) await storage.delete(f.path);
  }
}

/** The files a kept manifest lists; unreadable is an error (guessing would delete live files). */
async function manifestFiles(storage: Storage, dir: string, version: number): Promise<string[]> {
  const path = joinPath(dir, `manifest_${version}`);
  try {
    const parsed = JSON.parse(new TextDecoder().decode(await storage.readFile(path))) as { files?: { fileName?: unknown }[] };
    if (!Array.isArray(parsed.files)) throw new Error('no "files" list');
    return parsed.files.map((f) => String(f.fileName));
  } catch (e) {
    throw new TblError('timeline', `${storage.uri(path)}: cannot read the archived-timeline manifest before cleaning: ${(e as Error).message}`, { path: storage.uri(path), cause: e });
  }
}
