// HoodieCommitMetadata / HoodieReplaceCommitMetadata: JSON (timeline layout 1, Jackson) and Avro (layout 2)
// decode to one normalised shape; encoders write either form the way Hudi does.
import { TblError } from '../errors/index.ts';
import {
  avroBlockItems,
  avroContainerBlocks,
  avroDeref,
  avroNamedTypes,
  compileAvroSkip,
  GIVE_UP,
  isAvroContainer,
  readAvroContainer,
  readVarLong,
  schemaRecordName,
  sniffContent,
  varLongValue,
  writeAvroContainer,
  type AvroSkip,
  type WriteAvroOptions,
} from './avro-container.ts';
import { jacksonPretty, type JacksonValue } from './jackson.ts';
import { JsonSyntaxError, orderedKeys, parseOrderedJson, setKeyOrder } from './ordered-json.ts';
import { SCHEMAS } from './schemas.ts';

export interface RuntimeStats {
  totalScanTime: number | null;
  totalCreateTime: number | null;
  totalUpsertTime: number | null;
}

export interface WriteStat {
  fileId: string;
  path: string | null;
  prevCommit: string | null;
  partitionPath: string;
  numWrites: number;
  numDeletes: number;
  numUpdateWrites: number;
  numInserts: number;
  totalWriteBytes: number;
  totalWriteErrors: number;
  totalLogRecords: number;
  totalLogFilesCompacted: number;
  totalLogSizeCompacted: number;
  totalUpdatedRecordsCompacted: number;
  totalLogBlocks: number;
  totalCorruptLogBlock: number;
  totalRollbackBlocks: number;
  fileSizeInBytes: number;
  totalLogFiles?: number | null;
  /** Set (a number) only for delta-write stats (log appends); null for base-file stats. */
  logVersion?: number | null;
  logOffset?: number | null;
  baseFile?: string | null;
  logFiles?: string[] | null;
  prevBaseFile?: string | null;
  minEventTime?: number | null;
  maxEventTime?: number | null;
  runtimeStats?: RuntimeStats | null;
  tempPath?: string | null;
  cdcStats?: Record<string, number> | null;
  totalLogReadTimeMs?: number | null;
  numUpdates?: number | null;
  /** JSON only: HoodieDeltaWriteStat.recordsStats as written (`{"val": …}`), kept for byte-exact re-encoding. */
  recordsStats?: unknown;
  /** JSON only: keys this codec does not know, kept in order and re-emitted after the known ones. */
  unknownJson?: Record<string, unknown>;
  /**
   * Required fields that were null in the file and got a normalised value here (numbers → 0, fileId → "",
   * partitionPath → the map key; seen in inflight workload-profile stats). Encoders write them back as null.
   */
  nullFields?: string[];
}

export interface CommitMetadata {
  partitionToWriteStats: Record<string, WriteStat[]>;
  compacted: boolean;
  extraMetadata: Record<string, string>;
  operationType: string | null;
  /** Present for replace commits (HoodieReplaceCommitMetadata). */
  partitionToReplaceFileIds?: Record<string, string[]>;
  /** Avro `version` field (layout 2 files); absent for JSON. */
  version?: number | null;
  /** JSON only: unknown top-level keys, re-emitted at the end. */
  unknownJson?: Record<string, unknown>;
}

const COMMIT_NAMES = ['HoodieCommitMetadata', 'HoodieReplaceCommitMetadata'] as const;

/** A fresh empty metadata, what Java's `new HoodieCommitMetadata()` serialises to. */
/** A write stat with every counter zero and the optional parts null: what writers start from. */
export function newWriteStat(s: Pick<WriteStat, 'fileId' | 'path' | 'prevCommit' | 'partitionPath'> & Partial<WriteStat>): WriteStat {
  return {
    numWrites: 0,
    numDeletes: 0,
    numUpdateWrites: 0,
    numInserts: 0,
    totalWriteBytes: 0,
    totalWriteErrors: 0,
    totalLogRecords: 0,
    totalLogFilesCompacted: 0,
    totalLogSizeCompacted: 0,
    totalUpdatedRecordsCompacted: 0,
    totalLogBlocks: 0,
    totalCorruptLogBlock: 0,
    totalRollbackBlocks: 0,
    fileSizeInBytes: 0,
    minEventTime: null,
    maxEventTime: null,
    runtimeStats: { totalScanTime: 0, totalUpsertTime: 0, totalCreateTime: 0 },
    cdcStats: null,
    tempPath: null,
    ...s,
  };
}

