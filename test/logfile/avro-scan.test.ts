// The Avro byte reader (src/logfile/avro-scan.ts) against avsc, the reference: random flat and nested
// schemas and values encoded with avsc; skip lengths exact, wanted fields equal avsc's decode, truncated
// and garbled bytes never accepted where avsc's decode (as decodeAvroContent checks it) fails.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import avro from 'avsc';
import { avroFieldPlan, avroNodeOf, avroTypeFor, decodeAvroRecord, readAvroFields, skipAvro, utf8View } from '../../src/logfile/index.ts';

type Schema = unknown;

// ---- random schemas: a shape tree, named afterwards so every named type is unique ----

type Shape =
  | { t: 'prim'; name: string }
  | { t: 'enum'; n: number }
  | { t: 'fixed'; size: number }
  | { t: 'array'; items: Shape }
  | { t: 'map'; values: Shape }
  | { t: 'union'; branches: Shape[] }
  | { t: 'record'; fields: Shape[] }
  | { t: 'decimal' }
  | { t: 'tsmillis' };

const PRIMS = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'];
const primShape = fc.constantFrom(...PRIMS).map((name): Shape => ({ t: 'prim', name }));

const shapeArb: fc.Arbitrary<Shape> = fc.letrec<{ s: Shape }>((tie) => ({
  s: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'schema' },
    { arbitrary: primShape, weight: 6 },
    { arbitrary: fc.integer({ min: 1, max: 4 }).map((n): Shape => ({ t: 'enum', n })), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 5 }).map((size): Shape => ({ t: 'fixed', size })), weight: 1 },
    { arbitrary: fc.constant<Shape>({ t: 'decimal' }), weight: 1 },
    { arbitrary: fc.constant<Shape>({ t: 'tsmillis' }), weight: 1 },
    { arbitrary: tie('s').map((items): Shape => ({ t: 'array', items })), weight: 1 },
    { arbitrary: tie('s').map((values): Shape => ({ t: 'map', values })), weight: 1 },
    {
      // distinct primitive branches (a union may not hold two of one type), plus at most one record
      arbitrary: fc
        .tuple(fc.subarray(PRIMS, { minLength: 1, maxLength: 4 }), fc.option(tie('s').map((s): Shape => ({ t: 'record', fields: [s] }))), fc.boolean())
        .map(([ps, rec, recFirst]): Shape => {
          const bs: Shape[] = ps.map((name) => ({ t: 'prim', name }));
          if (rec) recFirst ? bs.unshift(rec) : bs.push(rec);
          return { t: 'union', branches: bs };
        }),
      weight: 2,
    },
    { arbitrary: fc.array(tie('s'), { maxLength: 4 }).map((fields): Shape => ({ t: 'record', fields })), weight: 2 },
  ),
})).s;

function schemaOf(shape: Shape, names = { n: 0 }): Schema {
  switch (shape.t) {
    case 'prim':
      return shape.name;
    case 'enum':
      return { type: 'enum', name: `E${names.n++}`, symbols: Array.from({ length: shape.n }, (_, i) => `S${i}`) };
    case 'fixed':
      return { type: 'fixed', name: `F${names.n++}`, size: shape.size };
    case 'decimal':
      return { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 };
    case 'tsmillis':
      return { type: 'long', logicalType: 'timestamp-millis' };
    case 'array':
      return { type: 'array', items: schemaOf(shape.items, names) };
    case 'map':
      return { type: 'map', values: schemaOf(shape.values, names) };
    case 'union':
      return shape.branches.map((b) => schemaOf(b, names));
    case 'record':
      return { type: 'record', name: `R${names.n++}`, fields: shape.fields.map((f, i) => ({ name: `f${i}`, type: schemaOf(f, names) })) };
  }
}

// ---- values in avsc's wrapped-union form (what a wrapUnions: true type encodes) ----

