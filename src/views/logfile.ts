// show logfile metadata / show logfile records (hudi-cli HoodieLogFileCommand, 1.x). Corrupt regions
// never stop the scan: each one becomes a warning naming the file and offset (exit code stays 0, as
// hudi-cli prints its table and labels the block `corrupt_block_<n>`).
import { StorageError, TblError } from '../errors/index.ts';
import { listOrEmpty, type FileStatus, type Storage } from '../storage/index.ts';
import type { ColumnSpec } from '../render/index.ts';
import { javaDouble } from '../render/index.ts';
import { HEADER_KEYS, iterateLogBlocks, isDataBlock, type LogBlock, type LogRecord, type ReadLogOptions } from '../logfile/index.ts';
import { HFileReader } from '../hfile/index.ts';
import { parseLogFileName } from '../fs-view/index.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../merge/index.ts';
import type { Table } from '../table/index.ts';
import { viewTimelineOf } from '../table/index.ts';
import { baseName, joinPath, parentPath, relativeTo, GLOB_CHARS, globSegmentRegex } from '../util/index.ts';
import { javaHashMapOrder } from './java-map.ts';
import type { TableResult } from './result.ts';

export interface LogResult<R = unknown> extends TableResult<R> {
  /** corrupt blocks and other problems, one line each (the command prints them to stderr) */
  warnings: string[];
}

/**
 * Where a --logFilePathPattern points inside the table's storage: a pattern that starts with the table
 * URI or is an absolute path/URI is taken as is; a relative one is relative to the table base path.
 */
export function resolvePattern(table: Table, pattern: string): string {
  const tableUri = table.storage.uri(table.basePath).replace(/\/+$/, '');
  if (pattern === tableUri || pattern.startsWith(`${tableUri}/`)) return joinPath(table.basePath, pattern.slice(tableUri.length));
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(pattern);
  if (m) return m[1] ?? '/';
  if (pattern.startsWith('/')) return pattern;
  return joinPath(table.basePath, pattern);
}

/**
 * Files matching a glob (FSUtils.getGlobStatusExcludingMetaFolder): `.hoodie` paths are left out unless
 * the pattern itself names `.hoodie` (so metadata-table logs can still be asked for explicitly), and
 * partition metafiles never match. Sorted by path.
 */
export async function globFiles(storage: Storage, absPattern: string): Promise<FileStatus[]> {
  const segs = absPattern.split('/').filter((s, i) => s !== '' || i === 0);
  const firstGlob = segs.findIndex((s) => GLOB_CHARS.test(s));
  const wantsMeta = absPattern.split('/').some((s) => s.startsWith('.hoodie'));
  const keep = (f: FileStatus) =>
    !f.isDirectory && !f.name.startsWith('.hoodie_partition_metadata') && (wantsMeta || !f.path.split('/').includes('.hoodie'));
  if (firstGlob < 0) {
    try {
      const st = await storage.stat(absPattern);
      return keep(st) ? [st] : [];
    } catch (e) {
      if (e instanceof StorageError && e.code === 'not-found') return [];
      throw e;
    }
  }
  let dirs = [segs.slice(0, firstGlob).join('/') || '/'];
  let matched: FileStatus[] = [];
  for (let i = firstGlob; i < segs.length; i++) {
    const re = globSegmentRegex(segs[i]!);
    const last = i === segs.length - 1;
    const next: FileStatus[] = [];
    for (const d of dirs) {
      for (const e of await listOrEmpty(storage, d)) if (re.test(e.name) && (last || e.isDirectory)) next.push(e);
    }
    if (last) matched = next;
    else dirs = next.map((e) => e.path);
  }
  return matched.filter(keep).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function requireFiles(table: Table, pattern: string): Promise<FileStatus[]> {
  const files = await globFiles(table.storage, resolvePattern(table, pattern));
  if (files.length === 0) {
    throw new TblError('not-found', `There is no log file matching ${pattern}`, {
      path: table.storage.uri(resolvePattern(table, pattern)),
      hint: 'a relative pattern is relative to the table base path; log file names start with a dot, e.g. "p1/.*.log.*"',
    });
  }
  return files;
}

// ---------------------------------------------------------------- Avro GenericRecord.toString

type AvroSchema = string | AvroSchema[] | { type: string | AvroSchema; fields?: { name: string; type: AvroSchema }[]; items?: AvroSchema; values?: AvroSchema; logicalType?: string; symbols?: string[] };

/** Avro's writeEscapedString. */
function avroEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x2000 && c <= 0x20ff)) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