export function emptyCommitMetadata(): CommitMetadata {
  return { partitionToWriteStats: {}, compacted: false, extraMetadata: {}, operationType: 'UNKNOWN' };
}

type Rec = Record<string, unknown>;

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
function numOrNull(v: unknown): number | null {
  return typeof v === 'number' ? v : null;
}
function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Copies a map, keeping a recorded key order. */
function mapValues<T>(src: unknown, f: (v: unknown, k: string) => T): Record<string, T> {
  if (!isRec(src)) return {};
  const keys = orderedKeys(src);
  const out: Record<string, T> = {};
  for (const k of keys) out[k] = f(src[k], k);
  return setKeyOrder(out, keys);
}

const STAT_KEYS_BASE = [
  'fileId', 'path', 'cdcStats', 'prevCommit', 'numWrites', 'numDeletes', 'numUpdateWrites', 'numInserts',
  'totalWriteBytes', 'totalWriteErrors', 'tempPath', 'partitionPath', 'totalLogRecords', 'totalLogFilesCompacted',
  'totalLogSizeCompacted', 'totalUpdatedRecordsCompacted', 'totalLogBlocks', 'totalCorruptLogBlock',
  'totalRollbackBlocks', 'fileSizeInBytes', 'minEventTime', 'maxEventTime', 'runtimeStats',
] as const;
const STAT_KEYS_DELTA = ['logVersion', 'logOffset', 'baseFile', 'logFiles', 'recordsStats'] as const;
// Fields of the Avro record only; accepted from JSON too if some writer emitted them.
const STAT_KEYS_AVRO_ONLY = ['totalLogFiles', 'prevBaseFile', 'totalLogReadTimeMs', 'numUpdates'] as const;
const KNOWN_STAT_KEYS = new Set<string>([...STAT_KEYS_BASE, ...STAT_KEYS_DELTA, ...STAT_KEYS_AVRO_ONLY]);
const TOP_KEYS = ['partitionToWriteStats', 'compacted', 'extraMetadata', 'operationType', 'partitionToReplaceFileIds'];

function runtimeStatsOf(v: unknown): RuntimeStats | null {
  if (!isRec(v)) return null;
  return {
    totalScanTime: numOrNull(v.totalScanTime),
    totalCreateTime: numOrNull(v.totalCreateTime),
    totalUpsertTime: numOrNull(v.totalUpsertTime),
  };
}

const REQUIRED_STAT_FIELDS = [
  'fileId', 'partitionPath', 'numWrites', 'numDeletes', 'numUpdateWrites', 'numInserts', 'totalWriteBytes',
  'totalWriteErrors', 'totalLogRecords', 'totalLogFilesCompacted', 'totalLogSizeCompacted',
  'totalUpdatedRecordsCompacted', 'totalLogBlocks', 'totalCorruptLogBlock', 'totalRollbackBlocks', 'fileSizeInBytes',
] as const;

