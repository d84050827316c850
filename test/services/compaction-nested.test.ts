// Issue 13 §2: `compaction run` on a v9 MOR table whose schema has a nullable record, a nullable
// map<string, record> and a nullable array<record>, its base file in parquet-avro's layouts (the legacy
// 2-level list `arrayField` → repeated group `array`, the map as key_value MAP_KEY_VALUE: what Hudi's
// own base files hold, e.g. hudi-rs v8_nonpartitioned), one Avro data block updating a row and one
// DELETE block. It failed with `v.map is not a function` (hyparquet reads that list as {array: [...]}).
// The new base file is checked against DuckDB's reading of it and against the rows Hudi's merge gives.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { encodeAvroDataBlock, encodeDeleteBlock } from '../../src/logfile/index.ts';
import { hoodieMetaValues, withHoodieMetaFields, type AvroRecordSchema } from '../../src/parquet/write.ts';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { canonRows } from '../support/avro-canon.ts';
import { avroParquetSchema, writeAvroParquet } from '../support/parquet-avro-layout.ts';
import { buildV9Table, FILE_ID } from './support/v9-table.ts';

const NS = 'hoodie.nested_mor';
const TABLE: AvroRecordSchema = {
  type: 'record',
  name: 'nested_mor_record',
  namespace: NS,
  fields: [
    { name: 'id', type: ['null', 'string'], default: null },
    { name: 'ts', type: ['null', 'long'], default: null },
    { name: 'name', type: ['null', 'string'], default: null },
    {
      name: 'structField',
      type: ['null', { type: 'record', name: 'structField', namespace: `${NS}.nested_mor_record`, fields: [
        { name: 'field1', type: ['null', 'string'], default: null },
        { name: 'field2', type: ['null', 'int'], default: null },
        { name: 'child_struct', type: ['null', { type: 'record', name: 'child_struct', namespace: `${NS}.nested_mor_record.structField`, fields: [
          { name: 'child_field1', type: ['null', 'double'], default: null },
          { name: 'child_field2', type: ['null', 'boolean'], default: null },
        ] }], default: null },
      ] }],
      default: null,
    },
    {
      name: 'mapField',
      type: ['null', { type: 'map', values: ['null', { type: 'record', name: 'mapField', namespace: `${NS}.nested_mor_record`, fields: [
        { name: 'map_field_value_struct_f1', type: ['null', 'double'], default: null },
        { name: 'map_field_value_struct_f2', type: ['null', 'boolean'], default: null },
      ] }] }],
      default: null,
    },
    {
      name: 'arrayField',
      type: ['null', { type: 'array', items: ['null', { type: 'record', name: 'arrayField', namespace: `${NS}.nested_mor_record`, fields: [
        { name: 'arr_struct_f1', type: ['null', 'string'], default: null },
        { name: 'arr_struct_f2', type: ['null', 'int'], default: null },
      ] }] }],
      default: null,
    },
  ],
};
const FULL = withHoodieMetaFields(TABLE);

function row(id: string, ts: number, n: number, meta: { instant: string; seq: number; fileName: string }): Record<string, unknown> {
  return {
    ...hoodieMetaValues({ instant: meta.instant, seq: meta.seq, recordKey: id, partitionPath: '', fileName: meta.fileName }),
    id,
    ts,
    name: `name-${id}-${n}`,
    structField: { field1: `f-${n}`, field2: n, child_struct: n % 2 ? null : { child_field1: n + 0.5, child_field2: n % 3 === 0 } },
    mapField: { [`key${n}`]: { map_field_value_struct_f1: n * 1.25, map_field_value_struct_f2: true }, [`other${n}`]: { map_field_value_struct_f1: null, map_field_value_struct_f2: false } },
    arrayField: Array.from({ length: n % 3 + 1 }, (_, k) => ({ arr_struct_f1: `c${n}-${k}`, arr_struct_f2: k * 100 + n })),
  };
}

async function duckRows(path: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${path.replaceAll("'", "''")}', file_row_number = true) ORDER BY file_row_number`);
  const rows = r.getRowObjects() as Record<string, unknown>[];
  c.closeSync();
  return rows;
}

describe.skipIf(!HAVE_FIXTURES)('compaction of nested columns (issue 13 §2)', () => {
  it('the legacy layouts are what Hudi itself writes (hudi-rs v8_nonpartitioned base file)', () => {
    const dir = table('sample_table/cow/v8_nonpartitioned');
    const f = join(dir, '2746610d-ad02-4adb-a038-5cbb99cbd455-0_0-75-100_20250713010536861.parquet');
    const b = readFileSync(f);
    const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    const at = (n: string) => md.schema.findIndex((e) => e.name === n);
    expect(md.schema[at('arrayField') + 1]).toMatchObject({ name: 'array', repetition_type: 'REPEATED', num_children: 2 });
    expect(md.schema[at('mapField') + 1]).toMatchObject({ name: 'key_value', repetition_type: 'REPEATED', converted_type: 'MAP_KEY_VALUE' });
    // and the test writer writes the same layout for the same schema
    const ours = avroParquetSchema(FULL, '2-level');
    const o = (n: string) => ours.findIndex((e) => e.name === n);
    expect(ours[o('arrayField') + 1]).toMatchObject({ name: 'array', repetition_type: 'REPEATED', num_children: 2 });
    expect(ours[o('mapField') + 1]).toMatchObject({ name: 'key_value', repetition_type: 'REPEATED', converted_type: 'MAP_KEY_VALUE' });
  });

  for (const withDelete of [true, false]) {
    it(`an update${withDelete ? ' and a DELETE block' : ''} over a base file in the legacy list/map layout`, async () => {
      let base: Record<string, unknown>[] = [];
      const t = buildV9Table({
        schema: TABLE,
        recordKey: 'id',
        ordering: 'ts',
        baseFile: (fileName, instant) => {
          base = ['1', '2', '3', '4'].map((id, i) => row(id, 10, i + 1, { instant, seq: i, fileName }));
          return writeAvroParquet({ schema: FULL, rows: base, listLayout: '2-level' });
        },
        logs: [
          (instant) => encodeAvroDataBlock({ instantTime: instant, schema: FULL, records: [row('2', 20, 7, { instant, seq: 0, fileName: FILE_ID })] }),
          ...(withDelete ? [(instant: string) => encodeDeleteBlock({ instantTime: instant, schema: FULL, deletes: [{ recordKey: '3', partitionPath: '', orderingVal: null }] })] : []),
        ],
      });
      // DuckDB reads the crafted base file as the rows it was written from
      expect(canonRows(await duckRows(join(t.base, t.baseFileName)), FULL)).toEqual(canonRows(base, FULL));

      const s = await runCli(['compaction', 'schedule', '--path', t.base, '--strategy', 'all']);
      expect(s.exitCode, s.stderr).toBe(0);
      const r = await runCli(['compaction', 'run', '--path', t.base, '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const { status, instant } = JSON.parse(r.stdout) as { status: string; instant: string };
      expect(status).toBe('completed');
      const fileName = readdirSync(t.base).find((n) => n.endsWith(`_${instant}.parquet`))!;
      const written = await duckRows(join(t.base, fileName));
      const updated = row('2', 20, 7, { instant: t.instants[1]!, seq: 0, fileName });
      const expected = [base[0], updated, ...(withDelete ? [] : [base[2]]), base[3]].map((x) => ({ ...x!, _hoodie_file_name: fileName }));
      expect(canonRows(written, FULL)).toEqual(canonRows(expected, FULL));
      expect(instant > t.instants.at(-1)!).toBe(true);
    });
  }
});