function typeName(s: AvroSchema | undefined): string | undefined {
  if (s === undefined) return undefined;
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return 'union';
  return typeof s.type === 'string' ? s.type : typeName(s.type);
}

function unionBranch(branches: AvroSchema[], v: unknown): AvroSchema | undefined {
  const nonNull = branches.filter((b) => typeName(b) !== 'null');
  if (nonNull.length === 1) return nonNull[0];
  const t = typeof v;
  return nonNull.find((b) => {
    const n = typeName(b);
    if (t === 'string') return n === 'string' || n === 'enum';
    if (t === 'boolean') return n === 'boolean';
    if (t === 'number') return n === 'int' || n === 'long' || n === 'float' || n === 'double';
    if (v instanceof Uint8Array) return n === 'bytes' || n === 'fixed';
    if (Array.isArray(v)) return n === 'array';
    return n === 'record' || n === 'map';
  });
}

/**
 * GenericData.toString of a decoded Avro value: records `{"f": v, ...}` in schema field order, maps (plain
 * objects) in Java HashMap order, doubles as Java prints them ("25.0"). Decimals arrive as numbers (our decoder's
 * choice) and print as such, where Java prints the raw bytes.
 */
export function avroToString(v: unknown, schema?: AvroSchema): string {
  if (v === null || v === undefined) return 'null';
  let s = schema;
  if (Array.isArray(s)) s = unionBranch(s, v);
  if (s !== undefined && typeof s === 'object' && !Array.isArray(s) && typeof s.type === 'object') s = { ...(s.type as object), ...s, type: s.type } as AvroSchema;
  const name = typeName(s);
  const obj = s !== undefined && typeof s === 'object' && !Array.isArray(s) ? s : undefined;
  if (typeof v === 'string') return `"${avroEscape(v)}"`;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (name === 'float' || name === 'double') return Number.isFinite(v) ? javaDouble(v) : `"${javaDouble(v)}"`;
    return Number.isInteger(v) || name !== undefined ? String(v) : javaDouble(v);
  }
  if (v instanceof Uint8Array) {
    if (name === 'fixed') return `[${[...v].map((b) => (b << 24) >> 24).join(', ')}]`;
    return `{"bytes": "${String.fromCharCode(...v)}"}`;
  }
  if (v instanceof Date) return String(v.getTime());
  if (Array.isArray(v)) return `[${v.map((x) => avroToString(x, obj?.items)).join(', ')}]`;
  if (v instanceof Map) {
    // a Map was built on purpose (e.g. hudi-cli's TreeMap of partitions): keep its order
    return `{${[...v].map(([k, x]) => `"${avroEscape(String(k))}": ${avroToString(x, obj?.values)}`).join(', ')}}`;
  }
  if (typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    if (name === 'map') {
      const keys = javaHashMapOrder(Object.keys(rec));
      return `{${keys.map((k) => `"${avroEscape(k)}": ${avroToString(rec[k], obj?.values)}`).join(', ')}}`;
    }
    const fields = obj?.fields ?? Object.keys(rec).map((n) => ({ name: n, type: undefined as unknown as AvroSchema }));
    return `{${fields.map((f) => `"${f.name}": ${avroToString(rec[f.name], f.type)}`).join(', ')}}`;
  }
  return String(v);
}

