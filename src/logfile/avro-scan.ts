// Reading a few top-level fields of Avro records straight from their bytes (issue 6): every other field
// is skipped, and every field is checked the way avsc's decoder reads it (union and enum indices, long
// precision, lengths), so a record this reader accepts decodes with avsc to the same values. Whatever it
// cannot vouch for (a wanted field of another type, a count it will not walk) it rejects, and the caller
// decodes those records with avsc, which stays the reference and words the errors.
import avro from 'avsc';
import { avroTypeFor } from './content.ts';

const enum K {
  NULL,
  BOOLEAN,
  INT,
  LONG,
  FLOAT,
  DOUBLE,
  BYTES,
  STRING,
  FIXED,
  ENUM,
  ARRAY,
  MAP,
  UNION,
  RECORD,
}

/** A compiled Avro type: what the skipper needs (named types shared, so recursive schemas are cycles). */
export interface AvroNode {
  k: K;
  /** FIXED: byte size; ENUM: symbol count; ARRAY: 1 when every item takes at least a byte, else 0 */
  n: number;
  /** ARRAY items, MAP values, UNION branches, RECORD fields */
  children: AvroNode[];
}

const PRIMITIVES: Record<string, K> = {
  null: K.NULL,
  boolean: K.BOOLEAN,
  int: K.INT,
  long: K.LONG,
  // avroTypeFor's long (numbers, bigints beyond 2^53): read here as avsc's long, unsafe values rejected
  'abstract:long': K.LONG,
  float: K.FLOAT,
  double: K.DOUBLE,
  bytes: K.BYTES,
  string: K.STRING,
};

/** The node of an avsc Type; undefined for a logical type other than avroTypeFor's decimal. */
export function avroNodeOf(type: avro.Type, seen = new Map<avro.Type, AvroNode>()): AvroNode | undefined {
  const known = seen.get(type);
  if (known) return known;
  const name = type.typeName;
  const prim = PRIMITIVES[name];
  if (prim !== undefined) return { k: prim, n: 0, children: [] };
  // decimal reads its bytes/fixed and converts them without ever failing: the underlying type's bytes
  if (name === 'logical:decimal') return avroNodeOf((type as avro.types.LogicalType).underlyingType, seen);
  const node: AvroNode = { k: K.NULL, n: 0, children: [] };
  seen.set(type, node);
  const all = (ts: avro.Type[]): boolean => {
    for (const t of ts) {
      const c = avroNodeOf(t, seen);
      if (!c) return false;
      node.children.push(c);
    }
    return true;
  };
  let ok: boolean;
  switch (name) {
    case 'record':
    case 'error':
      node.k = K.RECORD;
      ok = all((type as avro.types.RecordType).fields.map((f) => f.type));
      break;
    case 'enum':
      node.k = K.ENUM;
      node.n = (type as avro.types.EnumType).symbols.length;
      ok = true;
      break;
    case 'fixed':
      node.k = K.FIXED;
      node.n = (type as avro.types.FixedType).size;
      ok = true;
      break;
    case 'array':
      node.k = K.ARRAY;
      ok = all([(type as avro.types.ArrayType).itemsType]);
      if (ok) node.n = takesBytes(node.children[0]!) ? 1 : 0;
      break;
    case 'map':
      node.k = K.MAP;
      ok = all([(type as avro.types.MapType).valuesType as avro.Type]);
      node.n = 1; // every entry has its key's length
      break;
    case 'union:unwrapped':
    case 'union:wrapped':
      node.k = K.UNION;
      ok = all((type as avro.types.UnwrappedUnionType).types);
      break;
    default:
      ok = false;
  }
  return ok ? node : undefined;
}

/** Does every value of this node take at least one byte? (records still being compiled count as none) */
function takesBytes(node: AvroNode, open = new Set<AvroNode>()): boolean {
  switch (node.k) {
    case K.NULL:
      return false;
    case K.FIXED:
      return node.n > 0;
    case K.RECORD:
      if (open.has(node)) return false;
      open.add(node);
      try {
        return node.children.some((c) => takesBytes(c, open));
      } finally {
        open.delete(node);
      }
    default:
      return true;
  }
}