function normaliseStat(s: unknown, partition: string, fromJson: boolean): WriteStat {
  const r = isRec(s) ? s : {};
  const nullFields = REQUIRED_STAT_FIELDS.filter((k) => r[k] === null || (!fromJson && r[k] === undefined));
  const stat: WriteStat = {
    fileId: strOrNull(r.fileId) ?? '',
    path: strOrNull(r.path),
    prevCommit: strOrNull(r.prevCommit),
    partitionPath: strOrNull(r.partitionPath) ?? partition,
    numWrites: num(r.numWrites),
    numDeletes: num(r.numDeletes),
    numUpdateWrites: num(r.numUpdateWrites),
    numInserts: num(r.numInserts),
    totalWriteBytes: num(r.totalWriteBytes),
    totalWriteErrors: num(r.totalWriteErrors),
    totalLogRecords: num(r.totalLogRecords),
    totalLogFilesCompacted: num(r.totalLogFilesCompacted),
    totalLogSizeCompacted: num(r.totalLogSizeCompacted),
    totalUpdatedRecordsCompacted: num(r.totalUpdatedRecordsCompacted),
    totalLogBlocks: num(r.totalLogBlocks),
    totalCorruptLogBlock: num(r.totalCorruptLogBlock),
    totalRollbackBlocks: num(r.totalRollbackBlocks),
    fileSizeInBytes: num(r.fileSizeInBytes),
    totalLogFiles: numOrNull(r.totalLogFiles),
    logVersion: numOrNull(r.logVersion),
    logOffset: numOrNull(r.logOffset),
    baseFile: strOrNull(r.baseFile),
    logFiles: Array.isArray(r.logFiles) ? r.logFiles.map(String) : null,
    prevBaseFile: strOrNull(r.prevBaseFile),
    minEventTime: numOrNull(r.minEventTime),
    maxEventTime: numOrNull(r.maxEventTime),
    runtimeStats: runtimeStatsOf(r.runtimeStats),
    tempPath: strOrNull(r.tempPath),
    cdcStats: isRec(r.cdcStats) ? mapValues(r.cdcStats, num) : null,
    totalLogReadTimeMs: numOrNull(r.totalLogReadTimeMs),
    numUpdates: numOrNull(r.numUpdates),
  };
  if (nullFields.length > 0) stat.nullFields = nullFields;
  if (fromJson) {
    if ('recordsStats' in r) stat.recordsStats = r.recordsStats;
    const unknown = orderedKeys(r).filter((k) => !KNOWN_STAT_KEYS.has(k));
    if (unknown.length > 0) stat.unknownJson = Object.fromEntries(unknown.map((k) => [k, r[k]]));
  }
  return stat;
}

function normalise(r: Rec, fromJson: boolean, replace: boolean): CommitMetadata {
  const m: CommitMetadata = {
    partitionToWriteStats: mapValues(r.partitionToWriteStats, (stats, k) =>
      Array.isArray(stats) ? stats.map((s) => normaliseStat(s, k, fromJson)) : [],
    ),
    compacted: r.compacted === true,
    extraMetadata: mapValues(r.extraMetadata, (v) => (v === null || v === undefined ? '' : String(v))),
    operationType: strOrNull(r.operationType),
  };
  if (replace || 'partitionToReplaceFileIds' in r) {
    m.partitionToReplaceFileIds = mapValues(r.partitionToReplaceFileIds, (v) => (Array.isArray(v) ? v.map(String) : []));
  }
  if (!fromJson) m.version = numOrNull(r.version);
  if (fromJson) {
    const unknown = orderedKeys(r).filter((k) => !TOP_KEYS.includes(k));
    if (unknown.length > 0) m.unknownJson = Object.fromEntries(unknown.map((k) => [k, r[k]]));
  }
  return m;
}

export interface DecodeCommitOptions {
  /**
   * Keep each JSON object's key order (a slower parser) so the metadata re-encodes byte for byte.
   * Reading commands do not need it: JSON.parse is several times faster on 20k-instant timelines.
   */
  preserveKeyOrder?: boolean;
}

/** Normalises an already-decoded Avro HoodieCommitMetadata record (e.g. from an archived timeline entry). */
export function commitMetadataFromRecord(r: Record<string, unknown>): CommitMetadata {
  return normalise(r as Rec, false, 'partitionToReplaceFileIds' in r);
}

/** Decodes a commit / deltacommit / replacecommit (or their inflight) file; empty content → empty metadata. */
interface ParsedCommit {
  rec: Rec;
  fromJson: boolean;
  replace: boolean;
}

/** Sniffs and parses a commit file into its raw record (undefined when it holds no record). */
function parseCommit(bytes: Uint8Array, ctx: { path: string }, opts: DecodeCommitOptions): ParsedCommit | undefined {
  const kind = sniffContent(bytes, ctx);
  if (kind === 'empty') return undefined;
  if (kind === 'json') {
    let parsed: unknown;
    try {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      parsed = opts.preserveKeyOrder ? parseOrderedJson(text) : JSON.parse(text);
    } catch (e) {
      const why = e instanceof JsonSyntaxError ? e.message : String(e);
      throw new TblError('metadata', `${ctx.path}: invalid JSON commit metadata (${why})`, { path: ctx.path, cause: e });
    }
    if (!isRec(parsed)) throw new TblError('metadata', `${ctx.path}: invalid JSON commit metadata (not an object)`, { path: ctx.path });
    return { rec: parsed, fromJson: true, replace: false };
  }
  const name = schemaRecordName(bytes, ctx);
  if (name !== COMMIT_NAMES[0] && name !== COMMIT_NAMES[1]) {
    throw new TblError('metadata', `${ctx.path}: expected Avro HoodieCommitMetadata, found ${name}`, { path: ctx.path });
  }
  const { records } = readAvroContainer(bytes, ctx, { readerSchema: SCHEMAS[name] });
  if (records.length === 0) return undefined;
  return { rec: records[0] as Rec, fromJson: false, replace: name === 'HoodieReplaceCommitMetadata' };
}

