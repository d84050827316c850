// Avro object-container files (the encoding of every Avro instant file), framed by hand on Uint8Array and
// synchronous; avsc only encodes/decodes the datums. Any avsc failure becomes a TblError naming the path.
import type avro from 'avsc';
import { avsc } from './avsc.ts';

type Resolver = ReturnType<avro.Type['createResolver']>;
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { TblError } from '../errors/index.ts';

export type AvroType = avro.Type;

const MAGIC = [0x4f, 0x62, 0x6a, 0x01]; // "Obj\x01"

export interface AvroContainer {
  /** Parsed writer schema from the `avro.schema` header. */
  schema: object;
  /** Record name of the writer schema (e.g. "HoodieCommitMetadata"). */
  schemaName: string;
  records: unknown[];
}

export interface ReadAvroOptions {
  /** Resolve every record from the writer schema to this reader schema (by field name; reader defaults fill gaps). */
  readerSchema?: object;
}

export interface WriteAvroOptions {
  codec?: 'null' | 'deflate';
  /** Fixed 16-byte sync marker (tests); random otherwise, like Java's DataFileWriter. */
  sync?: Uint8Array;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function corrupt(path: string, reason: string, cause?: unknown): TblError {
  return new TblError('metadata', `${path}: truncated or corrupt Avro (${reason})`, { path, cause });
}

// Types are cached per schema object (constants) and per writer-schema JSON text (files).
const typeCache = new WeakMap<object, AvroType>();
const textTypeCache = new Map<string, AvroType>();
const resolverCache = new WeakMap<AvroType, WeakMap<AvroType, Resolver>>();

function wrapOption(schema: object): 'auto' | false {
  // Unions of several record branches (HoodieDeleteRecord.orderingVal) cannot be unwrapped.
  return (schema as { name?: string }).name === 'HoodieDeleteRecordList' ? 'auto' : false;
}

/** avsc Type for a schema constant, built on first use and cached. */
export function avroType(schema: object): AvroType {
  let t = typeCache.get(schema);
  if (!t) {
    t = avsc().Type.forSchema(schema as avro.Schema, { wrapUnions: wrapOption(schema) });
    typeCache.set(schema, t);
  }
  return t;
}

/** Writer defaults never matter for decoding; dropping them lets us read schemas with defaults avsc rejects. */
function stripDefaults(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(stripDefaults);
  if (s !== null && typeof s === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) if (k !== 'default') out[k] = stripDefaults(v);
    return out;
  }
  return s;
}

function writerType(text: string, parsed: object): AvroType {
  let t = textTypeCache.get(text);
  if (!t) {
    t = avsc().Type.forSchema(stripDefaults(parsed) as avro.Schema, { wrapUnions: wrapOption(parsed) });
    if (textTypeCache.size > 256) textTypeCache.clear();
    textTypeCache.set(text, t);
  }
  return t;
}

function resolverFor(reader: AvroType, writer: AvroType): Resolver {
  let m = resolverCache.get(reader);
  if (!m) resolverCache.set(reader, (m = new WeakMap()));
  let r = m.get(writer);
  if (!r) m.set(writer, (r = reader.createResolver(writer)));
  return r;
}

/** Reads a zig-zag varint long (safe-integer range). */
function readLong(buf: Uint8Array, pos: number, path: string): [number, number] {
  let n = 0;
  let mul = 1;
  for (;;) {
    if (pos >= buf.length) throw corrupt(path, 'unexpected end of file');
    const b = buf[pos++]!;
    n += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) break;
    mul *= 128;
    if (mul > 2 ** 63) throw corrupt(path, 'varint too long');
  }
  return [n % 2 === 0 ? n / 2 : -(n + 1) / 2, pos];
}

function writeLong(out: number[], v: number): void {
  let n = v >= 0 ? v * 2 : -v * 2 - 1;
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
}

function readBytes(buf: Uint8Array, pos: number, path: string): [Uint8Array, number] {
  const [len, p] = readLong(buf, pos, path);
  if (len < 0 || p + len > buf.length) throw corrupt(path, 'unexpected end of file');
  return [buf.subarray(p, p + len), p + len];
}

export function isAvroContainer(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && MAGIC.every((b, i) => bytes[i] === b);
}

