// appendAvroRecord against avsc: any flat record (ints and longs at their limits, floats, doubles,
// booleans, strings of any length and script, bytes, nullable unions either way round) copied from its
// Avro bytes into packed columns holds the values avsc decodes, as the packed writer stores them
// (little-endian fixed widths, UTF-8 strings); null meta fields take their defaults, SKIP columns stay
// empty, and a block schema with promoted or nested fields gets no plan.
import avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedColumn } from '../../src/parquet/packed.ts';
import { appendAvroRecord, avroPackedPlan, SKIP } from '../../src/services/rewrite/avro-packed.ts';

const SCHEMA = {
  type: 'record',
  name: 'r',
  fields: [
    { name: 'meta', type: ['null', 'string'], default: null },
    { name: 'i', type: 'int' },
    { name: 'l', type: 'long' },
    { name: 'f', type: 'float' },
    { name: 'd', type: 'double' },
    { name: 'b', type: 'boolean' },
    { name: 's', type: 'string' },
    { name: 'y', type: 'bytes' },
    { name: 'ol', type: ['long', 'null'] },
    { name: 'gone', type: 'string' },
    { name: 'const', type: ['null', 'string'], default: null },
  ],
};
const NAMES = ['meta', 'i', 'l', 'f', 'd', 'b', 's', 'y', 'ol', 'const', 'absent'];
const TYPES = ['BYTE_ARRAY', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'BOOLEAN', 'BYTE_ARRAY', 'BYTE_ARRAY', 'INT64', 'BYTE_ARRAY', 'INT32'];

const record = fc.record({
  meta: fc.option(fc.string({ unit: 'binary' }), { nil: null }),
  i: fc.integer({ min: -2147483648, max: 2147483647 }),
  l: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(0n, -1n, 2n ** 63n - 1n, -(2n ** 63n))),
  f: fc.float({ noNaN: true }),
  d: fc.double({ noNaN: true }),
  b: fc.boolean(),
  s: fc.string({ unit: 'binary', maxLength: 300 }),
  y: fc.uint8Array({ maxLength: 200 }),
  ol: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
  gone: fc.string(),
  const: fc.option(fc.string(), { nil: null }),
});

describe('appendAvroRecord', () => {
  const longType = avro.types.LongType.__with({
    fromBuffer: (b: Buffer) => b.readBigInt64LE(),
    toBuffer: (n: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(n);
      return b;
    },
    fromJSON: BigInt,
    toJSON: Number,
    isValid: (n: unknown) => typeof n === 'bigint',
    compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
  });
  const bigType = avro.Type.forSchema(SCHEMA as avro.Schema, { wrapUnions: false, registry: { long: longType } as never });

  it('copies any flat record as avsc decodes it', () => {
    const plan = avroPackedPlan(JSON.stringify(SCHEMA), NAMES, TYPES)!;
    expect(plan).toBeDefined();
    const utf8 = new TextEncoder();
    fc.assert(
      fc.property(record, (r) => {
        const buf = bigType.toBuffer({ ...r, y: Buffer.from(r.y) });
        const content = new Uint8Array(buf.length + 10);
        content.set(buf, 5);
        const out = TYPES.map((t) => new PackedColumn(t as never, 1));
        appendAvroRecord(plan, content, 5, 5 + buf.length, out, [utf8.encode('DEFAULT'), ...NAMES.slice(1).map(() => undefined)], NAMES.map((n) => (n === 'const' ? SKIP : undefined)));
        const back = bigType.fromBuffer(buf) as Record<string, unknown>;
        const bytes = (j: number) => out[j]!.data.slice(out[j]!.start(0), out[j]!.end(0));
        const dv = (j: number) => new DataView(bytes(j).buffer);
        expect(new TextDecoder().decode(bytes(0))).toBe(back.meta === null ? 'DEFAULT' : new TextDecoder().decode(utf8.encode(back.meta as string)));
        expect(dv(1).getInt32(0, true)).toBe(back.i);
        expect(dv(2).getBigInt64(0, true)).toBe(back.l);
        expect(Object.is(dv(3).getFloat32(0, true), Math.fround(back.f as number))).toBe(true);
        expect(Object.is(dv(4).getFloat64(0, true), back.d)).toBe(true);
        expect(bytes(5)[0]).toBe(back.b ? 1 : 0);
        expect(Buffer.compare(bytes(6), Buffer.from(back.s as string))).toBe(0);
        expect(Buffer.compare(bytes(7), back.y as Buffer)).toBe(0);
        if (back.ol === null) expect(out[8]!.isNull(0)).toBe(true);
        else expect(dv(8).getBigInt64(0, true)).toBe(back.ol);
        expect(out[9]!.length).toBe(0); // SKIP
        expect(out[10]!.isNull(0)).toBe(true); // not in the block schema
        for (const [j, c] of out.entries()) if (j !== 9) expect(c.length, NAMES[j]).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it('no plan for promoted, nested or enum fields', () => {
    const with_ = (t: unknown) => JSON.stringify({ type: 'record', name: 'r', fields: [{ name: 'l', type: t }] });
    expect(avroPackedPlan(with_('int'), ['l'], ['INT64'])).toBeUndefined();
    expect(avroPackedPlan(with_({ type: 'record', name: 'n', fields: [] }), ['l'], ['INT64'])).toBeUndefined();
    expect(avroPackedPlan(with_({ type: 'enum', name: 'e', symbols: ['A'] }), ['l'], ['BYTE_ARRAY'])).toBeUndefined();
    expect(avroPackedPlan(with_(['null', 'long', 'string']), ['l'], ['INT64'])).toBeUndefined();
    expect(avroPackedPlan(with_({ type: 'bytes', logicalType: 'decimal', precision: 4, scale: 2 }), ['l'], ['BYTE_ARRAY'])).toBeUndefined();
    expect(avroPackedPlan(with_({ type: 'long', logicalType: 'timestamp-micros' }), ['l'], ['INT64'])).toBeDefined();
  });
});
