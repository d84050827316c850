// File-name codecs for Hudi data files (format-data.md §1). parse* returns undefined for names that
// are not of that kind, so a directory listing can be classified without exceptions.

export interface BaseFileName {
  fileId: string;
  writeToken: string;
  /** requested time of the action that wrote the file */
  instant: string;
  /** extension without the dot: parquet, orc, hfile, lance */
  ext: string;
}

// Java FSUtils.BASE_FILE_PATTERN: fileIds and tokens never contain '_'.
const BASE_RE = /^([a-zA-Z0-9-]+)_([a-zA-Z0-9-]+)_(\d+)\.([a-zA-Z0-9]+)$/;

export function parseBaseFileName(name: string): BaseFileName | undefined {
  const m = BASE_RE.exec(name);
  if (!m) return undefined;
  return { fileId: m[1]!, writeToken: m[2]!, instant: m[3]!, ext: m[4]! };
}

export function formatBaseFileName(b: BaseFileName): string {
  return `${b.fileId}_${b.writeToken}_${b.instant}.${b.ext}`;
}

export interface LogFileName {
  fileId: string;
  /** 0.x: base instant of the slice; 1.x: requested time of the writing deltacommit */
  instant: string;
  /** 'log' for data logs, 'archive' for layout-1 archived timeline files */
  ext: string;
  version: number;
  /** absent in pre-0.5 names */
  writeToken?: string;
  /** CDC suffix as written: '-cdc' (0.13) or '.cdc' (later) */
  cdcSuffix?: '-cdc' | '.cdc';
}

// Java 1.x FSUtils.LOG_FILE_PATTERN, with both CDC suffix spellings made explicit.
const LOG_RE = /^\.(.+)_(.*)\.(log|archive)\.(\d+)(?:_(\d+-\d+-\d+)(-cdc|\.cdc)?)?$/;