interface Header {
  meta: Map<string, Uint8Array>;
  sync: Uint8Array;
  end: number;
}

function readHeader(buf: Uint8Array, path: string): Header {
  if (!isAvroContainer(buf)) throw corrupt(path, 'missing Obj\\x01 magic');
  const meta = new Map<string, Uint8Array>();
  let pos = 4;
  for (;;) {
    let count: number;
    [count, pos] = readLong(buf, pos, path);
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      [, pos] = readLong(buf, pos, path); // block byte size, unused
    }
    for (let i = 0; i < count; i++) {
      let k: Uint8Array;
      let v: Uint8Array;
      [k, pos] = readBytes(buf, pos, path);
      [v, pos] = readBytes(buf, pos, path);
      meta.set(asBuffer(k).toString('utf8'), v); // a view: no copy of the key bytes
    }
  }
  if (pos + 16 > buf.length) throw corrupt(path, 'unexpected end of file in header');
  return { meta, sync: buf.subarray(pos, pos + 16), end: pos + 16 };
}

// Every instant file of a timeline embeds the same few schema texts: parse each once. The last
// schema's raw bytes are compared first, which is much cheaper than decoding and hashing the text.
const parsedSchemas = new Map<string, object>();
let last: { raw: Buffer; text: string; schema: object } | undefined;

function parseSchema(meta: Map<string, Uint8Array>, path: string): { text: string; schema: object } {
  const raw = meta.get('avro.schema');
  if (!raw) throw corrupt(path, 'no avro.schema in header');
  if (last && last.raw.equals(raw)) return last;
  const text = Buffer.from(raw).toString('utf8');
  const cached = parsedSchemas.get(text);
  if (cached) {
    last = { raw: Buffer.from(raw), text, schema: cached };
    return last;
  }
  try {
    const schema = JSON.parse(text) as unknown;
    if (schema === null || typeof schema !== 'object') throw new Error('schema is not an object');
    if (parsedSchemas.size > 256) parsedSchemas.clear();
    parsedSchemas.set(text, schema);
    last = { raw: Buffer.from(raw), text, schema };
    return last;
  } catch (e) {
    throw corrupt(path, 'unparseable avro.schema header', e);
  }
}

function nameOf(schema: object): string {
  const n = (schema as { name?: unknown }).name;
  if (typeof n !== 'string') return Array.isArray(schema) ? 'union' : String((schema as { type?: unknown }).type);
  const i = n.lastIndexOf('.');
  return i >= 0 ? n.slice(i + 1) : n;
}

/** Record name embedded in an Avro container's header, or null when `bytes` is not an Avro container. */
export function schemaRecordName(bytes: Uint8Array, ctx: { path: string } = { path: '<bytes>' }): string | null {
  if (!isAvroContainer(bytes)) return null;
  return nameOf(parseSchema(readHeader(bytes, ctx.path).meta, ctx.path).schema);
}

