// Avro object-container files (the encoding of every Avro instant file), framed by hand on Uint8Array and
// synchronous; avsc only encodes/decodes the datums. Any avsc failure becomes a TblError naming the path.
import avro from 'avsc';

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
    t = avro.Type.forSchema(schema as avro.Schema, { wrapUnions: wrapOption(schema) });
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
    t = avro.Type.forSchema(stripDefaults(parsed) as avro.Schema, { wrapUnions: wrapOption(parsed) });
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
      meta.set(Buffer.from(k).toString('utf8'), v);
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
