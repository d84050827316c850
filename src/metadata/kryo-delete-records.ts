// DELETE blocks of content version 1 (Hudi ≤ 0.10: a HoodieKey[]) and 2 (0.11–0.13: a DeleteRecord[])
// hold what Hudi's SerializationUtils.serialize wrote: Kryo 4 `writeClassAndObject` with references
// on and Hudi's classes unregistered, so they are written by name. This reads exactly those object
// graphs, byte for byte as Kryo 4.0.2 writes them: DefaultClassResolver (class ids, names once per
// stream), MapReferenceResolver (every object but the primitive wrappers gets a reference id, in
// reading order), ObjectArraySerializer (length + 1, then each element with its class, the element
// class not being final), FieldSerializer (fields in name order; a String field is a reference or a
// string, a field of a non-final type carries its class) and Input's varints and strings.
import { TblError } from '../errors/index.ts';
import type { DeleteRecord, OrderingValue } from './datum.ts';

const MODEL = 'org.apache.hudi.common.model.';
const HOODIE_KEY = `${MODEL}HoodieKey`;
const DELETE_RECORD = `${MODEL}DeleteRecord`;
const UTF8 = 'org.apache.avro.util.Utf8';

// The Kryo constructor's registrations, by id (a wrapper class shares its primitive's); Hudi's
// SerializationUtils registers Avro's Utf8 next (id 10), with a byte[] serializer.
const REGISTERED = ['int', 'String', 'float', 'boolean', 'byte', 'char', 'short', 'long', 'double', 'void'];
const REGISTERED_UTF8 = 10;
const REGISTERED_BY_WRITER = 'class registration id ';
/** MapReferenceResolver.useReferences: false for the primitive wrappers only. */
const WRAPPERS = new Set(['int', 'float', 'boolean', 'byte', 'char', 'short', 'long', 'double']);

const NULL = 0;
const NOT_NULL = 1;
const PENDING = Symbol('pending');

interface Key {
  recordKey: string | null;
  partitionPath: string | null;
}
interface DeleteRecordValue {
  key: Key | null;
  ordering: OrderingValue | null;
}

class KryoInput {
  private pos = 0;
  private readonly names = new Map<number, string>();
  private readonly refs: unknown[] = [];
  private readonly view: DataView;

  constructor(
    private readonly b: Uint8Array,
    private readonly path: string,
  ) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  fail(message: string, kind: 'logfile' | 'unsupported' = 'logfile'): never {
    throw new TblError(kind, `${this.path}: Kryo delete block data, byte ${this.pos}: ${message}`, { path: this.path });
  }

  get remaining(): number {
    return this.b.length - this.pos;
  }

