// One comparable form per value of an Avro type, whoever read it: Avro JS values (avsc's, the merge's,
// our parquet reader's: numbers or bigints, Date or raw timestamps, decimals as numbers, unscaled
// bigints or their bytes, maps as objects or Map) and DuckDB's values (@duckdb/node-api DuckDBValue
// classes). Integers, decimals (unscaled) and timestamps (micros) become decimal strings, bytes hex,
// floats strings that keep NaN and -0, records objects in schema order, maps sorted [key, value]
// pairs (Avro maps have no order: Hudi's own writers go through a Java HashMap).
import type { AvroRecordSchema, AvroType } from '../../src/parquet/write.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function signed(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let x = 0n;
  for (const y of b) x = (x << 8n) | BigInt(y);
  if (b[0]! & 0x80) x -= 1n << BigInt(b.length * 8);
  return x;
}

function floatText(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

/** The value inside a DuckDB value class, by its shape. */
function duck(v: Obj): unknown {
  if ('micros' in v) return { micros: BigInt(v.micros as bigint) };
  if ('millis' in v) return { micros: BigInt(v.millis as bigint) * 1000n };
  if ('days' in v && Object.keys(v).length === 1) return { days: Number(v.days) };
  return v;
}

export function canon(v: unknown, type: AvroType): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(type)) {
    const rest = type.filter((t) => t !== 'null');
    if (rest.length !== 1) throw new Error(`canon: union ${JSON.stringify(type)}`);
    return canon(v, rest[0]!);
  }
  const t = typeof type === 'string' ? { type } : (type as Obj);
  const name = t.type as string;
  const lt = t.logicalType as string | undefined;
  if (lt === 'decimal') {
    const scale = Number(t.scale ?? 0);
    if (isObj(v) && 'width' in v && 'scale' in v) {
      const s = Number(v.scale);
      const u = BigInt(v.value as bigint);
      return (s === scale ? u : u * 10n ** BigInt(scale - s)).toString();
    }
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return signed(v).toString();
    if (typeof v === 'number') return BigInt(Math.round(v * 10 ** scale)).toString();
    throw new Error(`canon: decimal ${String(v)}`);
  }
  if (lt === 'timestamp-millis' || lt === 'timestamp-micros' || lt === 'local-timestamp-millis' || lt === 'local-timestamp-micros') {
    const millis = lt.endsWith('millis');
    if (v instanceof Date) return (BigInt(v.getTime()) * 1000n).toString();
    if (isObj(v)) return (duck(v) as { micros: bigint }).micros.toString();
    return (BigInt(v as number | bigint) * (millis ? 1000n : 1n)).toString();
  }
  if (lt === 'date') {
    if (v instanceof Date) return String(Math.floor(v.getTime() / 86_400_000));
    if (isObj(v)) return String((duck(v) as { days: number }).days);
    return String(v);
  }
  switch (name) {
    case 'boolean':
      return v;
    case 'int':
      return String(Number(v));
    case 'long':
      return BigInt(v as number | bigint).toString();
    case 'float':
      return floatText(Math.fround(Number(v)));
    case 'double':
      return floatText(Number(v));
    case 'string':
      return typeof v === 'string' ? v : v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v);
    case 'enum':
      return typeof v === 'string' ? v : v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v);
    case 'bytes':
    case 'fixed':
      return hex(v instanceof Uint8Array ? v : ((v as Obj).bytes as Uint8Array));
    case 'record': {
      const o = isObj(v) && 'entries' in v && !Array.isArray(v.entries) ? (v.entries as Obj) : (v as Obj);
      const out: Obj = {};
      for (const f of (t as unknown as AvroRecordSchema).fields) out[f.name] = canon(o[f.name], f.type);
      return out;
    }
    case 'array': {
      const items = Array.isArray(v) ? v : ((v as Obj).items as unknown[]);
      if (!Array.isArray(items)) throw new Error(`canon: not a list: ${JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x))}`);
      return items.map((x) => canon(x, t.items as AvroType));
    }
    case 'map': {
      let entries: [string, unknown][];
      if (v instanceof Map) entries = [...v.entries()];
      else if (isObj(v) && Array.isArray(v.entries)) entries = (v.entries as { key: unknown; value: unknown }[]).map((e) => [String(e.key), e.value]);
      else entries = Object.entries(v as Obj);
      return entries.map(([k, x]) => [k, canon(x, t.values as AvroType)]).sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : (a[0] as string) > (b[0] as string) ? 1 : 0));
    }
    default:
      throw new Error(`canon: type ${name}`);
  }
}

/** canon of whole rows of a record schema. */
export function canonRows(rows: readonly Obj[], schema: AvroRecordSchema): unknown[] {
  return rows.map((r) => canon(r, schema));
}
