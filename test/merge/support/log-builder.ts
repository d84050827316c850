// Test-only encoder of log blocks (format-data.md §2–3) to build precise merge scenarios.
import avro from 'avsc';
import { parquetWriteBuffer } from 'hyparquet-writer';

export const SCHEMA = {
  type: 'record',
  name: 'rec',
  fields: [
    { name: '_hoodie_record_key', type: ['null', 'string'], default: null },
    { name: 'ts', type: 'long' },
    { name: 'v', type: 'string' },
    { name: '_hoodie_is_deleted', type: 'boolean', default: false },
  ],
};
const TYPE = avro.Type.forSchema(SCHEMA as avro.Schema, { wrapUnions: false });

function i32(n: number): Buffer { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; }
function i64(n: number): Buffer { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(n)); return b; }
function map(m: Record<number, string>): Buffer {
  const parts = [i32(Object.keys(m).length)];
  for (const [k, v] of Object.entries(m)) { const b = Buffer.from(v); parts.push(i32(Number(k)), i32(b.length), b); }
  return Buffer.concat(parts);
}
function block(type: number, header: Record<number, string>, content: Buffer): Buffer {
  const body = Buffer.concat([i32(1), i32(type), map(header), i64(content.length), content, map({})]);
  const size = body.length + 8;
  return Buffer.concat([Buffer.from('#HUDI#'), i64(size), body, i64(size + 6)]);
}

export interface Rec { key: string; ts: number; v: string; deleted?: boolean }

export function dataBlock(instant: string, recs: Rec[]): Buffer {
  const datums = recs.map((r) => TYPE.toBuffer({ _hoodie_record_key: r.key, ts: r.ts, v: r.v, _hoodie_is_deleted: r.deleted ?? false }));
  const content = Buffer.concat([i32(3), i32(datums.length), ...datums.flatMap((d) => [i32(d.length), d])]);
  return block(3, { 0: instant, 2: JSON.stringify(SCHEMA) }, content);
}

function zigzag(n: bigint): Buffer {
  let v = (n << 1n) ^ (n >> 63n);
  const out: number[] = [];
  do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v);
  return Buffer.from(out);
}
function str(s: string): Buffer { const b = Buffer.from(s); return Buffer.concat([zigzag(BigInt(b.length)), b]); }

/** DELETE block; ordering: undefined → null branch, {int} → IntWrapper (branch 2), {long} → LongWrapper (branch 3). */
export function deleteBlock(instant: string, keys: { key: string; int?: number; long?: number }[]): Buffer {
  const items = keys.map((k) => Buffer.concat([
    zigzag(1n), str(k.key), zigzag(1n), str('p'),
    k.int !== undefined ? Buffer.concat([zigzag(2n), zigzag(BigInt(k.int))]) : k.long !== undefined ? Buffer.concat([zigzag(3n), zigzag(BigInt(k.long))]) : zigzag(0n),
  ]));
  const data = Buffer.concat([zigzag(BigInt(items.length)), ...items, zigzag(0n)]);
  return block(1, { 0: instant, 2: JSON.stringify(SCHEMA) }, Buffer.concat([i32(3), i32(data.length), data]));
}

export function rollbackBlock(instant: string, target: string): Buffer {
  return block(0, { 0: instant, 1: target, 3: '0' }, Buffer.alloc(0));
}

export function baseParquet(recs: Rec[]): Uint8Array {
  const ab = parquetWriteBuffer({
    columnData: [
      { name: '_hoodie_record_key', data: recs.map((r) => r.key), type: 'STRING' },
      { name: 'ts', data: recs.map((r) => BigInt(r.ts)), type: 'INT64' },
      { name: 'v', data: recs.map((r) => r.v), type: 'STRING' },
    ],
  });
  return new Uint8Array(ab);
}