export function readAvroContainer(bytes: Uint8Array, ctx: { path: string }, opts: ReadAvroOptions = {}): AvroContainer {
  const path = ctx.path;
  const buf = asBuffer(bytes);
  const { meta, sync, end } = readHeader(buf, path);
  const { text, schema } = parseSchema(meta, path);
  const codec = meta.has('avro.codec') ? Buffer.from(meta.get('avro.codec')!).toString('utf8') : 'null';
  if (codec !== 'null' && codec !== 'deflate') {
    throw new TblError('unsupported', `${path}: unsupported Avro codec ${codec}`, { path });
  }
  let wType: AvroType;
  try {
    wType = writerType(text, schema);
  } catch (e) {
    throw corrupt(path, `invalid writer schema: ${(e as Error).message}`, e);
  }
  let rType = wType;
  let resolver: Resolver | undefined;
  if (opts.readerSchema) {
    rType = avroType(opts.readerSchema);
    try {
      resolver = resolverFor(rType, wType);
    } catch (e) {
      throw new TblError(
        'metadata',
        `${path}: writer schema ${nameOf(schema)} cannot be read as ${nameOf(opts.readerSchema)}: ${(e as Error).message}`,
        { path, cause: e },
      );
    }
  }
  const records: unknown[] = [];
  let pos = end;
  while (pos < buf.length) {
    let count: number;
    let size: number;
    [count, pos] = readLong(buf, pos, path);
    [size, pos] = readLong(buf, pos, path);
    if (count < 0 || size < 0 || pos + size + 16 > buf.length) throw corrupt(path, 'unexpected end of file in data block');
    let data: Buffer = buf.subarray(pos, pos + size);
    pos += size;
    if (!Buffer.from(buf.subarray(pos, pos + 16)).equals(sync)) throw corrupt(path, 'sync marker mismatch');
    pos += 16;
    if (codec === 'deflate') {
      try {
        data = inflateRawSync(data);
      } catch (e) {
        throw corrupt(path, 'bad deflate block', e);
      }
    }
    let p = 0;
    for (let i = 0; i < count; i++) {
      let res: { value: unknown; offset: number };
      try {
        res = resolver ? rType.decode(data, p, resolver) : rType.decode(data, p);
      } catch (e) {
        throw corrupt(path, `record ${records.length}: ${(e as Error).message}`, e);
      }
      if (res.offset < 0) throw corrupt(path, `record ${records.length} runs past its block`);
      records.push(res.value);
      p = res.offset;
    }
    if (p !== data.length) throw corrupt(path, 'block size does not match its records');
  }
  return { schema, schemaName: nameOf(schema), records };
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** One-block Avro container like Hudi's TimelineMetadataUtils.serializeAvroMetadata (header: avro.schema only). */
export function writeAvroContainer(schema: object, records: unknown[], opts: WriteAvroOptions = {}): Uint8Array {
  const type = avroType(schema);
  const sync = opts.sync ?? randomBytes(16);
  if (sync.length !== 16) throw new TblError('bug', 'Avro sync marker must be 16 bytes');
  const head: number[] = [...MAGIC];
  const meta: [string, Uint8Array][] = [['avro.schema', Buffer.from(JSON.stringify(schema), 'utf8')]];
  if (opts.codec === 'deflate') meta.push(['avro.codec', Buffer.from('deflate')]);
  writeLong(head, meta.length);
  for (const [k, v] of meta) {
    const kb = Buffer.from(k, 'utf8');
    writeLong(head, kb.length);
    head.push(...kb);
    writeLong(head, v.length);
    head.push(...v);
  }
  writeLong(head, 0);
  const out: Uint8Array[] = [Uint8Array.from(head), sync];
  if (records.length > 0) {
    let data: Uint8Array;
    try {
      data = Buffer.concat(records.map((r) => type.toBuffer(r)));
    } catch (e) {
      throw new TblError('metadata', `cannot encode ${nameOf(schema)}: ${(e as Error).message}`, { cause: e });
    }
    if (opts.codec === 'deflate') data = deflateRawSync(data);
    const blk: number[] = [];
    writeLong(blk, records.length);
    writeLong(blk, data.length);
    out.push(Uint8Array.from(blk), data, sync);
  }
  return concat(out);
}

export type ContentKind = 'empty' | 'avro' | 'json';

/** What an instant file holds: nothing, an Avro container, or JSON (layout-1 commit metadata). */
export function sniffContent(bytes: Uint8Array, ctx: { path: string } = { path: '<bytes>' }): ContentKind {
  if (bytes.length === 0) return 'empty';
  if (isAvroContainer(bytes)) return 'avro';
  for (const b of bytes) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    if (b === 0x7b) return 'json';
    break;
  }
  throw new TblError('metadata', `${ctx.path}: not Avro or JSON instant content`, { path: ctx.path });
}

// ---- Reading chosen fields straight off the bytes (commits show on 20k Avro instants) ----
// avsc builds every record, string and map of a datum; a listing that needs a few numbers per file
// spent most of its time there and in the GC. These helpers skip what is not needed. They never
// throw: anything unexpected (bad framing, a value avsc would reject) gives up with GIVE_UP / undefined
// and the caller decodes the file the ordinary way, which reports the error.

export const GIVE_UP = -1;

/** A skipper: the position after the datum at p, or GIVE_UP. */
export type AvroSkip = (b: Uint8Array, p: number) => number;

/** Value of the last readVarLong (zig-zag decoded). */
export let varLongValue = 0;