export function decodeCommitMetadata(bytes: Uint8Array, ctx: { path: string }, opts: DecodeCommitOptions = {}): CommitMetadata {
  const p = parseCommit(bytes, ctx, opts);
  return p ? normalise(p.rec, p.fromJson, p.replace) : emptyCommitMetadata();
}

/**
 * commitTotals straight from the raw record, without building the normalised metadata: what
 * `commits show` needs for each of thousands of instants. Same rules as commitTotals.
 */
export function decodeCommitTotals(bytes: Uint8Array, ctx: { path: string }): CommitTotals & { operationType: string | null } {
  if (isAvroContainer(bytes)) {
    const fast = avroTotals(bytes, ctx);
    if (fast) return fast;
  }
  const p = parseCommit(bytes, ctx, {});
  const t = emptyTotals();
  if (!p) return { ...t, operationType: 'UNKNOWN' };
  const parts = isRec(p.rec.partitionToWriteStats) ? p.rec.partitionToWriteStats : {};
  t.totalPartitionsWritten = Object.keys(parts).length;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  for (const stats of Object.values(parts)) {
    if (!Array.isArray(stats)) continue;
    for (const s of stats as Rec[]) {
      const prev = s.prevCommit;
      if (typeof prev === 'string') {
        if (prev.toLowerCase() === 'null') t.totalFilesInsert++;
        else t.totalFilesUpdated++;
        t.totalInsertRecordsWritten += n(s.numInserts);
      }
      t.totalBytesWritten += n(s.totalWriteBytes);
      t.totalRecordsWritten += n(s.numWrites);
      t.totalUpdateRecordsWritten += n(s.numUpdateWrites);
      t.totalRecordsDeleted += n(s.numDeletes);
      t.totalWriteErrors += n(s.totalWriteErrors);
    }
  }
  return { ...t, operationType: strOrNull(p.rec.operationType) };
}

function statToJson(s: WriteStat, delta: boolean): JacksonValue {
  const o: Record<string, JacksonValue> = {
    fileId: s.fileId,
    path: s.path,
    cdcStats: s.cdcStats ?? null,
    prevCommit: s.prevCommit,
    numWrites: s.numWrites,
    numDeletes: s.numDeletes,
    numUpdateWrites: s.numUpdateWrites,
    numInserts: s.numInserts,
    totalWriteBytes: s.totalWriteBytes,
    totalWriteErrors: s.totalWriteErrors,
    tempPath: s.tempPath ?? null,
    partitionPath: s.partitionPath,
    totalLogRecords: s.totalLogRecords,
    totalLogFilesCompacted: s.totalLogFilesCompacted,
    totalLogSizeCompacted: s.totalLogSizeCompacted,
    totalUpdatedRecordsCompacted: s.totalUpdatedRecordsCompacted,
    totalLogBlocks: s.totalLogBlocks,
    totalCorruptLogBlock: s.totalCorruptLogBlock,
    totalRollbackBlocks: s.totalRollbackBlocks,
    fileSizeInBytes: s.fileSizeInBytes,
    minEventTime: s.minEventTime ?? null,
    maxEventTime: s.maxEventTime ?? null,
    // Jackson's field order for HoodieRuntimeStats differs from the Avro record's.
    runtimeStats: s.runtimeStats
      ? { totalScanTime: s.runtimeStats.totalScanTime, totalUpsertTime: s.runtimeStats.totalUpsertTime, totalCreateTime: s.runtimeStats.totalCreateTime }
      : null,
  };
  if (delta) {
    o.logVersion = s.logVersion ?? 0;
    o.logOffset = s.logOffset ?? 0;
    o.baseFile = s.baseFile ?? null;
    o.logFiles = s.logFiles ?? [];
    o.recordsStats = (s.recordsStats as JacksonValue | undefined) ?? { val: null };
  }
  if (s.unknownJson) for (const [k, v] of Object.entries(s.unknownJson)) o[k] = v as JacksonValue;
  for (const k of s.nullFields ?? []) if (k in o) o[k] = null;
  return o;
}

