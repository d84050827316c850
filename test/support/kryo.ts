// A Kryo 4.0.2 writer for exactly what Hudi's SerializationUtils.serialize wrote into version-1 and -2
// delete blocks (kryo.writeClassAndObject, references on, Hudi's classes unregistered), following the
// write paths of Output, DefaultClassResolver, MapReferenceResolver, ObjectArraySerializer and
// FieldSerializer. Tests only: it gives delete blocks no fixture table holds (version 1), and its output
// is checked against the bytes Hudi's own TestHoodieDeleteBlock decodes (test/metadata/kryo-delete-records.test.ts).

/** A Java String instance: Kryo writes a second use of the same instance as a back-reference. */
export class JString {
  constructor(readonly s: string) {}
}

export interface JKey {
  recordKey: JString | null;
  partitionPath: JString | null;
}

export type JOrdering =
  | { cls: 'int' | 'long' | 'float' | 'double'; value: number | bigint }
  | { cls: 'boolean'; value: boolean }
  | { cls: 'String' | 'Utf8'; value: JString }
  | { cls: string; value: null }; // an unregistered class, written by name (its content is not modelled)

export interface JDeleteRecord {
  key: JKey;
  ordering: JOrdering | null;
}

const MODEL = 'org.apache.hudi.common.model.';
const REGISTERED = ['int', 'String', 'float', 'boolean', 'byte', 'char', 'short', 'long', 'double', 'void'];
const WRAPPERS = new Set(['int', 'float', 'boolean', 'byte', 'char', 'short', 'long', 'double']);

class KryoOutput {
  readonly bytes: number[] = [];
  private readonly nameIds = new Map<string, number>();
  private readonly written = new Map<object, number>();

  byte(b: number): void {
    this.bytes.push(b & 0xff);
  }

  /** Output.writeVarInt */
  varint(v: number, optimizePositive: boolean): void {
    let u = (optimizePositive ? v : (v << 1) ^ (v >> 31)) >>> 0;
    while (u > 0x7f) {
      this.byte((u & 0x7f) | 0x80);
      u >>>= 7;
    }
    this.byte(u);
  }

  /** Output.writeVarLong: 9 bytes at most, the ninth with all 8 bits */
  varlong(v: bigint, optimizePositive: boolean): void {
    let u = BigInt.asUintN(64, optimizePositive ? v : (v << 1n) ^ (v >> 63n));
    for (let i = 0; i < 8 && u > 0x7fn; i++) {
      this.byte(Number(u & 0x7fn) | 0x80);
      u >>= 7n;
    }
    this.byte(Number(u));
  }