/** Reads a zig-zag varint long; GIVE_UP past the end or beyond the safe-integer range. */
export function readVarLong(b: Uint8Array, p: number): number {
  let n = 0;
  let mul = 1;
  for (;;) {
    const c = b[p++];
    if (c === undefined) return GIVE_UP;
    n += (c & 0x7f) * mul;
    if ((c & 0x80) === 0) break;
    mul *= 128;
    if (mul > 2 ** 49) return GIVE_UP;
  }
  if (n > Number.MAX_SAFE_INTEGER) return GIVE_UP;
  varLongValue = n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  return p;
}

/** Named types of a schema (records, enums, fixed), by full and short name. */
export function avroNamedTypes(schema: unknown, out = new Map<string, Record<string, unknown>>(), ns?: string): Map<string, Record<string, unknown>> {
  if (Array.isArray(schema)) {
    for (const s of schema) avroNamedTypes(s, out, ns);
  } else if (schema !== null && typeof schema === 'object') {
    const s = schema as Record<string, unknown>;
    let inner = ns;
    if (typeof s.name === 'string' && (s.type === 'record' || s.type === 'error' || s.type === 'enum' || s.type === 'fixed')) {
      const space = typeof s.namespace === 'string' ? s.namespace : ns;
      const full = s.name.includes('.') ? s.name : space ? `${space}.${s.name}` : s.name;
      inner = full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : undefined;
      out.set(full, s);
      out.set(full.slice(full.lastIndexOf('.') + 1), s);
    }
    if (Array.isArray(s.fields)) for (const f of s.fields) avroNamedTypes((f as { type?: unknown }).type, out, inner);
    if (s.items !== undefined) avroNamedTypes(s.items, out, inner);
    if (s.values !== undefined) avroNamedTypes(s.values, out, inner);
    if (Array.isArray(s.type) || (s.type !== null && typeof s.type === 'object')) avroNamedTypes(s.type, out, inner);
  }
  return out;
}

/** The schema a type reference names (a string naming a defined type, or `{type: "<name>"}`), else itself. */
export function avroDeref(s: unknown, names: Map<string, Record<string, unknown>>): unknown {
  for (let i = 0; i < 8; i++) {
    if (typeof s === 'string' && names.has(s)) s = names.get(s);
    else if (s !== null && typeof s === 'object' && !Array.isArray(s) && typeof (s as { type?: unknown }).type === 'string' && names.has((s as { type: string }).type) && !('name' in s)) {
      s = names.get((s as { type: string }).type);
    } else return s;
  }
  return s;
}

/** Walks an array's or a map's blocks from p, `item` reading (or skipping) each item; the position after them. */
export function avroBlockItems(b: Uint8Array, p: number, item: AvroSkip): number {
  for (;;) {
    p = readVarLong(b, p);
    if (p < 0) return GIVE_UP;
    let count = varLongValue;
    if (count === 0) return p;
    if (count < 0) {
      count = -count;
      p = readVarLong(b, p); // block size in bytes
      if (p < 0 || varLongValue < 0) return GIVE_UP;
    }
    for (let i = 0; i < count; i++) {
      p = item(b, p);
      if (p < 0) return GIVE_UP;
    }
  }
}

export const skipAvroString: AvroSkip = (b, p) => {
  p = readVarLong(b, p);
  if (p < 0 || varLongValue < 0 || p + varLongValue > b.length) return GIVE_UP;
  return p + varLongValue;
};

