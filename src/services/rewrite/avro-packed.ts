// Log records straight from their Avro bytes into the packed output columns (columnar-merge.ts): for a
// flat block schema whose fields land in columns of the same kind, each value's bytes are copied (strings,
// doubles) or re-encoded (zigzag ints and longs to little-endian) without a decoded object, as
// decodeAvroRecord + the row path's fix-ups and converters would write them. Anything else (nested or
// promoted types, enums, unknown unions) returns no plan and the record takes the object path.
import type { AvroRecordSchema, AvroType } from '../../parquet/write.ts';
import type { PackedColumn } from '../../parquet/packed.ts';

type Kind = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'string' | 'bytes';

interface Step {
  /** the value's kind per union branch (a single entry when not a union) */
  branches: Kind[];
  union: boolean;
  /** output column, or -1 to skip the value */
  target: number;
}

export interface AvroPackedPlan {
  steps: Step[];
  /** output columns no step writes (absent from the block schema): null, or the meta default */
  missing: number[];
}

const PHYSICAL: Record<Exclude<Kind, 'null'>, string> = { boolean: 'BOOLEAN', int: 'INT32', long: 'INT64', float: 'FLOAT', double: 'DOUBLE', string: 'BYTE_ARRAY', bytes: 'BYTE_ARRAY' };

function kindOf(t: AvroType): Kind | undefined {
  const name = typeof t === 'string' ? t : !Array.isArray(t) && typeof t === 'object' ? (t as { type: unknown }).type : undefined;
  if (typeof t === 'object' && !Array.isArray(t) && (t as { logicalType?: string }).logicalType === 'decimal') return undefined;
  return ['null', 'boolean', 'int', 'long', 'float', 'double', 'string', 'bytes'].includes(name as string) ? (name as Kind) : undefined;
}

/**
 * The copy plan of records written with `blockSchema` into columns of `columns` types (writer schema
 * order, `names`), or undefined when some field needs the object path.
 */
export function avroPackedPlan(blockSchema: string, names: string[], types: string[]): AvroPackedPlan | undefined {
  let schema: AvroRecordSchema;
  try {
    schema = JSON.parse(blockSchema) as AvroRecordSchema;
  } catch {
    return undefined;
  }
  if (schema?.type !== 'record' || !Array.isArray(schema.fields)) return undefined;
  const steps: Step[] = [];
  const written = new Set<number>();
  for (const f of schema.fields) {
    const union = Array.isArray(f.type);
    const branches = (union ? (f.type as AvroType[]) : [f.type]).map(kindOf);
    if (branches.some((b) => b === undefined)) return undefined;
    const target = names.indexOf(f.name);
    if (target >= 0) {
      // every non-null branch must be the column's own physical kind (no promotion)
      for (const b of branches) if (b !== 'null' && PHYSICAL[b as Exclude<Kind, 'null'>] !== types[target]) return undefined;
      written.add(target);
    }
    steps.push({ branches: branches as Kind[], union, target });
  }
  return { steps, missing: names.map((_, j) => j).filter((j) => !written.has(j)) };
}

class Cursor {
  constructor(
    public d: Uint8Array,
    public at: number,
  ) {}
  /** unsigned varint, up to 32 bits */
  varint32(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = this.d[this.at++]!;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v >>> 0;
      shift += 7;
      if (shift > 28) {
        // the fifth byte holds the top 4 bits
        const b5 = this.d[this.at++]!;
        v |= (b5 & 0x0f) << 28;
        if (b5 >= 0x80) throw new Error('Avro int varint too long');
        return v >>> 0;
      }
    }
  }
  /** zigzag int (ints, union branches, string lengths) */
  zigzag32(): number {
    const n = this.varint32();
    return (n >>> 1) ^ -(n & 1);
  }
  /** zigzag long into lo/hi 32-bit halves (two's complement) */
  long(out: Int32Array): void {
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      if (i === 10) throw new Error('Avro long varint too long');
      const b = this.d[this.at++]!;
      const bits = b & 0x7f;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (b < 0x80) break;
      shift += 7;
    }
    // zigzag: (n >>> 1) ^ -(n & 1) on 64 bits
    const neg = lo & 1;
    let l = (lo >>> 1) | (hi << 31);
    let h = hi >>> 1;
    if (neg) {
      l = ~l;
      h = ~h;
    }
    out[0] = l | 0;
    out[1] = h | 0;
  }
}

/** A `fixed` entry for a column the caller does not fill (the writer's constant column). */
export const SKIP = new Uint8Array(0);

const LONG = new Int32Array(2);
const LONG_BYTES = new Uint8Array(LONG.buffer);
const INT = new Int32Array(1);
const INT_BYTES = new Uint8Array(INT.buffer);
const BOOL = new Uint8Array(1);
// one cursor for every record (records are appended one at a time)
const CURSOR = new Cursor(BOOL, 0);

/** Column j of a record that has null there (or that `fixed` overrides): see appendAvroRecord. */
function fill(j: number, out: PackedColumn[], defaults: (Uint8Array | (() => Uint8Array) | undefined)[], fixed: (Uint8Array | undefined)[]): void {
  const f = fixed[j];
  if (f === SKIP) return;
  if (f) return out[j]!.appendBytes(f);
  const d = defaults[j];
  if (d === undefined) return out[j]!.appendNull();
  out[j]!.appendBytes(typeof d === 'function' ? d() : d);
}

/**
 * Appends the record at content[start, end) to `out` per `plan`. Meta columns (`meta[j]` = default
 * bytes, or a function of nothing for the seqno) take their default when the record has null there;
 * `fixed[j]` overrides column j (SKIP: column j is not written at all).
 */
export function appendAvroRecord(
  plan: AvroPackedPlan,
  content: Uint8Array,
  start: number,
  end: number,
  out: PackedColumn[],
  defaults: (Uint8Array | (() => Uint8Array) | undefined)[],
  fixed: (Uint8Array | undefined)[],
): void {
  const c = CURSOR;
  c.d = content;
  c.at = start;
  for (const s of plan.steps) {
    const kind = s.union ? s.branches[c.zigzag32()] : s.branches[0];
    if (kind === undefined) throw new Error('Avro union branch out of range');
    const j = s.target;
    const col = j >= 0 && !fixed[j] ? out[j]! : undefined;
    switch (kind) {
      case 'null':
        if (j >= 0) fill(j, out, defaults, fixed);
        continue;
      case 'boolean':
        BOOL[0] = content[c.at++]! ? 1 : 0;
        col?.appendBytes(BOOL, 0, 1);
        break;
      case 'int': {
        INT[0] = c.zigzag32();
        col?.appendBytes(INT_BYTES, 0, 4);
        break;
      }
      case 'long':
        c.long(LONG);
        col?.appendBytes(LONG_BYTES, 0, 8);
        break;
      case 'float':
        col?.appendBytes(content, c.at, c.at + 4);
        c.at += 4;
        break;
      case 'double':
        col?.appendBytes(content, c.at, c.at + 8);
        c.at += 8;
        break;
      default: {
        // string / bytes: zigzag length, then the bytes
        const len = c.zigzag32();
        if (len < 0 || c.at + len > end) throw new Error('Avro string length out of range');
        col?.appendBytes(content, c.at, c.at + len);
        c.at += len;
      }
    }
    if (j >= 0 && fixed[j]) fill(j, out, defaults, fixed);
  }
  for (const j of plan.missing) fill(j, out, defaults, fixed);
  if (c.at !== end) throw new Error(`Avro record of ${end - start} bytes decoded to ${c.at - start}`);
}