export interface EncodeJsonOptions {
  /** true: every stat is a HoodieDeltaWriteStat; false: none; default: stats whose logVersion is a number. */
  delta?: boolean;
}

/** Jackson-style JSON as Hudi 0.14/0.15 writes it (layout-1 timelines). */
export function encodeCommitMetadataJson(m: CommitMetadata, opts: EncodeJsonOptions = {}): Uint8Array {
  const o: Record<string, JacksonValue> = {
    partitionToWriteStats: mapValues(m.partitionToWriteStats, (stats) =>
      (stats as WriteStat[]).map((s) => statToJson(s, opts.delta ?? typeof s.logVersion === 'number')),
    ),
    compacted: m.compacted,
    extraMetadata: m.extraMetadata,
    operationType: m.operationType,
  };
  if (m.partitionToReplaceFileIds) o.partitionToReplaceFileIds = m.partitionToReplaceFileIds;
  if (m.unknownJson) for (const [k, v] of Object.entries(m.unknownJson)) o[k] = v as JacksonValue;
  return new Uint8Array(Buffer.from(jacksonPretty(o), 'utf8'));
}

function statToAvro(s: WriteStat): Rec {
  const o: Rec = {
    fileId: s.fileId,
    path: s.path,
    prevCommit: s.prevCommit,
    numWrites: s.numWrites,
    numDeletes: s.numDeletes,
    numUpdateWrites: s.numUpdateWrites,
    totalWriteBytes: s.totalWriteBytes,
    totalWriteErrors: s.totalWriteErrors,
    partitionPath: s.partitionPath,
    totalLogRecords: s.totalLogRecords,
    totalLogFiles: s.totalLogFiles ?? null,
    totalUpdatedRecordsCompacted: s.totalUpdatedRecordsCompacted,
    numInserts: s.numInserts,
    totalLogBlocks: s.totalLogBlocks,
    totalCorruptLogBlock: s.totalCorruptLogBlock,
    totalRollbackBlocks: s.totalRollbackBlocks,
    fileSizeInBytes: s.fileSizeInBytes,
    logVersion: s.logVersion ?? null,
    logOffset: s.logOffset ?? null,
    baseFile: s.baseFile ?? null,
    logFiles: s.logFiles ?? null,
    cdcStats: s.cdcStats ?? null,
    prevBaseFile: s.prevBaseFile ?? null,
    minEventTime: s.minEventTime ?? null,
    maxEventTime: s.maxEventTime ?? null,
    runtimeStats: s.runtimeStats ?? null,
    totalLogFilesCompacted: s.totalLogFilesCompacted,
    totalLogReadTimeMs: s.totalLogReadTimeMs ?? null,
    totalLogSizeCompacted: s.totalLogSizeCompacted,
    tempPath: s.tempPath ?? null,
    numUpdates: s.numUpdates ?? null,
  };
  for (const k of s.nullFields ?? []) if (k in o) o[k] = null;
  return o;
}

export interface EncodeAvroCommitOptions extends WriteAvroOptions {
  /** Write HoodieReplaceCommitMetadata; default: when partitionToReplaceFileIds is set. */
  replace?: boolean;
}

/**
 * The Avro HoodieCommitMetadata / HoodieReplaceCommitMetadata record of a metadata (what Java's
 * Jackson convertValue builds from the POJO); `version` defaults to 1 as the Avro builder sets it.
 */
export function commitMetadataToAvroRecord(m: CommitMetadata, opts: { replace?: boolean; version?: number | null } = {}): Record<string, unknown> {
  const replace = opts.replace ?? m.partitionToReplaceFileIds !== undefined;
  const rec: Rec = {
    partitionToWriteStats: mapValues(m.partitionToWriteStats, (stats) => (stats as WriteStat[]).map(statToAvro)),
    compacted: m.compacted,
    extraMetadata: m.extraMetadata,
    version: opts.version !== undefined ? opts.version : m.version === undefined ? 1 : m.version,
    operationType: m.operationType,
  };
  if (replace) rec.partitionToReplaceFileIds = m.partitionToReplaceFileIds ?? {};
  return rec;
}