/** Compiles a skipper for a writer schema; undefined for a schema it does not understand. */
export function compileAvroSkip(schema: unknown, names: Map<string, Record<string, unknown>>, memo = new Map<object, AvroSkip>()): AvroSkip | undefined {
  const s = avroDeref(schema, names);
  if (typeof s === 'string') {
    switch (s) {
      case 'null':
        return (_b, p) => p;
      case 'boolean':
        return (b, p) => (b[p] === 0 || b[p] === 1 ? p + 1 : GIVE_UP);
      case 'int':
      case 'long':
        return readVarLong;
      case 'float':
        return (b, p) => (p + 4 <= b.length ? p + 4 : GIVE_UP);
      case 'double':
        return (b, p) => (p + 8 <= b.length ? p + 8 : GIVE_UP);
      case 'bytes':
      case 'string':
        return skipAvroString;
      default:
        return undefined;
    }
  }
  if (Array.isArray(s)) {
    const branches = s.map((x) => compileAvroSkip(x, names, memo));
    if (branches.some((x) => x === undefined)) return undefined;
    return (b, p) => {
      p = readVarLong(b, p);
      if (p < 0) return GIVE_UP;
      const br = branches[varLongValue];
      return br === undefined ? GIVE_UP : br(b, p);
    };
  }
  if (s === null || typeof s !== 'object') return undefined;
  const o = s as Record<string, unknown>;
  const done = memo.get(o);
  if (done) return done;
  switch (o.type) {
    case 'record':
    case 'error': {
      if (!Array.isArray(o.fields)) return undefined;
      const fields: AvroSkip[] = [];
      // recursive records: refer to the skipper being built
      const self: AvroSkip = (b, p) => {
        for (let i = 0; i < fields.length && p >= 0; i++) p = fields[i]!(b, p);
        return p;
      };
      memo.set(o, self);
      for (const f of o.fields as { type?: unknown }[]) {
        const k = compileAvroSkip(f.type, names, memo);
        if (!k) return undefined;
        fields.push(k);
      }
      return self;
    }
    case 'enum': {
      const n = Array.isArray(o.symbols) ? o.symbols.length : 0;
      return (b, p) => {
        p = readVarLong(b, p);
        return p >= 0 && varLongValue >= 0 && varLongValue < n ? p : GIVE_UP;
      };
    }
    case 'fixed': {
      const size = o.size;
      if (typeof size !== 'number') return undefined;
      return (b, p) => (p + size <= b.length ? p + size : GIVE_UP);
    }
    case 'array': {
      const item = compileAvroSkip(o.items, names, memo);
      return item && ((b, p) => avroBlockItems(b, p, item));
    }
    case 'map': {
      const value = compileAvroSkip(o.values, names, memo);
      if (!value) return undefined;
      const entry: AvroSkip = (b, p) => {
        p = skipAvroString(b, p);
        return p < 0 ? GIVE_UP : value(b, p);
      };
      return (b, p) => avroBlockItems(b, p, entry);
    }
    default:
      // a primitive written as {"type": "long", ...}
      return typeof o.type === 'string' && !names.has(o.type) ? compileAvroSkip(o.type, names, memo) : undefined;
  }
}

export interface AvroBlocks {
  /** Parsed writer schema (one object per distinct schema text: usable as a cache key). */
  schema: object;
  /** its record name, without namespace */
  name: string;
  blocks: { count: number; data: Uint8Array }[];
}

/**
 * The writer schema and the (inflated) data blocks of a container, after the same header, schema
 * resolution and framing checks readAvroContainer makes; undefined when any of them fails.
 */
export function avroContainerBlocks(
  bytes: Uint8Array,
  ctx: { path: string },
  /** the reader schema for the writer's record name; undefined: not a container the caller wants */
  readerFor?: (recordName: string) => object | undefined,
): AvroBlocks | undefined {
  try {
    const path = ctx.path;
    const buf = asBuffer(bytes);
    const { meta, sync, end } = readHeader(buf, path);
    const { text, schema } = parseSchema(meta, path);
    const name = nameOf(schema);
    const readerSchema = readerFor?.(name);
    if (readerFor && !readerSchema) return undefined;
    const codec = meta.has('avro.codec') ? Buffer.from(meta.get('avro.codec')!).toString('utf8') : 'null';
    if (codec !== 'null' && codec !== 'deflate') return undefined;
    const wType = writerType(text, schema);
    if (readerSchema) resolverFor(avroType(readerSchema), wType);
    const blocks: AvroBlocks['blocks'] = [];
    let pos = end;
    while (pos < buf.length) {
      let count: number;
      let size: number;
      [count, pos] = readLong(buf, pos, path);
      [size, pos] = readLong(buf, pos, path);
      if (count < 0 || size < 0 || pos + size + 16 > buf.length) return undefined;
      let data: Buffer = buf.subarray(pos, pos + size);
      pos += size;
      for (let k = 0; k < 16; k++) if (buf[pos + k] !== sync[k]) return undefined;
      pos += 16;
      if (codec === 'deflate') data = inflateRawSync(data);
      blocks.push({ count, data });
    }
    return { schema, name, blocks };
  } catch {
    return undefined;
  }
}