  /** Output.writeString */
  string(s: string | null): void {
    if (s === null) return this.byte(0x80);
    if (s.length === 0) return this.byte(0x81);
    const ascii = s.length > 1 && s.length < 64 && [...s].every((c) => c.charCodeAt(0) <= 127);
    if (ascii) {
      for (let i = 0; i < s.length; i++) this.byte(s.charCodeAt(i) | (i === s.length - 1 ? 0x80 : 0));
      return;
    }
    this.utf8Length(s.length + 1);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c <= 0x7f) this.byte(c);
      else if (c > 0x7ff) {
        this.byte(0xe0 | ((c >> 12) & 0x0f));
        this.byte(0x80 | ((c >> 6) & 0x3f));
        this.byte(0x80 | (c & 0x3f));
      } else {
        this.byte(0xc0 | ((c >> 6) & 0x1f));
        this.byte(0x80 | (c & 0x3f));
      }
    }
  }

  /** Output.writeUtf8Length: bits 8 (UTF-8) and 7 (more bytes) on the first byte, bit 8 on the middle ones */
  private utf8Length(v: number): void {
    if (v >>> 6 === 0) return this.byte(v | 0x80);
    this.byte(v | 0x40 | 0x80);
    if (v >>> 13 === 0) return this.byte(v >>> 6);
    this.byte((v >>> 6) | 0x80);
    if (v >>> 20 === 0) return this.byte(v >>> 13);
    this.byte((v >>> 13) | 0x80);
    if (v >>> 27 === 0) return this.byte(v >>> 20);
    this.byte((v >>> 20) | 0x80);
    this.byte(v >>> 27);
  }

  /** DefaultClassResolver.writeClass */
  writeClass(name: string | null): void {
    if (name === null) return this.varint(0, true);
    const reg = name === 'Utf8' ? 10 : REGISTERED.indexOf(name);
    if (reg >= 0) return this.varint(reg + 2, true);
    this.varint(1, true);
    const known = this.nameIds.get(name);
    if (known !== undefined) return this.varint(known, true);
    const id = this.nameIds.size;
    this.nameIds.set(name, id);
    this.varint(id, true);
    this.string(name);
  }

  /** Kryo.writeReferenceOrNull for a class tracked by reference; true when only null or a reference was written */
  private reference(obj: object | null): boolean {
    if (obj === null) {
      this.varint(0, true);
      return true;
    }
    const id = this.written.get(obj);
    if (id !== undefined) {
      this.varint(id + 2, true);
      return true;
    }
    this.written.set(obj, this.written.size);
    this.varint(1, true);
    return false;
  }

  /** Kryo.writeClassAndObject (also a field whose declared type is not final: class, then writeObject) */
  classAndObject(cls: string | null, obj: object | null, write: () => void): void {
    this.writeClass(cls);
    if (cls === null) return;
    if (WRAPPERS.has(cls)) return write();
    if (!this.reference(obj)) write();
  }

  /** A String field: Kryo.writeObjectOrNull with the String serializer */
  stringField(s: JString | null): void {
    if (!this.reference(s)) this.string(s!.s);
  }

  key(k: JKey): void {
    // FieldSerializer: fields in name order
    this.stringField(k.partitionPath);
    this.stringField(k.recordKey);
  }

  ordering(o: JOrdering | null): void {
    if (o === null) return this.writeClass(null);
    const box = {};
    this.classAndObject(o.cls, typeof o.value === 'object' && o.value !== null ? o.value : box, () => {
      switch (o.cls) {
        case 'int':
          return this.varint(Number(o.value), false);
        case 'long':
          return this.varlong(BigInt(o.value as number | bigint), false);
        case 'float': {
          const dv = new DataView(new ArrayBuffer(4));
          dv.setFloat32(0, Number(o.value));
          return new Uint8Array(dv.buffer).forEach((b) => this.byte(b));
        }
        case 'double': {
          const dv = new DataView(new ArrayBuffer(8));
          dv.setFloat64(0, Number(o.value));
          return new Uint8Array(dv.buffer).forEach((b) => this.byte(b));
        }
        case 'boolean':
          return this.byte(o.value ? 1 : 0);
        case 'String':
          return this.string((o.value as JString).s);
        case 'Utf8': {
          // AvroUtf8Serializer: the byte[] serializer, length + 1 then the bytes
          const b = new TextEncoder().encode((o.value as JString).s);
          this.varint(b.length + 1, true);
          return b.forEach((x) => this.byte(x));
        }
        default:
          return; // only the class name matters to the tests that use it
      }
    });
  }
}

function array(component: string, n: number, element: (out: KryoOutput, i: number) => void): Uint8Array {
  const out = new KryoOutput();
  out.classAndObject(`[L${MODEL}${component};`, {}, () => {
    out.varint(n + 1, true);
    for (let i = 0; i < n; i++) element(out, i);
  });
  return new Uint8Array(out.bytes);
}

/** Version-1 delete block data: a HoodieKey[] (Hudi ≤ 0.10). */
export function kryoHoodieKeys(keys: readonly JKey[]): Uint8Array {
  return array('HoodieKey', keys.length, (out, i) => out.classAndObject(`${MODEL}HoodieKey`, keys[i]!, () => out.key(keys[i]!)));
}

/** Version-2 delete block data: a DeleteRecord[] (Hudi 0.11–0.13). */
export function kryoDeleteRecords(records: readonly JDeleteRecord[]): Uint8Array {
  return array('DeleteRecord', records.length, (out, i) => {
    const r = records[i]!;
    out.classAndObject(`${MODEL}DeleteRecord`, r, () => {
      out.classAndObject(`${MODEL}HoodieKey`, r.key, () => out.key(r.key));
      out.ordering(r.ordering);
    });
  });
}

/** DELETE block content: int32 version | int32 length | data. */
export function deleteBlockContent(version: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, version);
  dv.setInt32(4, data.length);
  out.set(data, 8);
  return out;
}
