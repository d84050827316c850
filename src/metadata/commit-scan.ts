// The write refs of a JSON commit file (fileId, path, prevCommit, partitionPath of each stat) read
// straight off the bytes: the file is validated as strictly as JSON.parse does, but no string of the
// whole file and no object per stat field is built — a 200,000-file table's commits are ~200 MB of
// JSON, and JSON.parse's tree of them costs more in the GC than in parsing. Anything this scanner is
// not sure about (bad syntax, deep nesting) makes it give up, and the caller decodes the ordinary way
// (which reports the error). Results are what JSON.parse + visitWriteRefs' rules give.

const MAX_DEPTH = 512;

// per stat, for each of the four fields: start, end (byte offsets inside the quotes), kind
const FIELDS = ['fileId', 'path', 'prevCommit', 'partitionPath'] as const;
const ABSENT = 0; // absent or not a string: null, as strOrNull reads it
const PLAIN = 1; // ASCII without escapes
const DECODE = 2; // escapes or non-ASCII bytes: decoded the way JSON.parse would
const FIELD_BYTES = FIELDS.map((f) => Buffer.from(f, 'latin1'));

// what a container (or the value about to start) is to the scanner
const OTHER = 0;
const TOP = 1;
const STATS_MAP = 2; // partitionToWriteStats
const STATS_LIST = 3; // one partition's array of stats
const STAT = 4; // one stat object
const REPLACE = 5; // partitionToReplaceFileIds (captured whole)
const OPERATION = 6; // operationType (captured whole)

// scanner states
const VALUE = 0;
const KEY_OR_END = 1;
const KEY = 2;
const VALUE_OR_END = 3;
const AFTER = 4;

/** One key of partitionToWriteStats: its name and the stats (indexes into the table) of its array. */
interface PartitionEntry {
  key: string;
  /** first and last+1 stat index; from = to = -1 when the value is not an array */
  from: number;
  to: number;
}