/** Avro object container (HoodieCommitMetadata or HoodieReplaceCommitMetadata), as layout-2 timelines hold. */
export function encodeCommitMetadataAvro(m: CommitMetadata, opts: EncodeAvroCommitOptions = {}): Uint8Array {
  const replace = opts.replace ?? m.partitionToReplaceFileIds !== undefined;
  const rec = commitMetadataToAvroRecord(m, { replace });
  return writeAvroContainer(replace ? SCHEMAS.HoodieReplaceCommitMetadata : SCHEMAS.HoodieCommitMetadata, [rec], opts);
}

export interface CommitTotals {
  totalBytesWritten: number;
  totalFilesInsert: number;
  totalFilesUpdated: number;
  totalPartitionsWritten: number;
  totalRecordsWritten: number;
  totalUpdateRecordsWritten: number;
  totalInsertRecordsWritten: number;
  totalRecordsDeleted: number;
  totalWriteErrors: number;
}

/** The HoodieCommitMetadata.fetchTotal* family (hudi-cli's commit columns), same rules as Java. */
function emptyTotals(): CommitTotals {
  return {
    totalBytesWritten: 0,
    totalFilesInsert: 0,
    totalFilesUpdated: 0,
    totalPartitionsWritten: 0,
    totalRecordsWritten: 0,
    totalUpdateRecordsWritten: 0,
    totalInsertRecordsWritten: 0,
    totalRecordsDeleted: 0,
    totalWriteErrors: 0,
  };
}

export function commitTotals(m: CommitMetadata): CommitTotals {
  const t = emptyTotals();
  t.totalPartitionsWritten = Object.keys(m.partitionToWriteStats).length;
  for (const stats of Object.values(m.partitionToWriteStats)) {
    for (const s of stats) {
      // prevCommit is the string "null" for a new file group; a missing prevCommit counts as neither.
      if (s.prevCommit !== null) {
        if (s.prevCommit.toLowerCase() === 'null') t.totalFilesInsert++;
        else t.totalFilesUpdated++;
        t.totalInsertRecordsWritten += s.numInserts;
      }
      t.totalBytesWritten += s.totalWriteBytes;
      t.totalRecordsWritten += s.numWrites;
      t.totalUpdateRecordsWritten += s.numUpdateWrites;
      t.totalRecordsDeleted += s.numDeletes;
      t.totalWriteErrors += s.totalWriteErrors;
    }
  }
  return t;
}

/** All write stats of all partitions, in map order (Java getWriteStats()). */
export function allWriteStats(m: CommitMetadata): WriteStat[] {
  return orderedKeys(m.partitionToWriteStats).flatMap((k) => m.partitionToWriteStats[k] ?? []);
}

// ---- commits show fast path for Avro commit files: the totals' fields only ----

type TotalsWithOp = CommitTotals & { operationType: string | null };
/** Reads one HoodieCommitMetadata datum at p into t (operationType into totalsOp); GIVE_UP on doubt. */
type TotalsReader = (b: Uint8Array, p: number, t: CommitTotals, names: string[]) => number;

const totalsReaders = new WeakMap<object, { first: TotalsReader; rest: AvroSkip } | null>();
let totalsOp: string | null = null;

/** ["null", X] or X: the X, and whether null is allowed; undefined for other unions. */
function nullableOf(t: unknown): { inner: unknown; nullIndex: number } | undefined {
  if (!Array.isArray(t)) return { inner: t, nullIndex: -1 };
  if (t.length !== 2) return undefined;
  const i = t.indexOf('null');
  if (i < 0) return undefined;
  return { inner: t[1 - i], nullIndex: i };
}