function valueArb(schema: Schema): fc.Arbitrary<unknown> {
  if (typeof schema === 'string') {
    switch (schema) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'int':
        return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
      case 'long':
        return fc.oneof(fc.integer(), fc.maxSafeInteger().map((n) => Math.max(-9007199254740990, Math.min(9007199254740990, n))));
      case 'float':
        return fc.float();
      case 'double':
        return fc.double();
      case 'bytes':
        return fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b));
      case 'string':
        return fc.string({ unit: 'binary', maxLength: 8 });
    }
  }
  if (Array.isArray(schema)) {
    return fc.integer({ min: 0, max: schema.length - 1 }).chain((i) => {
      const b = schema[i] as Schema;
      if (b === 'null') return fc.constant(null);
      const name = typeof b === 'string' ? b : (b as { name?: string; type: string }).name ?? (b as { type: string }).type;
      return valueArb(b).map((v) => ({ [name]: v }));
    });
  }
  const s = schema as { type: string; logicalType?: string; symbols?: string[]; size?: number; items?: Schema; values?: Schema; fields?: { name: string; type: Schema }[] };
  if (s.logicalType === 'decimal') return fc.uint8Array({ maxLength: 5 }).map((b) => Buffer.from(b));
  if (s.logicalType === 'timestamp-millis') return fc.integer();
  switch (s.type) {
    case 'enum':
      return fc.constantFrom(...s.symbols!);
    case 'fixed':
      return fc.uint8Array({ minLength: s.size!, maxLength: s.size! }).map((b) => Buffer.from(b));
    case 'array':
      return fc.array(valueArb(s.items!), { maxLength: 3 });
    case 'map':
      return fc.dictionary(fc.string({ maxLength: 4 }), valueArb(s.values!), { maxKeys: 3 });
    case 'record':
      return fc.record(Object.fromEntries(s.fields!.map((f) => [f.name, valueArb(f.type)])));
  }
  throw new Error(`no value arbitrary for ${JSON.stringify(schema)}`);
}

/** Raw-bytes decimal: encode and compare the bytes avsc stores (the test's encoder needs no logical types). */
const encoderOf = (schema: Schema) => avro.Type.forSchema(stripLogical(schema) as avro.Schema, { wrapUnions: true });

function stripLogical(s: Schema): Schema {
  if (Array.isArray(s)) return s.map(stripLogical);
  if (s && typeof s === 'object') {
    const o = { ...(s as Record<string, unknown>) };
    if (o.logicalType) return o.type;
    if (o.items) o.items = stripLogical(o.items);
    if (o.values) o.values = stripLogical(o.values);
    if (Array.isArray(o.fields)) o.fields = (o.fields as { name: string; type: Schema }[]).map((f) => ({ ...f, type: stripLogical(f.type) }));
    return o;
  }
  return s;
}

/** A top-level record schema of random fields and one value of it, encoded. */
const recordCase = fc
  .array(shapeArb, { minLength: 1, maxLength: 6 })
  .map((fields) => schemaOf({ t: 'record', fields }) as { type: string; name: string; fields: { name: string; type: Schema }[] })
  .chain((schema) => valueArb(schema).map((value) => ({ schema, json: JSON.stringify(schema), bytes: new Uint8Array(encoderOf(schema).toBuffer(value)) })));

/** decodeAvroContent's verdict on one record: its value, or undefined when it would throw. */
function avscDecode(bytes: Uint8Array, json: string): Record<string, unknown> | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const res = avroTypeFor(json).decode(buf, 0);
    if (res.offset !== bytes.length) return undefined;
  } catch {
    return undefined;
  }
  return decodeAvroRecord(bytes, json);
}

/** Wanted fields the byte reader must handle: primitives other than bytes, and [null, X] / [X, null] of those. */
function readableField(t: Schema): boolean {
  const ok = (x: Schema) => typeof x === 'string' && x !== 'bytes';
  if (Array.isArray(t)) return t.length === 2 && t.includes('null') && t.every(ok);
  return ok(t) || (typeof t === 'object' && (t as { logicalType?: string }).logicalType === 'timestamp-millis');
}

const nodeOf = (json: string) => avroNodeOf(avroTypeFor(json))!;

