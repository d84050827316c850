// Test-only writer of parquet files in the layouts parquet-avro writes (AvroSchemaConverter /
// AvroWriteSupport), which hyparquet-writer's own shredder cannot produce: the legacy 2-level list
// (`parquet.avro.write-old-list-structure`, parquet-avro's default and what Hudi's base files hold:
// `repeated group array { … }` / `repeated int32 array`) and maps as `repeated group key_value
// (MAP_KEY_VALUE)`; or the 3-level list (`repeated group list { element }`). Rows are shredded here
// (Dremel repetition/definition levels computed from the Avro values) and the column chunks are
// encoded by hyparquet-writer's writeColumn, so the file is real parquet any reader takes.
import type { KeyValue, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { avroToParquetSchema, convertFieldValue, prepareHoodieSchema, type AvroRecordSchema, type AvroType } from '../../src/parquet/write.ts';

export type ListLayout = '2-level' | '3-level';

interface Node {
  el: SchemaElement;
  kind: 'leaf' | 'record' | 'list' | 'map';
  children: Node[];
  /** list: the repeated node is the element (2-level) */
  twoLevel?: boolean;
  leaf?: number;
}

interface Leaf {
  path: SchemaElement[];
  values: unknown[];
  rep: number[];
  def: number[];
  maxDef: number;
  maxRep: number;
}

function unwrap(t: AvroType): { t: AvroType; optional: boolean } {
  if (!Array.isArray(t)) return { t, optional: false };
  const rest = t.filter((x) => x !== 'null');
  return { t: rest[0]!, optional: rest.length !== t.length };
}

/** The parquet-avro schema of an Avro type (named types inlined: the generator's schemas have none repeated). */
function build(name: string, type: AvroType, layout: ListLayout, forceRequired = false): Node {
  const { t, optional } = unwrap(type);
  const repetition_type = optional && !forceRequired ? 'OPTIONAL' : 'REQUIRED';
  if (typeof t === 'object' && !Array.isArray(t) && t.type === 'record') {
    const children = (t as AvroRecordSchema).fields.map((f) => build(f.name, f.type, layout));
    return { el: { name, repetition_type, num_children: children.length }, kind: 'record', children };
  }
  if (typeof t === 'object' && !Array.isArray(t) && t.type === 'array') {
    const items = (t as { items: AvroType }).items;
    const el = { name, repetition_type, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } } as SchemaElement;
    if (layout === '2-level') {
      // the repeated field is the (required) element itself
      const item = build('array', items, layout, true);
      item.el = { ...item.el, repetition_type: 'REPEATED' };
      return { el, kind: 'list', children: [item], twoLevel: true };
    }
    const element = build('element', items, layout);
    return { el, kind: 'list', children: [{ el: { name: 'list', repetition_type: 'REPEATED', num_children: 1 }, kind: 'record', children: [element] }] };
  }
  if (typeof t === 'object' && !Array.isArray(t) && t.type === 'map') {
    const values = (t as { values: AvroType }).values;
    const key: Node = { el: { name: 'key', repetition_type: 'REQUIRED', type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } }, kind: 'leaf', children: [] };
    const kv: Node = { el: { name: 'key_value', repetition_type: 'REPEATED', num_children: 2, converted_type: 'MAP_KEY_VALUE' }, kind: 'record', children: [key, build('value', values, layout)] };
    return { el: { name, repetition_type, num_children: 1, converted_type: 'MAP', logical_type: { type: 'MAP' } } as SchemaElement, kind: 'map', children: [kv] };
  }
  // primitives as the production converter maps them
  const el = avroToParquetSchema({ type: 'record', name: 'x', fields: [{ name, type: t }] })[1]!;
  return { el: { ...el, repetition_type }, kind: 'leaf', children: [] };
}

function flatten(n: Node, out: SchemaElement[]): void {
  out.push(n.el);
  for (const c of n.children) flatten(c, out);
}

function collectLeaves(n: Node, path: SchemaElement[], leaves: Leaf[]): void {
  const p = [...path, n.el];
  if (n.children.length === 0) {
    n.leaf = leaves.length;
    // (the root element has no repetition)
    const maxDef = p.slice(1).filter((e) => e.repetition_type !== 'REQUIRED').length;
    const maxRep = p.slice(1).filter((e) => e.repetition_type === 'REPEATED').length;
    leaves.push({ path: p, values: [], rep: [], def: [], maxDef, maxRep });
    return;
  }
  for (const c of n.children) collectLeaves(c, p, leaves);
}

function emitNull(n: Node, leaves: Leaf[], rep: number, def: number): void {
  if (n.leaf !== undefined) {
    const l = leaves[n.leaf]!;
    l.rep.push(rep);
    l.def.push(def);
    l.values.push(null);
    return;
  }
  for (const c of n.children) emitNull(c, leaves, rep, def);
}

/**
 * Shreds `v` (hyparquet-writer's value shapes: lists arrays, maps [{key, value}], records objects) at
 * node `n`; `rep` = repetition level of the first value, `def` = definition level above `n`, `rl` =
 * repetition levels above `n`.
 */