export interface ScannedRefs {
  /** the file's bytes */
  buf: Buffer;
  /** partitionToWriteStats entries in document order (undefined when absent or not an object) */
  partitions?: PartitionEntry[];
  /** the stat table: 12 ints per stat */
  stats: Int32Array;
  /** the raw partitionToReplaceFileIds value (its last occurrence), when the key is present */
  replace?: string;
  /** the raw operationType value (its last occurrence), when the key is present */
  operation?: string;
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/**
 * Scans a JSON commit file as one loop over its bytes (no call per token: 200 MB of JSON go through
 * it); undefined when it is not valid JSON (or nests deeper than 512) — decode it the ordinary way.
 */
export function scanCommitJson(bytes: Uint8Array): ScannedRefs | undefined {
  const b = bytes;
  const n = b.length;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const kinds = new Uint8Array(MAX_DEPTH + 2); // 1 object, 2 array
  const roles = new Uint8Array(MAX_DEPTH + 2);
  let stats = new Int32Array(1 << 14);
  let statInts = 0;
  let partitions: PartitionEntry[] | undefined;
  let entry: PartitionEntry | undefined;
  let replace: string | undefined;
  let replaceStart = -1;
  let operation: string | undefined;
  let operationStart = -1;
  let depth = 0;
  let state = VALUE;
  /** role of the value about to start */
  let next = TOP;
  /** stat field the value about to start is for (-1: none), and the stat's table offset */
  let field = -1;
  let statAt = 0;
  let p = 0;
  let c = 0;
  // the last string read: offsets of its quotes, escapes, non-ASCII bytes
  let qs = 0;
  let qe = 0;
  let esc = false;
  let hi = false;
  const key = () => (esc ? (JSON.parse(buf.toString('utf8', qs, qe + 1)) as string) : buf.toString(hi ? 'utf8' : 'latin1', qs + 1, qe));

  for (;;) {
    // whitespace
    while (p < n && ((c = b[p]!) === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
    if (p >= n) return undefined;
    c = b[p]!;
    if (state === AFTER) {
      if (c === 0x2c) {
        p++;
        if (kinds[depth] === 1) state = KEY;
        else {
          state = VALUE;
          next = roles[depth] === STATS_LIST ? STAT : OTHER;
        }
        continue;
      }
      if ((c === 0x7d && kinds[depth] === 1) || (c === 0x5d && kinds[depth] === 2)) {
        p++;
        if (roles[depth] === STATS_LIST) entry!.to = statInts / 12;
        depth--;
        if (depth === 1 && replaceStart >= 0) {
          replace = buf.toString('utf8', replaceStart, p);
          replaceStart = -1;
        }
        if (depth === 1 && operationStart >= 0) {
          operation = buf.toString('utf8', operationStart, p);
          operationStart = -1;
        }
        if (depth === 0) break;
        continue;
      }
      return undefined;
    }
    if (state === KEY_OR_END || state === VALUE_OR_END) {
      if ((state === KEY_OR_END && c === 0x7d) || (state === VALUE_OR_END && c === 0x5d)) {
        state = AFTER;
        continue; // the close is handled as after a value
      }
      if (state === VALUE_OR_END) {
        state = VALUE;
        next = roles[depth] === STATS_LIST ? STAT : OTHER;
      } else state = KEY;
    }
    if (state === KEY) {
      if (c !== 0x22) return undefined;
      // a key: read it, then decide what its value is
      qs = p++;
      esc = false;
      hi = false;
      for (;;) {
        const d = b[p];
        if (d === undefined || d < 0x20) return undefined;
        if (d === 0x22) break;
        if (d === 0x5c) {
          esc = true;
          const e = b[p + 1];
          if (e === 0x75) {
            if (!isHex(b[p + 2]) || !isHex(b[p + 3]) || !isHex(b[p + 4]) || !isHex(b[p + 5])) return undefined;
            p += 6;
          } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) p += 2;
          else return undefined;
          continue;
        }
        if (d >= 0x80) hi = true;
        p++;
      }
      qe = p++;
      const role = roles[depth];
      next = OTHER;
      field = -1;
      if (role === STAT) {
        if (esc) field = (FIELDS as readonly string[]).indexOf(key());
        else {
          const len = qe - qs - 1;
          for (let f = 0; f < 4 && field < 0; f++) {
            const fb = FIELD_BYTES[f]!;
            if (fb.length !== len) continue;
            let k = 0;
            while (k < len && b[qs + 1 + k] === fb[k]) k++;
            if (k === len) field = f;
          }
        }
      } else if (role === TOP) {
        const k = key();
        if (k === 'partitionToWriteStats') next = STATS_MAP;
        else if (k === 'partitionToReplaceFileIds') next = REPLACE;
        else if (k === 'operationType') next = OPERATION;
      } else if (role === STATS_MAP) {
        entry = { key: key(), from: -1, to: -1 };
        partitions!.push(entry);
        next = STATS_LIST;
      }
      while (p < n && ((c = b[p]!) === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
      if (b[p] !== 0x3a) return undefined;
      p++;
      state = VALUE;
      continue;
    }
    // state VALUE: a value starts at p, its role in `next` (and `field` for a stat field's value)
    const role = next;
    next = OTHER;
    if (role === STAT) {
      // every element of a stats array is a stat (a non-object one has null fields)
      if (statInts + 12 > stats.length) {
        const grown = new Int32Array(stats.length * 2);
        grown.set(stats);
        stats = grown;
      }
      statAt = statInts;
      stats.fill(0, statInts, statInts + 12);
      statInts += 12;
    }
    if (role === REPLACE) replaceStart = p;
    if (role === OPERATION) operationStart = p;
    const f = field;
    field = -1;
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_DEPTH) return undefined;
      if (f >= 0) stats[statAt + f * 3 + 2] = ABSENT;
      depth++;
      kinds[depth] = c === 0x7b ? 1 : 2;
      let r = OTHER;
      if (role === TOP && c === 0x7b) r = TOP;
      else if (role === STATS_MAP) {
        partitions = c === 0x7b ? [] : undefined;
        if (c === 0x7b) r = STATS_MAP;
      } else if (role === STATS_LIST && c === 0x5b) {
        entry!.from = entry!.to = statInts / 12;
        r = STATS_LIST;
      } else if (role === STAT && c === 0x7b) r = STAT;
      roles[depth] = r;
      p++;
      state = c === 0x7b ? KEY_OR_END : VALUE_OR_END;
      if (role === TOP && c !== 0x7b) return undefined; // the top value must be an object
      continue;
    }
    if (role === TOP) return undefined;
    if (role === STATS_MAP) partitions = undefined;
    if (c === 0x22) {
      const start = p++;
      let e2 = false;
      let h2 = false;
      for (;;) {
        const d = b[p];
        if (d === undefined || d < 0x20) return undefined;
        if (d === 0x22) break;
        if (d === 0x5c) {
          e2 = true;
          const e = b[p + 1];
          if (e === 0x75) {
            if (!isHex(b[p + 2]) || !isHex(b[p + 3]) || !isHex(b[p + 4]) || !isHex(b[p + 5])) return undefined;
            p += 6;
          } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) p += 2;
          else return undefined;
          continue;
        }
        if (d >= 0x80) h2 = true;
        p++;
      }
      if (f >= 0) {
        stats[statAt + f * 3] = start + 1;
        stats[statAt + f * 3 + 1] = p;
        stats[statAt + f * 3 + 2] = e2 || h2 ? DECODE : PLAIN;
      }
      p++;
    } else {
      if (f >= 0) stats[statAt + f * 3 + 2] = ABSENT;
      if (c === 0x74) {
        if (b[p + 1] !== 0x72 || b[p + 2] !== 0x75 || b[p + 3] !== 0x65) return undefined;
        p += 4;
      } else if (c === 0x66) {
        if (b[p + 1] !== 0x61 || b[p + 2] !== 0x6c || b[p + 3] !== 0x73 || b[p + 4] !== 0x65) return undefined;
        p += 5;
      } else if (c === 0x6e) {
        if (b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) return undefined;
        p += 4;
      } else {
        // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        if (c === 0x2d) p++;
        if (b[p] === 0x30) p++;
        else if (isDigit(b[p]) && b[p] !== 0x30) while (isDigit(b[p])) p++;
        else return undefined;
        if (b[p] === 0x2e) {
          p++;
          if (!isDigit(b[p])) return undefined;
          while (isDigit(b[p])) p++;
        }
        if (b[p] === 0x65 || b[p] === 0x45) {
          p++;
          if (b[p] === 0x2b || b[p] === 0x2d) p++;
          if (!isDigit(b[p])) return undefined;
          while (isDigit(b[p])) p++;
        }
      }
    }
    if (depth === 1 && replaceStart >= 0) {
      replace = buf.toString('utf8', replaceStart, p);
      replaceStart = -1;
    }
    if (depth === 1 && operationStart >= 0) {
      operation = buf.toString('utf8', operationStart, p);
      operationStart = -1;
    }
    state = AFTER;
  }
  // after the top object: only whitespace
  while (p < n && ((c = b[p]!) === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
  if (p !== n) return undefined;
  return { buf, partitions, stats: stats.subarray(0, statInts), ...(replace !== undefined ? { replace } : {}), ...(operation !== undefined ? { operation } : {}) };
}

// Buffer#latin1Slice: what toString('latin1', …) ends in, without its argument handling (~4× faster per call)
type Latin1 = { latin1Slice(start: number, end: number): string };

/**
 * Reads field `f` of each stat as strOrNull reads it. With `repeats` (a partition path, a previous
 * commit), a value equal to the previous stat's is that same string, not a new one.
 */
export function scannedFieldReader(sc: ScannedRefs, f: number, repeats: boolean): (i: number) => string | null {
  const { buf, stats } = sc;
  let lastStart = -1;
  let lastEnd = -1;
  let last: string | null = null;
  return (i) => {
    const at = i * 12 + f * 3;
    const kind = stats[at + 2];
    if (kind === ABSENT) return null;
    const start = stats[at]!;
    const end = stats[at + 1]!;
    if (kind !== PLAIN) return JSON.parse(buf.toString('utf8', start - 1, end + 1)) as string;
    if (repeats && lastStart >= 0 && end - start === lastEnd - lastStart) {
      let k = 0;
      const len = end - start;
      while (k < len && buf[start + k] === buf[lastStart + k]) k++;
      if (k === len) return last;
    }
    lastStart = start;
    lastEnd = end;
    return (last = (buf as unknown as Latin1).latin1Slice(start, end));
  };
}

export const FIELD_INDEX = { fileId: 0, path: 1, prevCommit: 2, partitionPath: 3 } as const;

// Every branch of the scanner once, at load: V8 then optimizes it with complete type feedback instead of
// deoptimizing (and running interpreted until the next compile) at each branch the first commit file
// reaches late — a 50 MB file is scanned only once.
scanCommitJson(
  Buffer.from(
    '{"partitionToWriteStats":{"p\\u00e9":[{"fileId":"a\\n","path":"p/.a_1.log.1_0-1-1","prevCommit":null,"partitionPath":"p","numWrites":-1.5e+3,"x":[true,false,{}],"y":[]},7,{}],"q":null},' +
      '"partitionToReplaceFileIds":{"p":["a"]},"compacted":false,"extraMetadata":{"s":"\\"é"},"z":0.25E-1}\n',
  ),
);