/** LOG_RE applied to `name` (the reference the scanner below must agree with). */
export function parseLogFileNameByRegex(name: string): LogFileName | undefined {
  const m = LOG_RE.exec(name);
  if (!m) return undefined;
  const out: LogFileName = { fileId: m[1]!, instant: m[2]!, ext: m[3]!, version: Number(m[4]) };
  if (m[5] !== undefined) out.writeToken = m[5];
  if (m[6] !== undefined) out.cdcSuffix = m[6] as '-cdc' | '.cdc';
  return out;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** End of `\d+` at i (i when there is none). */
function digits(s: string, i: number): number {
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  return i;
}

/**
 * Where the suffix `\.(log|archive)\.(\d+)(?:_(\d+-\d+-\d+)(-cdc|\.cdc)?)?$` matches, from p (its
 * extension length, version end, token end, or undefined).
 */
function logSuffix(s: string, p: number): { ext: number; versionEnd: number; tokenEnd: number } | undefined {
  const ext = s.startsWith('.log.', p) ? 3 : s.startsWith('.archive.', p) ? 7 : 0;
  if (ext === 0) return undefined;
  const v = p + ext + 2;
  const ve = digits(s, v);
  if (ve === v) return undefined;
  if (ve === s.length) return { ext, versionEnd: ve, tokenEnd: ve };
  if (s.charCodeAt(ve) !== 0x5f) return undefined;
  // _\d+-\d+-\d+, then optionally -cdc / .cdc, then the end
  let q = ve + 1;
  for (let k = 0; k < 3; k++) {
    const e = digits(s, q);
    if (e === q) return undefined;
    q = e;
    if (k < 2) {
      if (s.charCodeAt(q) !== 0x2d) return undefined;
      q++;
    }
  }
  if (q === s.length || ((s.startsWith('-cdc', q) || s.startsWith('.cdc', q)) && q + 4 === s.length)) return { ext, versionEnd: ve, tokenEnd: q };
  return undefined;
}

// `.` in LOG_RE does not match line terminators: names holding one go to the regex itself
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * LOG_RE without the regex engine (a listing parses every name; the greedy `(.+)_(.*)` backtracks): the
 * suffix must match at its last possible start P, the fileId ends at the last '_' before P.
 */
export function parseLogFileName(name: string): LogFileName | undefined {
  if (name.charCodeAt(0) !== 0x2e) return undefined;
  if (LINE_TERMINATOR.test(name)) return parseLogFileNameByRegex(name);
  // the last start of ".log." / ".archive." where the whole suffix matches
  let p = -1;
  for (let at = name.length; at > 0; ) {
    const a = name.lastIndexOf('.log.', at - 1);
    const b = name.lastIndexOf('.archive.', at - 1);
    const c = Math.max(a, b);
    if (c <= 0) break;
    // both may start at c only if one is a prefix of the other: they are not
    if (logSuffix(name, c)) {
      p = c;
      break;
    }
    at = c;
  }
  if (p < 0) return undefined;
  const u = name.lastIndexOf('_', p - 1);
  if (u < 2) return undefined;
  const sfx = logSuffix(name, p)!;
  const out: LogFileName = { fileId: name.slice(1, u), instant: name.slice(u + 1, p), ext: sfx.ext === 3 ? 'log' : 'archive', version: Number(name.slice(p + sfx.ext + 2, sfx.versionEnd)) };
  if (sfx.tokenEnd > sfx.versionEnd) {
    const tail = name.slice(sfx.versionEnd + 1);
    const cdc = tail.endsWith('-cdc') || tail.endsWith('.cdc') ? tail.slice(-4) : undefined;
    out.writeToken = cdc ? tail.slice(0, -4) : tail;
    if (cdc) out.cdcSuffix = cdc as '-cdc' | '.cdc';
  }
  return out;
}

export function formatLogFileName(l: LogFileName): string {
  const token = l.writeToken === undefined ? '' : `_${l.writeToken}`;
  return `.${l.fileId}_${l.instant}.${l.ext}.${l.version}${token}${l.writeToken === undefined ? '' : l.cdcSuffix ?? ''}`;
}

export function isCdcLogFile(l: LogFileName): boolean {
  return l.cdcSuffix !== undefined;
}

/** `%d-%d-%d` (taskPartitionId, stageId, taskAttemptId). */
export function formatWriteToken(taskPartitionId: number, stageId: number, taskAttemptId: number): string {
  return `${taskPartitionId}-${stageId}-${taskAttemptId}`;
}

/** HoodieLogFormat.UNKNOWN_WRITE_TOKEN, used by rollback blocks and tools. */
export const UNKNOWN_WRITE_TOKEN = '1-0-1';

// ---- bucket index (BucketIdentifier) ----

const BUCKET_RE = /^(\d{8})-/;

/** Bucket number of a bucket-index fileId (`00000003-…-0` → 3), undefined for ordinary UUID fileIds. */
export function bucketIdFromFileId(fileId: string): number | undefined {
  const m = BUCKET_RE.exec(fileId);
  return m ? Number.parseInt(m[1]!, 10) : undefined;
}

export function bucketIdStr(bucketId: number): string {
  return String(bucketId).padStart(8, '0');
}

/** newBucketFileIdPrefix: the first 8 characters of a UUID replaced by the padded bucket number. */
export function bucketFileIdPrefix(bucketId: number, uuid: string): string {
  return bucketIdStr(bucketId) + uuid.slice(8);
}

/** NBCC fixed file id: `<bucket>-0000-0000-0000-000000000000-0`. */
export function bucketFileIdForNBCC(bucketId: number): string {
  return `${bucketIdStr(bucketId)}-0000-0000-0000-000000000000-0`;
}

// ---- partition metadata file names ----

export const PARTITION_METAFILE = '.hoodie_partition_metadata';

/** The text variant or a base-format variant (`.hoodie_partition_metadata.parquet` / `.orc`). */
export function partitionMetafileFormat(name: string): 'text' | 'parquet' | 'orc' | undefined {
  if (name === PARTITION_METAFILE) return 'text';
  if (name === `${PARTITION_METAFILE}.parquet`) return 'parquet';
  if (name === `${PARTITION_METAFILE}.orc`) return 'orc';
  return undefined;
}

// ---- partition paths ----

// Hive FileUtils.escapePathName / Hudi PartitionPathEncodeUtils: characters that get %XX.
const ESCAPED = new Set<number>([
  ...Array.from({ length: 0x1f }, (_, i) => i + 1),
  '"'.charCodeAt(0), '#'.charCodeAt(0), '%'.charCodeAt(0), "'".charCodeAt(0), '*'.charCodeAt(0),
  '/'.charCodeAt(0), ':'.charCodeAt(0), '='.charCodeAt(0), '?'.charCodeAt(0), '\\'.charCodeAt(0),
  0x7f, '{'.charCodeAt(0), '['.charCodeAt(0), ']'.charCodeAt(0), '^'.charCodeAt(0),
]);

export function escapePartitionValue(value: string): string {
  let out = '';
  for (const ch of value) {
    const c = ch.charCodeAt(0);
    out += ch.length === 1 && ESCAPED.has(c) ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : ch;
  }
  return out;
}

export function unescapePartitionValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '%' && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) {
      out += String.fromCharCode(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else out += ch;
  }
  return out;
}

export interface PartitionLevel {
  /** field name for hive-style levels (`city=sf`), undefined otherwise */
  field?: string;
  value: string;
}

/** Splits a relative partition path into levels, unescaping url-encoded values when asked. */
export function parsePartitionPath(path: string, opts: { urlEncoded?: boolean } = {}): PartitionLevel[] {
  if (path === '') return [];
  return path.split('/').map((seg) => {
    const eq = seg.indexOf('=');
    const raw = eq >= 0 ? seg.slice(eq + 1) : seg;
    const value = opts.urlEncoded ? unescapePartitionValue(raw) : raw;
    return eq >= 0 ? { field: seg.slice(0, eq), value } : { value };
  });
}

export function formatPartitionPath(levels: PartitionLevel[], opts: { urlEncode?: boolean } = {}): string {
  return levels
    .map((l) => {
      const v = opts.urlEncode ? escapePartitionValue(l.value) : l.value;
      return l.field === undefined ? v : `${l.field}=${v}`;
    })
    .join('/');
}