/** A nullable-or-plain field of this primitive: returns [isNull, position] via the reader; undefined for other types. */
function fieldReader(t: unknown, prim: 'string' | 'number', names: Map<string, Record<string, unknown>>): ((b: Uint8Array, p: number) => number) | undefined {
  const n = nullableOf(avroDeref(t, names));
  if (!n) return undefined;
  let inner = avroDeref(n.inner, names);
  // {"type": "string", "avro.java.string": "String"} is a string too
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) inner = (inner as { type?: unknown }).type;
  const ok = prim === 'string' ? inner === 'string' : inner === 'long' || inner === 'int';
  if (!ok) return undefined;
  if (n.nullIndex < 0) return (b, p) => p; // no union index: the value follows
  const valueIndex = 1 - n.nullIndex;
  // returns the value's position, or -2 - position for null
  return (b, p) => {
    p = readVarLong(b, p);
    if (p < 0) return GIVE_UP;
    if (varLongValue === valueIndex) return p;
    return varLongValue === n.nullIndex ? -2 - p : GIVE_UP;
  };
}

const STAT_NUMBERS = ['numWrites', 'numDeletes', 'numUpdateWrites', 'numInserts', 'totalWriteBytes', 'totalWriteErrors'] as const;

function compileTotalsReader(schema: object): { first: TotalsReader; rest: AvroSkip } | null {
  const names = avroNamedTypes(schema);
  const top = avroDeref(schema, names) as Record<string, unknown>;
  const rest = compileAvroSkip(top, names);
  if (!rest || top.type !== 'record' || !Array.isArray(top.fields)) return null;
  type Step = (b: Uint8Array, p: number, t: CommitTotals, names: string[]) => number;
  const steps: Step[] = [];
  for (const f of top.fields as { name?: unknown; type?: unknown }[]) {
    if (f.name === 'operationType') {
      const r = fieldReader(f.type, 'string', names);
      if (!r) return null;
      steps.push((b, p) => {
        p = r(b, p);
        if (p === GIVE_UP) return GIVE_UP;
        if (p < 0) {
          totalsOp = null;
          return -2 - p;
        }
        p = readVarLong(b, p);
        if (p < 0 || varLongValue < 0 || p + varLongValue > b.length) return GIVE_UP;
        totalsOp = Buffer.from(b.buffer, b.byteOffset + p, varLongValue).toString('utf8');
        return p + varLongValue;
      });
    } else if (f.name === 'partitionToWriteStats') {
      const n = nullableOf(avroDeref(f.type, names));
      const map = n && (avroDeref(n.inner, names) as Record<string, unknown>);
      const arr = map && map.type === 'map' ? (avroDeref(map.values, names) as Record<string, unknown>) : undefined;
      const stat = arr && arr.type === 'array' ? (avroDeref(arr.items, names) as Record<string, unknown>) : undefined;
      if (!n || !stat || stat.type !== 'record' || !Array.isArray(stat.fields)) return null;
      const statReader = compileStatReader(stat.fields as { name?: unknown; type?: unknown }[], names);
      if (!statReader) return null;
      const valueIndex = n.nullIndex < 0 ? -1 : 1 - n.nullIndex;
      steps.push((b, p, t, parts) => {
        if (valueIndex >= 0) {
          p = readVarLong(b, p);
          if (p < 0) return GIVE_UP;
          if (varLongValue !== valueIndex) return varLongValue === n.nullIndex ? p : GIVE_UP;
        }
        // map blocks of (partition, array blocks of stats)
        return avroBlockItems(b, p, (b, p) => {
          p = readVarLong(b, p);
          if (p < 0 || varLongValue < 0 || p + varLongValue > b.length) return GIVE_UP;
          const key = Buffer.from(b.buffer, b.byteOffset + p, varLongValue).toString('utf8');
          if (key === '__proto__') return GIVE_UP; // avsc's object would not keep it as a key
          parts.push(key);
          return avroBlockItems(b, p + varLongValue, (b, p) => statReader(b, p, t));
        });
      });
    } else {
      const skip = compileAvroSkip(f.type, names);
      if (!skip) return null;
      steps.push((b, p) => skip(b, p));
    }
  }
  const first: TotalsReader = (b, p, t, parts) => {
    totalsOp = null; // a writer without operationType: the reader default
    for (let i = 0; i < steps.length && p >= 0; i++) p = steps[i]!(b, p, t, parts);
    return p;
  };
  return { first, rest };
}