function shred(n: Node, v: unknown, leaves: Leaf[], rep: number, def: number, rl: number): void {
  if (n.el.repetition_type === 'REPEATED') {
    const items = (v ?? []) as unknown[];
    if (items.length === 0) return emitNull(n, leaves, rep, def);
    items.forEach((item, i) => shredValue(n, item, leaves, i === 0 ? rep : rl + 1, def + 1, rl + 1));
    return;
  }
  if (v === null || v === undefined) {
    if (n.el.repetition_type === 'REQUIRED') throw new Error(`required ${n.el.name} is null`);
    return emitNull(n, leaves, rep, def);
  }
  shredValue(n, v, leaves, rep, n.el.repetition_type === 'OPTIONAL' ? def + 1 : def, rl);
}

/** A defined value at `n` (its own level already counted in `def`). */
function shredValue(n: Node, v: unknown, leaves: Leaf[], rep: number, def: number, rl: number): void {
  if (n.leaf !== undefined) {
    const l = leaves[n.leaf]!;
    l.rep.push(rep);
    l.def.push(def);
    l.values.push(v);
    return;
  }
  if (n.kind === 'list') {
    const r = n.children[0]!;
    if (n.twoLevel) return shred(r, v, leaves, rep, def, rl);
    // 3-level: the repeated `list` group holds one `element`
    const items = v as unknown[];
    if (items.length === 0) return emitNull(r, leaves, rep, def);
    items.forEach((item, i) => shred(r.children[0]!, item, leaves, i === 0 ? rep : rl + 1, def + 1, rl + 1));
    return;
  }
  if (n.kind === 'map') return shred(n.children[0]!, v, leaves, rep, def, rl);
  const o = v as Record<string, unknown>;
  for (const c of n.children) shred(c, o[c.el.name], leaves, rep, def, rl);
}

export interface AvroParquetOptions {
  /** Avro schema of the rows (meta fields included) */
  schema: AvroRecordSchema;
  /** Avro values (as avsc decodes them / as writeHoodieParquet takes them) */
  rows: readonly Record<string, unknown>[];
  listLayout: ListLayout;
  rowGroupSize?: number;
  kv?: KeyValue[];
}

/** The file's schema elements (for a test to check the layout). */
export function avroParquetSchema(schema: AvroRecordSchema, layout: ListLayout): SchemaElement[] {
  const out: SchemaElement[] = [{ name: schema.name, num_children: schema.fields.length }];
  for (const f of schema.fields) flatten(build(f.name, f.type, layout), out);
  return out;
}

export function writeAvroParquet(o: AvroParquetOptions): Uint8Array {
  const p = prepareHoodieSchema(o.schema, o.schema.fields[0]!.name);
  const nodes = o.schema.fields.map((f) => build(f.name, f.type, o.listLayout));
  const schema: SchemaElement[] = [{ name: o.schema.name, num_children: nodes.length }];
  for (const n of nodes) flatten(n, schema);
  const writer = new ByteWriter();
  writer.appendUint32(0x31524150);
  const groups = [];
  const size = o.rowGroupSize ?? 1000;
  for (let start = 0; start < o.rows.length; start += size) {
    const rows = o.rows.slice(start, start + size);
    const columns = [];
    const groupStart = writer.offset;
    for (const [j, f] of o.schema.fields.entries()) {
      const leaves: Leaf[] = [];
      collectLeaves(nodes[j]!, [schema[0]!], leaves);
      for (const r of rows) shred(nodes[j]!, convertFieldValue(p, f, r[f.name]), leaves, 0, 0, 0);
      for (const l of leaves) {
        const element = l.path.at(-1)!;
        // one value per slot, null where undefined (as hyparquet-writer's own shredder hands them over)
        const pageData = { values: l.values, definitionLevels: l.maxDef ? l.def : [], repetitionLevels: l.maxRep ? l.rep : [], maxDefinitionLevel: l.maxDef };
        const result = writeColumn({
          writer,
          column: {
            columnName: l.path.slice(1).map((e) => e.name).join('.'),
            // (the page writer refuses a REPEATED leaf, the 2-level list of primitives: its levels say it)
            element: element.repetition_type === 'REPEATED' ? { ...element, repetition_type: 'REQUIRED' } : element,
            schemaPath: l.path,
            codec: 'SNAPPY',
            compressors: { SNAPPY: snappyCompress },
            stats: true,
            pageSize: 1 << 20,
            columnIndex: false,
            offsetIndex: false,
          },
          pageData,
        } as never) as { chunk: unknown };
        columns.push(result.chunk);
      }
    }
    groups.push({ columns, total_byte_size: BigInt(writer.offset - groupStart), num_rows: BigInt(rows.length) });
  }
  const kv = o.kv ?? [
    { key: 'parquet.avro.schema', value: JSON.stringify(o.schema) },
    { key: 'writer.model.name', value: 'avro' },
  ];
  writeMetadata(writer, { version: 1, created_by: 'parquet-mr version 1.13.1 (tblcli test layout writer)', schema, num_rows: BigInt(o.rows.length), row_groups: groups, key_value_metadata: kv } as never);
  writer.appendUint32(0x31524150);
  return new Uint8Array(writer.getBytes());
}