function parseSchema(json: string | undefined): AvroSchema | undefined {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as AvroSchema;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- show logfile metadata

export interface LogMetadataRow {
  filePath: string;
  instantTime: string;
  recordCount: number;
  blockType: string;
  headerMetadata: string;
  footerMetadata: string;
  /** not a hudi-cli column: where the block starts (JSON only through `offset`) */
  offset: number;
}

export const logMetadataColumns: ColumnSpec<LogMetadataRow>[] = [
  { key: 'filePath', header: 'File Path', value: (r) => r.filePath },
  { key: 'instantTime', header: 'InstantTime', value: (r) => r.instantTime },
  { key: 'recordCount', header: 'RecordCount', value: (r) => r.recordCount },
  { key: 'blockType', header: 'BlockType', value: (r) => r.blockType },
  { key: 'headerMetadata', header: 'HeaderMetadata', value: (r) => r.headerMetadata },
  { key: 'footerMetadata', header: 'FooterMetadata', value: (r) => r.footerMetadata },
];

/** Jackson of a Map<HeaderMetadataType,String>: enum names as keys, in ordinal order. */
function headerJson(m: Record<string, string>): string {
  const rank = (k: string) => {
    const i = (HEADER_KEYS as readonly string[]).indexOf(k);
    return i < 0 ? HEADER_KEYS.length : i;
  };
  const keys = Object.keys(m).sort((a, b) => rank(a) - rank(b));
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, m[k]])));
}

/** HFILE_DATA blocks (metadata-table logs) are counted by reading their HFile. */
const countHFile: ReadLogOptions['decodeHFile'] = async (content) => {
  const reader = await HFileReader.fromBytes(content, 'HFILE_DATA_BLOCK');
  return (await reader.readAll()) as unknown as LogRecord[];
};

/** hudi-cli's File Path: the part after the base path, else the file name. */
function displayPath(table: Table, path: string): string {
  return relativeTo(table.basePath, path) ?? baseName(path);
}

function blockWarning(table: Table, path: string, b: LogBlock): string | undefined {
  const where = `${table.storage.uri(path)}: block at offset ${b.offset}`;
  if (b.type === 'CORRUPT_BLOCK') return `${where}: corrupt (${b.size} bytes skipped): ${b.corrupt?.reason ?? 'corrupt block'}`;
  if (b.corrupt) return `${where} (${b.type}, instant ${b.header.INSTANT_TIME ?? '-'}) is corrupt: ${b.corrupt.reason}`;
  if (b.unsupported) return `${where} (${b.type}): ${b.unsupported}`;
  return undefined;
}

export async function showLogFileMetadata(table: Table, pattern: string): Promise<LogResult<LogMetadataRow>> {
  const files = await requireFiles(table, pattern);
  const byInstant = new Map<string, LogMetadataRow[]>();
  const warnings: string[] = [];
  let corrupt = 0;
  let dummy = 0;
  for (const f of files) {
    for await (const b of iterateLogBlocks(table.storage, f.path, { size: f.size, withRecords: true, decodeHFile: countHFile })) {
      const w = blockWarning(table, f.path, b);
      if (w) warnings.push(w);
      let instant = b.header.INSTANT_TIME;
      if (b.type === 'CORRUPT_BLOCK') instant = instant ?? `corrupt_block_${++corrupt}`;
      else if (instant === undefined) instant = `dummy_instant_time_${++dummy}`;
      let count = 0;
      if (isDataBlock(b.type) && !b.corrupt) count = b.records?.length ?? b.recordCount ?? 0;
      const row: LogMetadataRow = {
        filePath: displayPath(table, f.path),
        instantTime: instant,
        recordCount: count,
        blockType: b.type,
        headerMetadata: headerJson(b.header),
        footerMetadata: headerJson(b.footer),
        offset: b.offset,
      };
      const list = byInstant.get(instant);
      if (list) list.push(row);
      else byInstant.set(instant, [row]);
    }
  }
  // rows come grouped by instant in java.util.HashMap iteration order (new HashMap<>(), default capacity)
  const rows = javaHashMapOrder([...byInstant.keys()], 16).flatMap((k) => byInstant.get(k)!);
  return { columns: logMetadataColumns, rows, warnings };
}

// ---------------------------------------------------------------- show logfile records

export interface LogRecordRow {
  record: LogRecord;
  schema?: AvroSchema;
}

export const logRecordColumns: ColumnSpec<LogRecordRow>[] = [
  { key: 'records', header: 'Records', value: (r) => avroToString(r.record, r.schema) },
];