// Varints exactly as avsc's Tap.readLong computes them (float arithmetic past 28 bits: what avsc's int
// reader, lengths and counts get); `at` is the position after the varint, -1 when it runs past `end`.
let at = 0;

function readLong(b: Uint8Array, pos: number, end: number): number {
  let n = 0;
  let k = 0;
  let x: number;
  let h: number;
  do {
    if (pos >= end) return (at = -1);
    x = b[pos++]!;
    h = x & 0x80;
    n |= (x & 0x7f) << k;
    k += 7;
  } while (h && k < 28);
  if (h) {
    let f = n;
    let fk = 268435456;
    do {
      if (pos >= end) return (at = -1);
      x = b[pos++]!;
      f += (x & 0x7f) * fk;
      fk *= 128;
    } while (x & 0x80);
    at = pos;
    return (f % 2 ? -(f + 1) : f) / 2;
  }
  at = pos;
  return (n >> 1) ^ -(n & 1);
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A long as avroTypeFor's long decodes it: a number while exact, a bigint beyond 2^53 (avsc's
 * unpackLongBytes keeps 64 bits). Up to 7 bytes (49 bits) readLong's float sums are exact.
 */
function readLong64(b: Uint8Array, pos: number, end: number): number | bigint {
  const v = readLong(b, pos, end);
  if (at < 0 || at - pos <= 7) return v;
  let u = 0n;
  for (let i = at - 1; i >= pos; i--) u = (u << 7n) | BigInt(b[i]! & 0x7f);
  u &= (1n << 64n) - 1n;
  const x = BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
  return x >= MIN_SAFE && x <= MAX_SAFE ? Number(x) : x;
}

// Buffer#utf8Slice, what avsc's readString calls when there is one (Buffer#toString checks arguments around it)
type Utf8Sliced = Buffer & { utf8Slice?: (start: number, end: number) => string };
export const utf8Slice: (b: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Utf8Sliced).utf8Slice === 'function' ? (b, s, e) => (b as Utf8Sliced).utf8Slice!(s, e) : (b, s, e) => b.toString('utf8', s, e);

function skipVarint(b: Uint8Array, pos: number, end: number): number {
  while (pos < end) if ((b[pos++]! & 0x80) === 0) return pos;
  return -1;
}

const ZERO_SIZE_ITEMS = 1 << 16;

/** A length-prefixed value (bytes, string, map key): the position after it, or -1. */
function skipSized(b: Uint8Array, pos: number, end: number): number {
  if (pos < end) {
    // a length under 64: one varint byte (odd bytes are negative lengths)
    const x = b[pos]!;
    if (x < 0x80) return (x & 1) === 0 && x >> 1 <= end - pos - 1 ? pos + 1 + (x >> 1) : -1;
  }
  const len = readLong(b, pos, end);
  if (at < 0 || len < 0 || len > end - at) return -1;
  return at + len;
}

/**
 * The position right after the value of `node` at `pos`, reading no byte at or past `end`; -1 when the
 * bytes are not a value avsc would decode, or one this skipper does not walk (a block count larger
 * than the bytes left: only items of zero bytes could fill it).
 */
