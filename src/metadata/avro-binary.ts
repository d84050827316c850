// Schema-driven Avro binary datums (no container), for values that must re-encode byte for byte:
// longs are bigint (record-index UUID halves use all 64 bits), maps are Map in their stored order
// (avsc's plain objects list integer-like keys such as partition "10" first), and a union branch is
// chosen by name. Encoding a record takes a missing field's default; a field the writer schema lacks
// is an error, so an older schema never silently drops a value.
import { TblError } from '../errors/index.ts';

export type AvroNode =
  | { kind: 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string' }
  | { kind: 'record'; name: string; fields: AvroField[] }
  | { kind: 'enum'; name: string; symbols: string[] }
  | { kind: 'fixed'; name: string; size: number }
  | { kind: 'array'; items: AvroNode }
  | { kind: 'map'; values: AvroNode }
  | { kind: 'union'; branches: AvroNode[] };

export interface AvroField {
  name: string;
  type: AvroNode;
  /** the JSON default, if the schema has one */
  default?: unknown;
  hasDefault: boolean;
}

/**
 * Values: null, boolean, number (int, float, double), bigint (long), Uint8Array (bytes, fixed),
 * string (string, enum symbol), array, Map (map), plain object (record). A union value is the bare
 * value when the union is [null, T] (either order); otherwise null or a one-key object
 * `{ <branch>: value }`, the branch being the short name of a named type or the primitive's name.
 */
export type AvroValue = unknown;

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

function schemaError(msg: string): TblError {
  return new TblError('metadata', `invalid Avro schema: ${msg}`);
}

/** Parses Avro schema JSON (text or object) into a tree; named types may be referenced by full or short name. */
export function parseAvroSchema(schema: string | object): AvroNode {
  let json: unknown;
  try {
    json = typeof schema === 'string' ? JSON.parse(schema) : schema;
  } catch (e) {
    throw schemaError((e as Error).message);
  }
  const named = new Map<string, AvroNode>();
  const fullName = (name: string, ns: string | undefined) => (name.includes('.') || !ns ? name : `${ns}.${name}`);
  const define = (name: string, ns: string | undefined, node: AvroNode) => {
    named.set(fullName(name, ns), node);
  };
  const walk = (s: unknown, ns: string | undefined): AvroNode => {
    if (typeof s === 'string') {
      if (PRIMITIVES.has(s)) return { kind: s as 'null' };
      const n = named.get(fullName(s, ns)) ?? named.get(s);
      if (!n) throw schemaError(`unknown type ${s}`);
      return n;
    }
    if (Array.isArray(s)) return { kind: 'union', branches: s.map((b) => walk(b, ns)) };
    if (s === null || typeof s !== 'object') throw schemaError(`unexpected ${JSON.stringify(s)}`);
    const o = s as Record<string, unknown>;
    const type = o.type;
    if (typeof type === 'string' && PRIMITIVES.has(type)) return { kind: type as 'null' };
    const name = typeof o.name === 'string' ? o.name : '';
    const childNs = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : typeof o.namespace === 'string' ? o.namespace : ns;
    switch (type) {
      case 'record':
      case 'error': {
        const node: AvroNode = { kind: 'record', name: fullName(name, childNs), fields: [] };
        define(name, childNs, node);
        for (const f of (o.fields as Record<string, unknown>[]) ?? []) {
          node.fields.push({ name: String(f.name), type: walk(f.type, childNs), default: f.default, hasDefault: 'default' in f });
        }
        return node;
      }
      case 'enum': {
        const node: AvroNode = { kind: 'enum', name: fullName(name, childNs), symbols: (o.symbols as string[]) ?? [] };
        define(name, childNs, node);
        return node;
      }
      case 'fixed': {
        const node: AvroNode = { kind: 'fixed', name: fullName(name, childNs), size: Number(o.size) };
        define(name, childNs, node);
        return node;
      }
      case 'array':
        return { kind: 'array', items: walk(o.items, ns) };
      case 'map':
        return { kind: 'map', values: walk(o.values, ns) };
      default:
        if (type !== undefined && typeof type === 'object') return walk(type, ns);
        if (typeof type === 'string') return walk(type, ns);
        throw schemaError(`unexpected ${JSON.stringify(s).slice(0, 80)}`);
    }
  };
  return walk(json, undefined);
}

/** The name a union branch is selected by: short name for named types, else the kind. */
export function branchName(n: AvroNode): string {
  if (n.kind === 'record' || n.kind === 'enum' || n.kind === 'fixed') return n.name.slice(n.name.lastIndexOf('.') + 1);
  return n.kind;
}

function nullableBranch(u: { branches: AvroNode[] }): number {
  if (u.branches.length !== 2) return -1;
  if (u.branches[0]!.kind === 'null' && u.branches[1]!.kind !== 'null') return 1;
  if (u.branches[1]!.kind === 'null' && u.branches[0]!.kind !== 'null') return 0;
  return -1;
}

/** Finds a record field by name (undefined when the schema lacks it). */
export function recordField(n: AvroNode, name: string): AvroField | undefined {
  return n.kind === 'record' ? n.fields.find((f) => f.name === name) : undefined;
}

// ---- decoding ----

class Reader {
  pos = 0;
  private dv: DataView | undefined;
  constructor(
    readonly buf: Uint8Array,
    readonly path: string,
  ) {}
  private get view(): DataView {
    return (this.dv ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }
  fail(what: string): never {
    throw new TblError('metadata', `${this.path}: truncated or corrupt Avro (${what} at byte ${this.pos})`, { path: this.path });
  }
  byte(): number {
    if (this.pos >= this.buf.length) this.fail('datum runs past its end');
    return this.buf[this.pos++]!;
  }
  /** Zig-zag varint: a number while it fits 49 bits (no bigint on the common path), else a bigint. */
  private zigzag(): number | bigint {
    let b = this.byte();
    let n = b & 0x7f;
    let mul = 128;
    while (b & 0x80 && mul < 2 ** 49) {
      b = this.byte();
      n += (b & 0x7f) * mul;
      mul *= 128;
    }
    if (!(b & 0x80)) return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
    let big = BigInt(n);
    let shift = 49n;
    while (b & 0x80) {
      if (shift > 63n) this.fail('varint longer than 10 bytes');
      b = this.byte();
      big |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    }
    big = BigInt.asUintN(64, big);
    return (big >> 1n) ^ -(big & 1n);
  }
  long(): bigint {
    const z = this.zigzag();
    return typeof z === 'bigint' ? z : BigInt(z);
  }
  int(): number {
    const z = this.zigzag();
    if (typeof z === 'bigint' || z < -2147483648 || z > 2147483647) this.fail('int out of range');
    return z;
  }
  private count(): number {
    const z = this.zigzag();
    return typeof z === 'bigint' ? this.fail(`bad length ${z}`) : z;
  }
  length(): number {
    const n = this.count();
    if (n < 0 || n > this.buf.length - this.pos) this.fail(`bad length ${n}`);
    return n;
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) this.fail('datum runs past its end');
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  utf8(n: number): string {
    if (this.pos + n > this.buf.length) this.fail('datum runs past its end');
    const out = utf8d.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }
  float(): number {
    if (this.pos + 4 > this.buf.length) this.fail('datum runs past its end');
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  double(): number {
    if (this.pos + 8 > this.buf.length) this.fail('datum runs past its end');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  /** Block count of an array/map block; a negative count is followed by the block's byte size. */
  blockCount(): number {
    let n = this.count();
    if (n < 0) {
      n = -n;
      this.count();
    }
    if (n > this.buf.length - this.pos) this.fail(`bad block count ${n}`);
    return n;
  }
}

const utf8d = new TextDecoder();

function read(r: Reader, n: AvroNode): AvroValue {
  switch (n.kind) {
    case 'null':
      return null;
    case 'boolean':
      return r.byte() !== 0;
    case 'int':
      return r.int();
    case 'long':
      return r.long();
    case 'float':
      return r.float();
    case 'double':
      return r.double();
    case 'bytes':
      return r.bytes(r.length());
    case 'string':
      return r.utf8(r.length());
    case 'fixed':
      return r.bytes(n.size);
    case 'enum': {
      const i = r.int();
      if (i < 0 || i >= n.symbols.length) r.fail(`enum index ${i}`);
      return n.symbols[i];
    }
    case 'array': {
      const out: AvroValue[] = [];
      for (let c = r.blockCount(); c !== 0; c = r.blockCount()) for (let i = 0; i < c; i++) out.push(read(r, n.items));
      return out;
    }
    case 'map': {
      const out = new Map<string, AvroValue>();
      for (let c = r.blockCount(); c !== 0; c = r.blockCount()) {
        for (let i = 0; i < c; i++) {
          const k = r.utf8(r.length());
          out.set(k, read(r, n.values));
        }
      }
      return out;
    }
    case 'record': {
      const out: Record<string, AvroValue> = {};
      for (const f of n.fields) out[f.name] = read(r, f.type);
      return out;
    }
    case 'union': {
      const i = r.int();
      const b = n.branches[i];
      if (!b) r.fail(`union index ${i}`);
      if (b.kind === 'null') return null;
      const v = read(r, b);
      return nullableBranch(n) >= 0 ? v : { [branchName(b)]: v };
    }
  }
}

/** Decodes one datum; the whole buffer must be consumed. */
export function decodeAvroBinary(schema: AvroNode, bytes: Uint8Array, path = '<datum>'): AvroValue {
  const r = new Reader(bytes, path);
  const v = read(r, schema);
  if (r.pos !== bytes.length) r.fail(`${bytes.length - r.pos} trailing bytes`);
  return v;
}

// ---- encoding ----

/** One growable buffer reused by every (synchronous) encode: a record's bytes are copied out at the end. */
class Writer {
  buf = Buffer.allocUnsafe(4096);
  pos = 0;
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const b = Buffer.allocUnsafe(cap);
    this.buf.copy(b, 0, 0, this.pos);
    this.buf = b;
  }
  string(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.int(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }
  long(v: bigint): void {
    if (v >= -0x8000000000000n && v < 0x8000000000000n) {
      // |v| < 2^51: zig-zag and varint in doubles, without bigint arithmetic
      const n = Number(v);
      let z = n >= 0 ? n * 2 : -n * 2 - 1;
      this.ensure(10);
      while (z >= 0x80) {
        this.buf[this.pos++] = (z % 0x80) | 0x80;
        z = Math.floor(z / 0x80);
      }
      this.buf[this.pos++] = z;
      return;
    }
    let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    this.ensure(10);
    while (z >= 0x80n) {
      this.buf[this.pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.buf[this.pos++] = Number(z);
  }
  int(v: number): void {
    // small ints without bigint (the common case: lengths, union indexes, counts)
    let z = ((v << 1) ^ (v >> 31)) >>> 0;
    this.ensure(5);
    while (z >= 0x80) {
      this.buf[this.pos++] = (z & 0x7f) | 0x80;
      z >>>= 7;
    }
    this.buf[this.pos++] = z;
  }
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  float(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(v, this.pos);
  }
  double(v: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }
}

const writer = new Writer();

/** An encoding failure; the path to the value is collected on the way out (no path strings on the hot path). */
class EncodeFail extends Error {
  readonly segs: string[] = [];
}

function fail(msg: string): never {
  throw new EncodeFail(msg);
}

function child(w: Writer, n: AvroNode, v: AvroValue, seg: string): void {
  try {
    write(w, n, v);
  } catch (e) {
    if (e instanceof EncodeFail) e.segs.unshift(seg);
    throw e;
  }
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function toLong(v: unknown): bigint {
  if (typeof v === 'bigint') {
    if (v < LONG_MIN || v > LONG_MAX) fail(`long out of range: ${v}`);
    return v;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  fail(`expected a long, got ${typeof v} ${String(v)}`);
}

/** A field default (JSON) as a value of the field's type (Avro: a union's default is of its first branch). */
function defaultValue(f: AvroField): AvroValue {
  const d = f.default;
  let t = f.type;
  if (t.kind === 'union') {
    t = t.branches[0]!;
    if (t.kind === 'null') return null;
    const v = jsonDefault(d, t);
    return nullableBranch(f.type as { branches: AvroNode[] }) >= 0 ? v : { [branchName(t)]: v };
  }
  return jsonDefault(d, t);
}

function jsonDefault(d: unknown, t: AvroNode): AvroValue {
  switch (t.kind) {
    case 'null':
      return null;
    case 'boolean':
      return Boolean(d);
    case 'int':
    case 'float':
    case 'double':
      return Number(d);
    case 'long':
      return BigInt(d as number);
    case 'string':
    case 'enum':
      return String(d);
    case 'bytes':
    case 'fixed':
      return Uint8Array.from(String(d), (c) => c.charCodeAt(0) & 0xff);
    case 'array':
      return ((d as unknown[]) ?? []).map((x) => jsonDefault(x, t.items));
    case 'map':
      return new Map(Object.entries((d as Record<string, unknown>) ?? {}).map(([k, x]) => [k, jsonDefault(x, t.values)]));
    default:
      fail(`unsupported default for a ${t.kind}`);
  }
}

const fieldNameSets = new WeakMap<AvroField[], Set<string>>();

function fieldNames(n: { fields: AvroField[] }): Set<string> {
  let s = fieldNameSets.get(n.fields);
  if (!s) fieldNameSets.set(n.fields, (s = new Set(n.fields.map((f) => f.name))));
  return s;
}

function write(w: Writer, n: AvroNode, v: AvroValue): void {
  switch (n.kind) {
    case 'null':
      if (v !== null && v !== undefined) fail('expected null');
      return;
    case 'boolean':
      if (typeof v !== 'boolean') fail(`expected a boolean, got ${typeof v}`);
      w.byte(v ? 1 : 0);
      return;
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) fail(`expected an int, got ${String(v)}`);
      w.int(v);
      return;
    case 'long':
      w.long(toLong(v));
      return;
    case 'float':
    case 'double':
      if (typeof v !== 'number') fail(`expected a number, got ${typeof v}`);
      if (n.kind === 'float') w.float(v);
      else w.double(v);
      return;
    case 'bytes':
      if (!(v instanceof Uint8Array)) fail('expected bytes');
      w.int(v.length);
      w.raw(v);
      return;
    case 'fixed':
      if (!(v instanceof Uint8Array) || v.length !== n.size) fail(`expected ${n.size} fixed bytes`);
      w.raw(v);
      return;
    case 'string': {
      if (typeof v !== 'string') fail(`expected a string, got ${typeof v}`);
      w.string(v);
      return;
    }
    case 'enum': {
      const i = n.symbols.indexOf(String(v));
      if (i < 0) fail(`unknown enum symbol ${String(v)}`);
      w.int(i);
      return;
    }
    case 'array': {
      if (!Array.isArray(v)) fail('expected an array');
      if (v.length) {
        w.int(v.length);
        v.forEach((x, i) => child(w, n.items, x, `[${i}]`));
      }
      w.int(0);
      return;
    }
    case 'map': {
      const entries = v instanceof Map ? [...v.entries()] : v && typeof v === 'object' ? Object.entries(v) : undefined;
      if (!entries) fail('expected a map');
      if (entries.length) {
        w.int(entries.length);
        for (const [k, x] of entries) {
          w.string(k);
          child(w, n.values, x, `[${k}]`);
        }
      }
      w.int(0);
      return;
    }
    case 'record': {
      if (!v || typeof v !== 'object') fail(`expected a ${n.name} record`);
      const o = v as Record<string, unknown>;
      const names = fieldNames(n);
      for (const k in o) {
        if (o[k] !== undefined && !names.has(k)) {
          const e = new EncodeFail(`the writer schema's ${n.name} has no field ${k}`);
          e.segs.push(`.${k}`);
          throw e;
        }
      }
      for (const f of n.fields) {
        let x = o[f.name];
        if (x === undefined) {
          if (!f.hasDefault) fail(`missing field ${f.name} without default`);
          x = defaultValue(f);
        }
        child(w, f.type, x, `.${f.name}`);
      }
      return;
    }
    case 'union': {
      const nb = nullableBranch(n);
      if (v === null || v === undefined) {
        const i = n.branches.findIndex((b) => b.kind === 'null');
        if (i < 0) fail('null for a union without null');
        w.int(i);
        return;
      }
      if (nb >= 0) {
        w.int(nb);
        write(w, n.branches[nb]!, v);
        return;
      }
      const keys = v && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Map) ? Object.keys(v) : [];
      if (keys.length !== 1) fail('a union value must be { <branch>: value }');
      const name = keys[0]!;
      const i = n.branches.findIndex((b) => branchName(b) === name);
      if (i < 0) fail(`the writer schema's union has no branch ${name} (has ${n.branches.map(branchName).join(', ')})`);
      w.int(i);
      child(w, n.branches[i]!, (v as Record<string, unknown>)[name], `.${name}`);
      return;
    }
  }
}

export function encodeAvroBinary(schema: AvroNode, value: AvroValue, path = 'datum'): Uint8Array {
  const w = writer;
  w.pos = 0;
  try {
    write(w, schema, value);
  } catch (e) {
    if (e instanceof EncodeFail) throw new TblError('metadata', `cannot encode ${path}${e.segs.join('')}: ${e.message}`);
    throw e;
  }
  return new Uint8Array(w.buf.subarray(0, w.pos));
}
