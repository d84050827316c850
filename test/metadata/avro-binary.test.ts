import { describe, expect, it } from 'vitest';
import { decodeAvroBinary, encodeAvroBinary, parseAvroSchema } from '../../src/metadata/index.ts';
import { avsc } from '../../src/metadata/avsc.ts';

const schema = {
  type: 'record',
  name: 'R',
  namespace: 'x.y',
  fields: [
    { name: 'l', type: 'long' },
    { name: 'm', type: { type: 'map', values: { type: 'record', name: 'V', fields: [{ name: 'size', type: 'long' }, { name: 'del', type: 'boolean' }] } } },
    { name: 'u', type: ['null', 'V', { type: 'record', name: 'W', fields: [{ name: 'value', type: 'string' }] }], default: null },
    { name: 'n', type: ['null', 'string'], default: null },
    { name: 'a', type: { type: 'array', items: ['null', 'double'] } },
    { name: 'f', type: 'float' },
    { name: 'b', type: 'bytes' },
    { name: 'e', type: { type: 'enum', name: 'E', symbols: ['A', 'B'] } },
    { name: 'late', type: 'boolean', default: false },
  ],
};

describe('schema-driven Avro binary codec', () => {
  const node = parseAvroSchema(JSON.stringify(schema));
  const value = {
    l: -(2n ** 63n),
    m: new Map([['30', { size: 9007199254740993n, del: false }], ['10', { size: 1n, del: true }], ['2', { size: 0n, del: false }]]),
    u: { W: { value: 'ü' } },
    n: 'x',
    a: [1.5, null, -0],
    f: 0.1,
    b: Uint8Array.of(0, 255),
    e: 'B',
    late: true,
  };

  it('round-trips 64-bit longs, map order (integer-like keys too), unions by branch name', () => {
    const bytes = encodeAvroBinary(node, value);
    const back = decodeAvroBinary(node, bytes) as typeof value;
    expect([...back.m.keys()]).toEqual(['30', '10', '2']);
    expect(back.l).toBe(-(2n ** 63n));
    expect(back.m.get('30')!.size).toBe(9007199254740993n);
    expect(back.u).toEqual({ W: { value: 'ü' } });
    expect(Object.is(back.a[2], -0)).toBe(true);
    expect(back.f).toBe(Math.fround(0.1));
    expect(encodeAvroBinary(node, back)).toEqual(bytes);
    expect(encodeAvroBinary(node, { ...value, l: 2n ** 63n - 1n })).toBeInstanceOf(Uint8Array);
  });

  it('agrees with avsc (an independent codec) where avsc can represent the value', () => {
    const t = avsc().Type.forSchema(schema as never, { wrapUnions: 'auto' });
    const small = { ...value, l: -5n, m: new Map([['k', { size: 7n, del: true }]]) };
    const ours = encodeAvroBinary(node, small);
    const theirs = t.toBuffer({ l: -5, m: { k: { size: 7, del: true } }, u: { 'x.y.W': { value: 'ü' } }, n: 'x', a: [1.5, null, -0], f: 0.1, b: Buffer.from([0, 255]), e: 'B', late: true });
    expect(Buffer.from(ours).equals(theirs)).toBe(true);
    // avsc's negative block counts (with byte sizes) decode too
    const blocked = t.toBuffer({ l: 1, m: {}, u: null, n: null, a: [1, 2], f: 0, b: Buffer.alloc(0), e: 'A', late: false });
    expect((decodeAvroBinary(node, blocked) as { a: number[] }).a).toEqual([1, 2]);
  });

  it('defaults fill missing fields; unknown fields, branches and bad values are one-line errors naming the path', () => {
    const { late: _late, u: _u, ...rest } = value;
    const back = decodeAvroBinary(node, encodeAvroBinary(node, rest)) as typeof value;
    expect(back.late).toBe(false);
    expect(back.u).toBeNull();
    expect(() => encodeAvroBinary(node, { ...value, extra: 1 })).toThrow(/datum\.extra: the writer schema's x\.y\.R has no field extra/);
    expect(() => encodeAvroBinary(node, { ...value, u: { Q: {} } })).toThrow(/datum\.u: the writer schema's union has no branch Q/);
    expect(() => encodeAvroBinary(node, { ...value, m: new Map([['k', { size: 1.5, del: false }]]) })).toThrow(/datum\.m\[k\]\.size: expected a long/);
    expect(() => encodeAvroBinary(node, { ...value, l: 2n ** 63n })).toThrow(/long out of range/);
    expect(() => decodeAvroBinary(node, Uint8Array.of(2), 'x.bin')).toThrow(/x\.bin: truncated or corrupt Avro/);
    expect(() => decodeAvroBinary(node, Uint8Array.of(...encodeAvroBinary(node, value), 0))).toThrow(/trailing bytes/);
    expect(() => parseAvroSchema('{"type":"record","name":"A","fields":[{"name":"x","type":"Nope"}]}')).toThrow(/unknown type Nope/);
  });
});