export function skipAvro(node: AvroNode, b: Uint8Array, pos: number, end: number): number {
  switch (node.k) {
    case K.NULL:
      return pos;
    case K.BOOLEAN:
      return pos < end ? pos + 1 : -1;
    case K.INT:
      if (pos < end && b[pos]! < 0x80) return pos + 1;
      return skipVarint(b, pos, end);
    case K.LONG:
      // avroTypeFor's long takes any varint (bigints beyond 2^53)
      if (pos < end && b[pos]! < 0x80) return pos + 1;
      return skipVarint(b, pos, end);
    case K.FLOAT:
      return end - pos >= 4 ? pos + 4 : -1;
    case K.DOUBLE:
      return end - pos >= 8 ? pos + 8 : -1;
    case K.BYTES:
    case K.STRING:
      return skipSized(b, pos, end);
    case K.FIXED:
      return end - pos >= node.n ? pos + node.n : -1;
    case K.ENUM: {
      const i = readLong(b, pos, end);
      return at >= 0 && i >= 0 && i < node.n ? at : -1;
    }
    case K.UNION: {
      const i = readLong(b, pos, end);
      if (at < 0 || !(i >= 0 && i < node.children.length)) return -1;
      return skipAvro(node.children[i]!, b, at, end);
    }
    case K.RECORD: {
      const fs = node.children;
      for (let i = 0; i < fs.length && pos >= 0; i++) pos = skipAvro(fs[i]!, b, pos, end);
      return pos;
    }
    case K.ARRAY:
    case K.MAP: {
      const item = node.children[0]!;
      const isMap = node.k === K.MAP;
      for (;;) {
        let n = readLong(b, pos, end);
        if (at < 0) return -1;
        pos = at;
        if (n === 0) return pos;
        if (n < 0) {
          // a block with its byte size: avsc's decoder reads the items and ignores the size
          n = -n;
          pos = skipVarint(b, pos, end);
          if (pos < 0) return -1;
        }
        // items of at least one byte cannot outnumber the bytes left; items of none (null, empty
        // records) are walked up to a bound, past it avsc's decoder decides
        if (n > (node.n === 0 ? ZERO_SIZE_ITEMS : end - pos)) return -1;
        for (let i = 0; i < n && pos >= 0; i++) {
          if (isMap) pos = skipSized(b, pos, end);
          if (pos >= 0) pos = skipAvro(item, b, pos, end);
        }
        if (pos < 0) return -1;
      }
    }
  }
}

// How a wanted field's value is read: a primitive, or a union of null and one primitive.
const enum R {
  NULL,
  BOOLEAN,
  INT,
  LONG,
  FLOAT,
  DOUBLE,
  STRING,
}

const READABLE: Partial<Record<K, R>> = {
  [K.NULL]: R.NULL,
  [K.BOOLEAN]: R.BOOLEAN,
  [K.INT]: R.INT,
  [K.LONG]: R.LONG,
  [K.FLOAT]: R.FLOAT,
  [K.DOUBLE]: R.DOUBLE,
  [K.STRING]: R.STRING,
};

/** The top-level fields of one writer schema: which to read (and how), which to skip. */
export interface AvroFieldPlan {
  /** the whole record (skipAvro over it checks a record as readAvroFields reads it) */
  record: AvroNode;
  /** the wanted fields the schema has, in the order values are written to `out` */
  names: string[];
  /** per top-level field: its node */
  fields: AvroNode[];
  /** per top-level field: index into names, or -1 to skip */
  slot: Int32Array;
  /** per top-level field read: value kind */
  read: R[];
  /** per top-level field read: the union branch holding null (-1: not a union), the other branch is the value */
  nullBranch: Int32Array;
}

function readableOf(type: avro.Type): { read: R; nullBranch: number } | undefined {
  // a logical type (decimal) converts its value: not read here
  if (type.typeName.startsWith('logical:')) return undefined;
  if (type.typeName === 'union:unwrapped') {
    const ts = (type as avro.types.UnwrappedUnionType).types;
    if (ts.length !== 2) return undefined;
    const nb = ts.findIndex((t) => t.typeName === 'null');
    if (nb < 0) return undefined;
    const other = readableOf(ts[1 - nb]!);
    if (!other || other.nullBranch >= 0) return undefined;
    return { read: other.read, nullBranch: nb };
  }
  const k = PRIMITIVES[type.typeName];
  const read = k === undefined ? undefined : READABLE[k];
  return read === undefined ? undefined : { read, nullBranch: -1 };
}

const plans = new Map<string, AvroFieldPlan | null>();

/**
 * The plan to read `wanted` top-level fields of records written with this schema, or undefined when
 * this reader does not handle it (the schema does not parse, is not a record, a wanted field is not a
 * primitive or a union of null and one primitive, a logical type other than decimal is met).
 */