export interface LogRecordsOptions {
  /** hudi-cli default 10; <= 0 means all */
  limit: number;
  merge: boolean;
}

export interface LogRecordsResult extends LogResult<LogRecordRow> {
  title: string;
}

function logOrderKey(table: Table, completionTimeOf: (t: string) => string | undefined) {
  return (f: FileStatus) => {
    const n = parseLogFileName(f.name);
    const instant = n?.instant ?? '';
    const at = table.config.layoutVersion === 2 ? (completionTimeOf(instant) ?? '\uffff') : instant;
    return [at, String(n?.version ?? 0).padStart(10, '0'), n?.writeToken ?? ''].join('\u0000');
  };
}

export async function showLogFileRecords(table: Table, pattern: string, opts: LogRecordsOptions): Promise<LogRecordsResult> {
  const limit = opts.limit > 0 ? opts.limit : Infinity;
  const title = `===============> Showing only ${opts.limit} records <===============`;
  // hudi-cli reads the files in reverse lexical order
  const files = (await requireFiles(table, pattern)).reverse();
  const warnings: string[] = [];
  const rows: LogRecordRow[] = [];
  if (!opts.merge) {
    for (const f of files) {
      for await (const b of iterateLogBlocks(table.storage, f.path, { size: f.size, withRecords: true })) {
        const w = blockWarning(table, f.path, b);
        if (w) warnings.push(w);
        if (!isDataBlock(b.type) || b.corrupt || !b.records) continue;
        const schema = parseSchema(b.header.SCHEMA);
        for (const record of b.records) {
          if (rows.length >= limit) break;
          rows.push({ record, schema });
        }
      }
      if (rows.length >= limit) break;
    }
    return { columns: logRecordColumns, rows, warnings, title };
  }

  // --mergeRecords: a log-only file slice (no base file) of one file group, merged with the table's rules
  const groups = new Map<string, FileStatus[]>();
  for (const f of files) {
    const n = parseLogFileName(f.name);
    if (!n) throw new TblError('usage', `${table.storage.uri(f.path)} is not a log file name; --mergeRecords needs log files`, { path: table.storage.uri(f.path) });
    const key = `${parentPath(f.path)}\u0000${n.fileId}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  if (groups.size > 1) {
    throw new TblError('usage', `--mergeRecords needs the log files of one file group; ${pattern} matched ${groups.size} file groups`, {
      hint: 'narrow the pattern to one file id, e.g. "<partition>/.<fileId>_*.log.*"',
    });
  }
  const vt = await viewTimelineOf(table);
  const completed = new Set(vt.completedInstants.map((i) => i.requestedTime));
  const first = vt.firstActiveInstant;
  const isValidInstant = (t: string) => completed.has(t) || (first !== undefined && t < first);
  const order = logOrderKey(table, vt.completionTimeOf);
  const logs = [...files].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const config = mergeConfigFromProperties(Object.fromEntries(table.config.props));
  const first0 = logs[0]!;
  const merged = await mergeFileSlice(
    table.storage,
    {
      partition: relativeTo(table.basePath, parentPath(first0.path)) ?? '',
      fileId: parseLogFileName(first0.name)!.fileId,
      logFiles: logs.map((l) => ({ path: l.path, size: l.size })),
    },
    { config, isValidInstant, logsOnly: true },
  );
  for (const n of merged.notes) if (n.note.startsWith('corrupt')) warnings.push(`${table.storage.uri(n.path)}: block at offset ${n.offset}: ${n.note}`);
  // the schema of the last file that has one (hudi-cli's reader schema)
  let schema: AvroSchema | undefined;
  for (const l of [...logs].reverse()) {
    for await (const b of iterateLogBlocks(table.storage, l.path, { size: l.size })) {
      if (b.header.SCHEMA) schema = parseSchema(b.header.SCHEMA);
    }
    if (schema) break;
  }
  for (const record of merged.rows) {
    if (rows.length >= limit) break;
    rows.push({ record, schema });
  }
  return { columns: logRecordColumns, rows, warnings, title };
}