  private need(n: number): number {
    if (this.pos + n > this.b.length) this.fail(`truncated (${n} more byte(s) needed)`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  private byte(): number {
    return this.b[this.need(1)]!;
  }

  /** Input.readVarInt: little-endian groups of 7 bits, at most 5 bytes; zigzag unless optimizePositive. */
  private varint(optimizePositive: boolean): number {
    let r = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const b = this.byte();
      r |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
    }
    return optimizePositive ? r : (r >>> 1) ^ -(r & 1);
  }

  /** A count or id: a non-negative optimizePositive varint. */
  count(): number {
    const n = this.varint(true);
    if (n < 0) this.fail(`negative count ${n}`);
    return n;
  }

  /** Input.readVarLong: at most 9 bytes, the ninth with all 8 bits. */
  private varlong(optimizePositive: boolean): bigint {
    let r = 0n;
    for (let i = 0; i < 9; i++) {
      const b = this.byte();
      if (i === 8) {
        r |= BigInt(b) << 56n;
        break;
      }
      r |= BigInt(b & 0x7f) << BigInt(7 * i);
      if ((b & 0x80) === 0) break;
    }
    return BigInt.asIntN(64, optimizePositive ? r : (r >> 1n) ^ -(r & 1n));
  }

  /** Input.readString: ASCII with the last byte's bit 8 set, or a UTF-8 length (chars + 1; 0 = null) and 1–3 bytes per UTF-16 unit. */
  string(): string | null {
    const first = this.byte();
    if ((first & 0x80) === 0) {
      let s = '';
      for (let b = first; ; b = this.byte()) {
        s += String.fromCharCode(b & 0x7f);
        if ((b & 0x80) !== 0) return s;
      }
    }
    let chars = first & 0x3f;
    if ((first & 0x40) !== 0) {
      for (let shift = 6; shift <= 27; shift += 7) {
        const b = this.byte();
        chars |= (b & 0x7f) << shift;
        if ((b & 0x80) === 0) break;
      }
    }
    if (chars === 0) return null;
    const units: number[] = [];
    for (let i = 0; i < chars - 1; i++) {
      const b = this.byte();
      switch (b >> 4) {
        case 12:
        case 13:
          units.push(((b & 0x1f) << 6) | (this.byte() & 0x3f));
          break;
        case 14:
          units.push(((b & 0x0f) << 12) | ((this.byte() & 0x3f) << 6) | (this.byte() & 0x3f));
          break;
        default:
          if (b >= 0x80) this.fail(`byte 0x${b.toString(16)} cannot start a character`);
          units.push(b);
      }
    }
    let s = '';
    for (let i = 0; i < units.length; i += 4096) s += String.fromCharCode(...units.slice(i, i + 4096));
    return s;
  }

  /** DefaultClassResolver.readClass: 0 null, 1 a name (its text the first time its name id appears), else registration id + 2. */
  readClass(): string | null {
    const id = this.count();
    if (id === NULL) return null;
    if (id === 1) {
      const nameId = this.count();
      let name = this.names.get(nameId);
      if (name === undefined) {
        const read = this.string();
        if (!read) this.fail(`empty class name for name id ${nameId}`);
        name = read;
        this.names.set(nameId, name);
      }
      return name;
    }
    const reg = id - 2;
    if (reg < REGISTERED.length) return REGISTERED[reg]!;
    if (reg === REGISTERED_UTF8) return UTF8;
    return `${REGISTERED_BY_WRITER}${reg}`;
  }

  private backRef(id: number): unknown {
    const v = this.refs[id - 2];
    if (v === undefined || v === PENDING) this.fail(`reference ${id - 2} to no object read before`);
    return v;
  }

  /** An object Kryo tracks by reference: read it into the next reference slot. */
  private referenced(read: () => unknown): unknown {
    const slot = this.refs.length;
    this.refs.push(PENDING);
    const v = read();
    this.refs[slot] = v;
    return v;
  }

  /** Kryo.readClassAndObject (also a field of a non-final type): the class, a reference marker unless a wrapper, the object. */
  classAndObject(check?: (cls: string | null) => boolean): { cls: string | null; value: unknown } {
    const cls = this.readClass();
    check?.(cls);
    if (cls === null) return { cls, value: null };
    if (cls.startsWith(REGISTERED_BY_WRITER)) this.fail(`${cls}: a class the writer's Kryo registered, not known here`, 'unsupported');
    if (WRAPPERS.has(cls)) return { cls, value: this.value(cls) };
    const id = this.count();
    if (id === NULL) this.fail(`null reference marker for a ${cls}`);
    return { cls, value: id === NOT_NULL ? this.referenced(() => this.value(cls)) : this.backRef(id) };
  }

  /** A String field (Kryo.readObjectOrNull with the String serializer): null, a reference, or a new string. */
  private stringField(): string | null {
    const id = this.count();
    if (id === NULL) return null;
    const v = id === NOT_NULL ? this.referenced(() => this.string()) : this.backRef(id);
    if (typeof v !== 'string') this.fail('a String field refers to a non-string object');
    return v;
  }

  private value(cls: string): unknown {
    switch (cls) {
      case `[L${HOODIE_KEY};`:
      case `[L${DELETE_RECORD};`: {
        const n = this.count();
        if (n === NULL) return null;
        const out: unknown[] = [];
        for (let i = 0; i < n - 1; i++) out.push(this.classAndObject());
        return out;
      }
      case HOODIE_KEY: {
        const partitionPath = this.stringField();
        return { partitionPath, recordKey: this.stringField() } satisfies Key;
      }
      case DELETE_RECORD: {
        const key = this.classAndObject();
        if (key.cls !== null && key.cls !== HOODIE_KEY) this.fail(`DeleteRecord.hoodieKey is a ${key.cls}`);
        return { key: key.value as Key | null, ordering: this.ordering(this.classAndObject()) } satisfies DeleteRecordValue;
      }
      case 'int':
        return this.varint(false);
      case 'long':
        return this.varlong(false);
      case 'float':
        return this.view.getFloat32(this.need(4));
      case 'double':
        return this.view.getFloat64(this.need(8));
      case 'boolean':
        return this.byte() === 1;
      case 'String':
        return this.string();
      case UTF8: {
        // AvroUtf8Serializer: the byte[] serializer (length + 1, 0 = null), UTF-8 bytes
        const n = this.count();
        if (n === NULL) return null;
        return new TextDecoder().decode(this.b.subarray(this.need(n - 1), this.pos));
      }
      default:
        return this.fail(`Java class ${cls} is not one a Hudi delete block holds (or not one tblcli decodes)`, 'unsupported');
    }
  }

  /** DeleteRecord.orderingVal (a Comparable) as the ordering value a version-3 block would carry. */
  private ordering(o: { cls: string | null; value: unknown }): OrderingValue | null {
    switch (o.cls) {
      case null:
        return null;
      case 'int':
      case 'float':
      case 'double':
        return { type: o.cls, value: o.value as number };
      case 'long':
        return { type: 'long', value: Number(o.value as bigint) };
      case 'boolean':
        return { type: 'boolean', value: o.value as boolean };
      case 'String':
      case UTF8:
        return o.value === null ? null : { type: 'string', value: o.value as string };
      default:
        return this.fail(`ordering value of Java class ${o.cls} is not decoded`, 'unsupported');
    }
  }
}

/**
 * The records of a version-1 or -2 delete block's data. A version-1 key's ordering value is
 * DeleteRecord.create(key)'s: Integer 0.
 */
export function decodeKryoDeleteRecords(data: Uint8Array, version: 1 | 2, ctx: { path: string }): DeleteRecord[] {
  const input = new KryoInput(data, ctx.path);
  const expected = `[L${version === 1 ? HOODIE_KEY : DELETE_RECORD};`;
  const top = input.classAndObject((cls) => cls === expected || input.fail(`expected a ${expected}, found ${cls ?? 'null'}`));
  if (input.remaining !== 0) input.fail(`${input.remaining} byte(s) after the records`);
  return ((top.value ?? []) as { cls: string | null; value: unknown }[]).map((e) => {
    if (version === 1) {
      if (e.cls !== HOODIE_KEY) input.fail(`a ${e.cls ?? 'null'} element in a HoodieKey[]`);
      const k = e.value as Key;
      return { recordKey: k.recordKey, partitionPath: k.partitionPath, orderingVal: { type: 'int', value: 0 } };
    }
    if (e.cls !== DELETE_RECORD) input.fail(`a ${e.cls ?? 'null'} element in a DeleteRecord[]`);
    const r = e.value as DeleteRecordValue;
    return { recordKey: r.key?.recordKey ?? null, partitionPath: r.key?.partitionPath ?? null, orderingVal: r.ordering };
  });
}