export function avroFieldPlan(schemaJson: string, wanted: readonly string[]): AvroFieldPlan | undefined {
  const id = `${wanted.join('\u0000')}\u0001${schemaJson}`;
  let p = plans.get(id);
  if (p === undefined) {
    p = buildPlan(schemaJson, wanted) ?? null;
    if (plans.size > 256) plans.clear();
    plans.set(id, p);
  }
  return p ?? undefined;
}

function buildPlan(schemaJson: string, wanted: readonly string[]): AvroFieldPlan | undefined {
  let type: avro.Type;
  try {
    type = avroTypeFor(schemaJson);
  } catch {
    return undefined;
  }
  if (type.typeName !== 'record') return undefined;
  const rec = avroNodeOf(type);
  if (!rec) return undefined;
  const fields = (type as avro.types.RecordType).fields;
  const plan: AvroFieldPlan = { record: rec, names: [], fields: rec.children, slot: new Int32Array(fields.length).fill(-1), read: [], nullBranch: new Int32Array(fields.length).fill(-1) };
  for (const [i, f] of fields.entries()) {
    if (!wanted.includes(f.name)) continue;
    const r = readableOf(f.type);
    if (!r) return undefined;
    plan.slot[i] = plan.names.length;
    plan.names.push(f.name);
    plan.read[i] = r.read;
    plan.nullBranch[i] = r.nullBranch;
  }
  return plan;
}

/** A view of content for string decoding as avsc does it (Buffer#utf8Slice: U+FFFD for bad UTF-8). */
export function utf8View(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Reads one record in [start, end) of `b` (`buf` = utf8View(b)): the plan's wanted fields into
 * out[0..names.length) as avsc + plain() decode them, every other field skipped. False when the
 * record is not exactly a value avsc would decode (the caller falls back to avsc for the error).
 * The string field at slot `spanSlot` is not decoded: its UTF-8 bytes are at [span[0], span[1]).
 */
export function readAvroFields(plan: AvroFieldPlan, b: Uint8Array, buf: Buffer, start: number, end: number, out: unknown[], span?: Int32Array, spanSlot = -1): boolean {
  const { fields, slot } = plan;
  let pos = start;
  for (let i = 0; i < fields.length; i++) {
    const s = slot[i]!;
    if (s < 0) {
      pos = skipAvro(fields[i]!, b, pos, end);
      if (pos < 0) return false;
      continue;
    }
    const nb = plan.nullBranch[i]!;
    if (nb >= 0) {
      const br = readLong(b, pos, end);
      if (at < 0 || !(br === 0 || br === 1)) return false;
      pos = at;
      if (br === nb) {
        out[s] = null;
        continue;
      }
    }
    switch (plan.read[i]!) {
      case R.NULL:
        out[s] = null;
        break;
      case R.BOOLEAN:
        if (pos >= end) return false;
        out[s] = b[pos++] !== 0;
        break;
      case R.INT:
        out[s] = readLong(b, pos, end);
        if (at < 0) return false;
        pos = at;
        break;
      case R.LONG: {
        const v = readLong64(b, pos, end);
        if (at < 0) return false;
        out[s] = v;
        pos = at;
        break;
      }
      case R.FLOAT:
        if (end - pos < 4) return false;
        out[s] = buf.readFloatLE(pos);
        pos += 4;
        break;
      case R.DOUBLE:
        if (end - pos < 8) return false;
        out[s] = buf.readDoubleLE(pos);
        pos += 8;
        break;
      case R.STRING: {
        const len = readLong(b, pos, end);
        if (at < 0 || len < 0 || len > end - at) return false;
        if (s === spanSlot) {
          // its bytes instead of a string: out[s] = true, the bytes at [span[0], span[1])
          span![0] = at;
          span![1] = at + len;
          out[s] = true;
        } else out[s] = utf8Slice(buf, at, at + len);
        pos = at + len;
        break;
      }
    }
  }
  return pos === end;
}
