// Rows of a parquet file as Avro records hold them, whatever layout the file's writer chose (issue 13):
// hyparquet guesses lists and maps from their shape, and its guess misreads what parquet-avro writes by
// default (the legacy 2-level list `repeated group array { … }` comes back as `{array: [...]}`, a
// 2-level list of one-field records as the bare field values), and it reads decimals as doubles. So
// hyparquet is given the schema without LIST/MAP/DECIMAL annotations (plain groups, repeated fields
// and physical values, which it assembles without guessing), and the annotations are applied here
// by the rules of parquet-format LogicalTypes.md, backward-compatibility rules included.
import type { FileMetaData, SchemaElement, SchemaTree } from 'hyparquet';
import { parquetSchema } from 'hyparquet';

/**
 * 'avro': Avro shapes (lists arrays, maps objects, records objects, enums strings) with hyparquet's
 * scalars (decimals as doubles, timestamps and dates as Date unless raw timestamps are asked for).
 * 'exact': Avro shapes with the values a rewrite needs: decimals as their unscaled bigint, dates as
 * days, timestamps as the stored integer.
 */
export type AvroValueMode = 'avro' | 'exact';

type Convert = (v: unknown) => unknown;

const text = new TextDecoder();

function annotation(e: SchemaElement): string | undefined {
  return e.logical_type?.type ?? e.converted_type;
}

function isList(e: SchemaElement): boolean {
  return e.converted_type === 'LIST' || e.logical_type?.type === 'LIST';
}

function isMap(e: SchemaElement): boolean {
  return e.converted_type === 'MAP' || e.converted_type === 'MAP_KEY_VALUE' || e.logical_type?.type === 'MAP';
}

function isDecimal(e: SchemaElement): boolean {
  return e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL';
}

/** Two's-complement big-endian bytes → bigint. */
export function signedBytesToBigInt(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let x = 0n;
  for (const byte of b) x = (x << 8n) | BigInt(byte);
  if (b[0]! & 0x80) x -= 1n << BigInt(b.length * 8);
  return x;
}

/** An object holding `entries` as own properties, in order (a key `__proto__` too). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

const orNull = (c: Convert): Convert => (v) => (v === null || v === undefined ? null : c(v));

function leafConverter(e: SchemaElement, mode: AvroValueMode): Convert | undefined {
  if (isDecimal(e)) {
    const scale = Number(e.scale ?? (e.logical_type as { scale?: number } | undefined)?.scale ?? 0);
    const unscaled = (v: unknown): bigint => (v instanceof Uint8Array ? signedBytesToBigInt(v) : BigInt(v as number | bigint));
    if (mode === 'exact') return unscaled;
    const factor = 10 ** scale;
    return (v) => Number(unscaled(v)) / factor;
  }
  if (annotation(e) === 'ENUM') return (v) => (v instanceof Uint8Array ? text.decode(v) : v);
  return undefined;
}

/** The converter of a node's (non-null) value; undefined when hyparquet's value is already right. */
function converterOf(node: SchemaTree, mode: AvroValueMode): Convert | undefined {
  const e = node.element;
  if (node.children.length === 0) return leafConverter(e, mode);
  if (isList(e) && node.children.length === 1) return listConverter(node, mode);
  if (isMap(e) && node.children.length === 1 && node.children[0]!.children.length >= 1) return mapConverter(node, mode);
  return recordConverter(node, mode);
}

function recordConverter(node: SchemaTree, mode: AvroValueMode): Convert | undefined {
  const fields = node.children.map((c) => ({ name: c.element.name, repeated: c.element.repetition_type === 'REPEATED', convert: converterOf(c, mode) }));
  if (fields.every((f) => !f.convert)) return undefined;
  return (v) => {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const x = o[f.name];
      // a repeated field outside a LIST (allowed by the spec): an array of its values
      out[f.name] = x === null || x === undefined ? (f.repeated ? [] : null) : !f.convert ? x : f.repeated ? (x as unknown[]).map(orNull(f.convert)) : f.convert(x);
    }
    return out;
  };
}

/**
 * A LIST group: its repeated child is the element itself when it is a primitive, a group of several
 * fields, or a one-field group named `array` or `<list>_tuple` (the legacy 2-level layouts); else the
 * element is the repeated group's one child (the 3-level layout).
 */
function listConverter(node: SchemaTree, mode: AvroValueMode): Convert {
  const rep = node.children[0]!;
  const repName = rep.element.name;
  const twoLevel = rep.children.length !== 1 || repName === 'array' || repName === `${node.element.name}_tuple`;
  if (twoLevel) {
    const c = converterOf(rep, mode);
    return (v) => {
      const items = ((v as Record<string, unknown>)[repName] ?? []) as unknown[];
      return c ? items.map(orNull(c)) : items.slice();
    };
  }
  const el = rep.children[0]!;
  const elName = el.element.name;
  const c = orNull(converterOf(el, mode) ?? ((x) => x));
  return (v) => {
    const items = ((v as Record<string, unknown>)[repName] ?? []) as Record<string, unknown>[];
    return items.map((it) => c(it[elName]));
  };
}

/** A MAP group: its repeated child holds `key` and `value` (by name, else first and second field). */
function mapConverter(node: SchemaTree, mode: AvroValueMode): Convert {
  const kv = node.children[0]!;
  const kvName = kv.element.name;
  const keyNode = kv.children.find((c) => c.element.name === 'key') ?? kv.children[0]!;
  const valueNode = kv.children.find((c) => c.element.name === 'value') ?? kv.children.find((c) => c !== keyNode);
  const keyName = keyNode.element.name;
  const valueName = valueNode?.element.name;
  const c = valueNode ? orNull(converterOf(valueNode, mode) ?? ((x) => x)) : () => null;
  return (v) => {
    const entries = ((v as Record<string, unknown>)[kvName] ?? []) as Record<string, unknown>[];
    return objectOf(
      entries.map((en) => {
        const k = en[keyName];
        return [k instanceof Uint8Array ? text.decode(k) : String(k), valueName === undefined ? null : c(en[valueName])];
      }),
    );
  };
}

/**
 * The schema hyparquet is to read with: LIST, MAP and MAP_KEY_VALUE groups as plain groups and
 * decimals as their physical type (their annotations are applied by avroRowConverter).
 */
export function plainAssemblyMetadata(md: FileMetaData): FileMetaData {
  const schema = md.schema.map((e) => {
    if (!isList(e) && !isMap(e) && !isDecimal(e)) return e;
    const { converted_type: _c, logical_type: _l, ...rest } = e;
    return rest as SchemaElement;
  });
  return { ...md, schema };
}

/**
 * Turns rows hyparquet assembled with plainAssemblyMetadata's schema into Avro-shaped rows, in place
 * (the original metadata gives the annotations).
 */
export function avroRowConverter(md: FileMetaData, mode: AvroValueMode): (row: Record<string, unknown>) => void {
  const cols = parquetSchema(md)
    .children.map((c) => ({ name: c.element.name, repeated: c.element.repetition_type === 'REPEATED', convert: converterOf(c, mode) }))
    .filter((c) => c.convert !== undefined);
  return (row) => {
    for (const c of cols) {
      const v = row[c.name];
      if (v === null || v === undefined) continue;
      row[c.name] = c.repeated ? (v as unknown[]).map(orNull(c.convert!)) : c.convert!(v);
    }
  };
}