function compileStatReader(
  fields: { name?: unknown; type?: unknown }[],
  names: Map<string, Record<string, unknown>>,
): ((b: Uint8Array, p: number, t: CommitTotals) => number) | undefined {
  // slot 0: prevCommit state (0 absent/null, 1 "null" in any case, 2 other); 1..6: STAT_NUMBERS
  const steps: ((b: Uint8Array, p: number, v: number[]) => number)[] = [];
  for (const f of fields) {
    const at = STAT_NUMBERS.indexOf(f.name as (typeof STAT_NUMBERS)[number]);
    const slot = f.name === 'prevCommit' ? 0 : at >= 0 ? at + 1 : -1;
    if (slot === 0) {
      const r = fieldReader(f.type, 'string', names);
      if (!r) return undefined;
      steps.push((b, p, v) => {
        p = r(b, p);
        if (p === GIVE_UP) return GIVE_UP;
        if (p < 0) {
          v[0] = 0;
          return -2 - p;
        }
        p = readVarLong(b, p);
        const len = varLongValue;
        if (p < 0 || len < 0 || p + len > b.length) return GIVE_UP;
        v[0] =
          len === 4 && (b[p]! | 0x20) === 0x6e && (b[p + 1]! | 0x20) === 0x75 && (b[p + 2]! | 0x20) === 0x6c && (b[p + 3]! | 0x20) === 0x6c ? 1 : 2;
        return p + len;
      });
    } else if (slot > 0) {
      const r = fieldReader(f.type, 'number', names);
      if (!r) return undefined;
      steps.push((b, p, v) => {
        p = r(b, p);
        if (p === GIVE_UP) return GIVE_UP;
        if (p < 0) {
          v[slot] = 0;
          return -2 - p;
        }
        p = readVarLong(b, p);
        if (p < 0 || varLongValue < 0) return GIVE_UP; // negative counts: the full decode decides
        v[slot] = varLongValue;
        return p;
      });
    } else {
      const skip = compileAvroSkip(f.type, names);
      if (!skip) return undefined;
      steps.push((b, p) => skip(b, p));
    }
  }
  const v = [0, 0, 0, 0, 0, 0, 0];
  return (b, p, t) => {
    v.fill(0);
    for (let i = 0; i < steps.length && p >= 0; i++) p = steps[i]!(b, p, v);
    if (p < 0) return GIVE_UP;
    if (v[0] !== 0) {
      if (v[0] === 1) t.totalFilesInsert++;
      else t.totalFilesUpdated++;
      t.totalInsertRecordsWritten += v[4]!;
    }
    t.totalRecordsWritten += v[1]!;
    t.totalRecordsDeleted += v[2]!;
    t.totalUpdateRecordsWritten += v[3]!;
    t.totalBytesWritten += v[5]!;
    t.totalWriteErrors += v[6]!;
    return p;
  };
}

/** Totals of an Avro commit file read field by field, or undefined when the full decode must decide. */
/** Reader schema of a commit container's record name; undefined for any other record. */
function commitReaderSchema(name: string): object | undefined {
  return name === COMMIT_NAMES[0] || name === COMMIT_NAMES[1] ? SCHEMAS[name] : undefined;
}

function avroTotals(bytes: Uint8Array, ctx: { path: string }): TotalsWithOp | undefined {
  const c = avroContainerBlocks(bytes, ctx, commitReaderSchema);
  if (!c) return undefined;
  let reader = totalsReaders.get(c.schema);
  if (reader === undefined) {
    reader = compileTotalsReader(c.schema);
    totalsReaders.set(c.schema, reader);
  }
  if (!reader) return undefined;
  const t = emptyTotals();
  const parts: string[] = [];
  let any = false;
  for (const { count, data } of c.blocks) {
    let p = 0;
    for (let i = 0; i < count; i++) {
      p = any ? reader.rest(data, p) : reader.first(data, p, t, parts);
      if (p < 0 || p > data.length) return undefined;
      any = true;
    }
    if (p !== data.length) return undefined;
  }
  if (!any) return { ...t, operationType: 'UNKNOWN' };
  if (parts.length > 1 && new Set(parts).size !== parts.length) return undefined;
  t.totalPartitionsWritten = parts.length;
  // non-negative safe integers summing below 2^53: exact, so the summing order cannot matter
  for (const v of Object.values(t)) if (v > Number.MAX_SAFE_INTEGER) return undefined;
  return { ...t, operationType: totalsOp };
}