describe('avro byte reader', () => {
  it('skips a random value exactly, and no prefix of it', () => {
    fc.assert(
      fc.property(recordCase, ({ json, bytes }) => {
        const node = nodeOf(json);
        expect(node).toBeDefined();
        expect(skipAvro(node, bytes, 0, bytes.length)).toBe(bytes.length);
        for (let k = 0; k < bytes.length; k++) expect(skipAvro(node, bytes, 0, k)).toBe(-1);
        // the same value in the middle of a larger buffer: positions, not the buffer's end, bound it
        const padded = new Uint8Array(bytes.length + 6);
        padded.set(bytes, 3);
        expect(skipAvro(node, padded, 3, 3 + bytes.length)).toBe(3 + bytes.length);
      }),
      { numRuns: 400 },
    );
  });

  it('reads wanted top-level fields as avsc decodes them (plan exists exactly for readable fields)', () => {
    fc.assert(
      fc.property(recordCase, fc.integer({ min: 0, max: 63 }), ({ schema, json, bytes }, mask) => {
        const wanted = schema.fields.filter((_, i) => mask & (1 << i)).map((f) => f.name);
        const plan = avroFieldPlan(json, [...wanted, 'absent_field']);
        const readable = schema.fields.filter((f) => wanted.includes(f.name)).every((f) => readableField(f.type));
        expect(plan !== undefined).toBe(readable);
        if (!plan) return;
        expect(plan.names).toEqual(wanted);
        const out: unknown[] = [];
        expect(readAvroFields(plan, bytes, utf8View(bytes), 0, bytes.length, out)).toBe(true);
        const ref = decodeAvroRecord(bytes, json);
        expect(out).toEqual(wanted.map((n) => ref[n]));
        // one byte short, or one more: not a record
        expect(readAvroFields(plan, bytes, utf8View(bytes), 0, bytes.length - 1, [])).toBe(false);
        const longer = new Uint8Array(bytes.length + 1);
        longer.set(bytes);
        expect(readAvroFields(plan, longer, utf8View(longer), 0, longer.length, [])).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('garbled bytes: what the byte reader accepts, avsc decodes to the same values', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(recordCase, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), ({ schema, json, bytes }, edits) => {
        if (bytes.length === 0) return;
        const g = bytes.slice();
        for (const [at, v] of edits) g[at % g.length] = v;
        const wanted = schema.fields.filter((f) => readableField(f.type)).map((f) => f.name);
        const plan = avroFieldPlan(json, wanted)!;
        const out: unknown[] = [];
        const ok = readAvroFields(plan, g, utf8View(g), 0, g.length, out);
        const skipOk = skipAvro(plan.record, g, 0, g.length) === g.length;
        expect(skipOk).toBe(ok);
        if (ok) {
          // (avsc only where the byte reader accepts: on garbage, avsc may walk a count of 2^40 nulls)
          const ref = avscDecode(g, json);
          accepted++;
          expect(ref).toBeDefined();
          expect(out).toEqual(wanted.map((n) => ref![n]));
        } else rejected++;
      }),
      { numRuns: 600 },
    );
    // both outcomes happen, or the property says little
    expect(accepted).toBeGreaterThan(20);
    expect(rejected).toBeGreaterThan(20);
  });

  it('a timestamp-millis long beyond 2^53 is a bigint in both readers (avsc alone rejected it: found by the garbled-bytes property, seed 1058699701)', () => {
    const json = JSON.stringify({ type: 'record', name: 'R0', fields: [{ name: 'f0', type: { type: 'long', logicalType: 'timestamp-millis' } }, { name: 'f1', type: { type: 'long', logicalType: 'timestamp-millis' } }] });
    const bytes = Uint8Array.from([0, 128, 128, 128, 128, 128, 128, 128, 32]);
    const plan = avroFieldPlan(json, ['f0', 'f1'])!;
    const out: unknown[] = [];
    expect(readAvroFields(plan, bytes, utf8View(bytes), 0, bytes.length, out)).toBe(true);
    expect(out).toEqual([0, 2n ** 53n]);
    expect(avscDecode(bytes, json)).toEqual({ f0: 0, f1: 2n ** 53n });
  });

  it('edge values read as avsc reads them: -0, NaN, infinities, extreme ints, bad UTF-8, bytes > 1 as booleans', () => {
    const schema = {
      type: 'record',
      name: 'r',
      fields: ['float', 'double', 'int', 'long', 'string', 'boolean'].map((t) => ({ name: t, type: t })).concat([{ name: 'n', type: ['double', 'null'] as never }]),
    };
    const json = JSON.stringify(schema);
    const type = avroTypeFor(json);
    const plan = avroFieldPlan(json, schema.fields.map((f) => f.name))!;
    const cases = [
      { float: -0, double: -0, int: -(2 ** 31), long: -9007199254740990, string: 'ünï \u{1F600}', boolean: true, n: -0 },
      { float: Number.NaN, double: Number.NaN, int: 2 ** 31 - 1, long: 9007199254740990, string: '', boolean: false, n: Number.NaN },
      { float: 1, double: 1, int: 1, long: -(2n ** 63n), string: 'x', boolean: true, n: 1 },
      { float: 1, double: 1, int: 1, long: 2n ** 63n - 1n, string: 'x', boolean: true, n: 1 },
      { float: -Infinity, double: Infinity, int: 0, long: 0, string: 'x', boolean: false, n: null },
    ];
    for (const c of cases) {
      const bytes = new Uint8Array(type.toBuffer(c));
      const out: unknown[] = [];
      expect(readAvroFields(plan, bytes, utf8View(bytes), 0, bytes.length, out)).toBe(true);
      const ref = decodeAvroRecord(bytes, json);
      out.forEach((v, i) => expect(Object.is(v, ref[plan.names[i]!]), `${plan.names[i]}: ${String(v)}`).toBe(true));
    }
    // string of invalid UTF-8 (lone continuation, truncated sequence) and a boolean byte of 7
    const raw = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0x80, 0xe2, 0x82, 0x41, 7, 2]);
    const out: unknown[] = [];
    expect(readAvroFields(plan, raw, utf8View(raw), 0, raw.length, out)).toBe(true);
    expect(out).toEqual(Object.values(decodeAvroRecord(raw, json)));
    expect(out[4]).toContain('\uFFFD');
    expect(out[5]).toBe(true);
  });

  it('checks what avsc checks: union and enum indices, long precision, negative lengths', () => {
    const json = JSON.stringify({
      type: 'record',
      name: 'r',
      fields: [
        { name: 'u', type: ['null', 'string'] },
        { name: 'e', type: { type: 'enum', name: 'E', symbols: ['A', 'B'] } },
        { name: 'l', type: 'long' },
      ],
    });
    const plan = avroFieldPlan(json, ['u', 'l'])!;
    const read = (bytes: number[]) => {
      const b = Uint8Array.from(bytes);
      const out: unknown[] = [];
      return readAvroFields(plan, b, utf8View(b), 0, b.length, out) ? out : undefined;
    };
    expect(read([2, 2, 0x61, 2, 4])).toEqual(['a', 2]);
    expect(read([0, 0, 1])).toEqual([null, -1]);
    expect(read([4, 0, 0])).toBeUndefined(); // union index 2
    expect(read([0, 4, 0])).toBeUndefined(); // enum index 2
    expect(read([0, 1, 0])).toBeUndefined(); // enum index -1
    expect(read([2, 1, 0, 0])).toBeUndefined(); // string length -1
    // longs beyond 2^53: bigints, as avroTypeFor's long decodes them (avsc's own long threw "potential
    // precision loss", and the block was unreadable)
    const big = (n: bigint) => {
      let v = n << 1n;
      const out: number[] = [];
      do {
        let b = Number(v & 0x7fn);
        v >>= 7n;
        if (v) b |= 0x80;
        out.push(b);
      } while (v);
      return out;
    };
    expect(read([0, 0, ...big(2n ** 53n)])).toEqual([null, 2n ** 53n]);
    expect(read([0, 0, ...big(2n ** 53n - 4n)])).toEqual([null, 2 ** 53 - 4]);
    expect(read([0, 0, ...big(2n ** 62n + 3n)])).toEqual([null, 2n ** 62n + 3n]);
    expect(avscDecode(Uint8Array.from([0, 0, ...big(2n ** 53n)]), json)).toMatchObject({ l: 2n ** 53n });
    expect(avscDecode(Uint8Array.from([0, 0, ...big(2n ** 53n - 4n)]), json)).toMatchObject({ l: 2 ** 53 - 4 });
    expect(avscDecode(Uint8Array.from([0, 0, ...big(2n ** 63n - 1n)]), json)).toMatchObject({ l: 2n ** 63n - 1n });
    for (const bytes of [[4, 0, 0], [0, 4, 0], [2, 1, 0, 0]]) expect(avscDecode(Uint8Array.from(bytes), json)).toBeUndefined();
  });

  it('walks arrays and maps written in blocks with byte sizes (negative counts)', () => {
    const json = JSON.stringify({
      type: 'record',
      name: 'r',
      fields: [
        { name: 'a', type: { type: 'array', items: 'int' } },
        { name: 'm', type: { type: 'map', values: 'string' } },
        { name: 'n', type: { type: 'array', items: 'null' } },
        { name: 'k', type: 'string' },
      ],
    });
    const plan = avroFieldPlan(json, ['k'])!;
    // a: block of -2 items (size 2): 1, 2; then 1 item: 3; end | m: block of -1 (size 4): "x" -> "y"; end
    // n: 5 nulls (no bytes) | k: "z"
    const bytes = Uint8Array.from([3, 4, 2, 4, 2, 6, 0, 1, 8, 2, 0x78, 2, 0x79, 0, 10, 0, 2, 0x7a]);
    const out: unknown[] = [];
    expect(readAvroFields(plan, bytes, utf8View(bytes), 0, bytes.length, out)).toBe(true);
    expect(out).toEqual(['z']);
    const ref = avscDecode(bytes, json)!;
    expect(ref.a).toEqual([1, 2, 3]);
    expect(ref.n).toEqual([null, null, null, null, null]);
    expect(ref.k).toBe('z');
    // a count larger than the bytes left for items of a byte or more: rejected without walking
    const huge = Uint8Array.from([0xfe, 0xff, 0xff, 0xff, 0x0f, 2, 0, 0, 0, 0]);
    expect(skipAvro(plan.record, huge, 0, huge.length)).toBe(-1);
  });

  it('declines schemas it does not read: nested or complex wanted fields, decimals, wrapped unions', () => {
    const rec = (fields: { name: string; type: unknown }[]) => JSON.stringify({ type: 'record', name: 'r', fields });
    expect(avroFieldPlan(rec([{ name: 'k', type: { type: 'record', name: 'n', fields: [{ name: 'k', type: 'string' }] } }]), ['k'])).toBeUndefined();
    expect(avroFieldPlan(rec([{ name: 'k', type: ['null', 'string', 'int'] }]), ['k'])).toBeUndefined();
    expect(avroFieldPlan(rec([{ name: 'k', type: { type: 'bytes', logicalType: 'decimal', precision: 4, scale: 1 } }]), ['k'])).toBeUndefined();
    expect(avroFieldPlan(rec([{ name: 'k', type: 'bytes' }]), ['k'])).toBeUndefined();
    expect(avroFieldPlan('"string"', ['k'])).toBeUndefined();
    expect(avroFieldPlan('{not json', ['k'])).toBeUndefined();
    // skipped fields may be anything, a wrapped union (two records) included
    const wrapped = rec([
      { name: 'w', type: ['null', { type: 'record', name: 'A', fields: [] }, { type: 'record', name: 'B', fields: [{ name: 'x', type: 'int' }] }] },
      { name: 'k', type: 'string' },
    ]);
    expect(avroTypeFor(wrapped).typeName).toBe('record');
    expect(avroFieldPlan(wrapped, ['k'])).toBeDefined();
    expect(avroFieldPlan(wrapped, ['w'])).toBeUndefined();
  });
});
