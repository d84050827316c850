// Kryo delete blocks: content version 1 (Hudi ≤ 0.10, HoodieKey[]) and 2 (0.11–0.13, DeleteRecord[]).
// No fixture table holds one, so blocks come from test/support/kryo.ts, a writer that follows Kryo
// 4.0.2's write paths; it is held to real Hudi output first: it must reproduce, byte for byte, the
// version-2 block Hudi's own TestHoodieDeleteBlock.testDeserializeV2DeleteBlock decodes (176 bytes;
// only their SHA-256 is kept here).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeDeleteBlockContent } from '../../src/logfile/index.ts';
import { TblError } from '../../src/errors/index.ts';
import { deleteBlockContent, JString, kryoDeleteRecords, kryoHoodieKeys, type JKey, type JOrdering } from '../support/kryo.ts';

const HUDI_V2_SHA256 = 'eea05980b94f6cfb7a73781cddd9cd5e75c758e7825a892d394383c2012bcd09';
const j = (s: string) => new JString(s);
const plain = (keys: readonly JKey[]) => keys.map((k) => ({ recordKey: k.recordKey?.s ?? null, partitionPath: k.partitionPath?.s ?? null }));
const decodeErr = (content: Uint8Array): unknown => {
  try {
    decodeDeleteBlockContent(content, '/t/.f.log.1_0-1-1');
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('the test Kryo writer against real Hudi output', () => {
  it("reproduces Hudi's version-2 test block byte for byte; the reader gives Hudi's records", () => {
    // DeleteRecord.create("key" + i, "2023-01-01", i * 5873) for i = 1, 2, one partition-path String instance
    const part = j('2023-01-01');
    const content = deleteBlockContent(
      2,
      kryoDeleteRecords([1, 2].map((i) => ({ key: { recordKey: j(`key${i}`), partitionPath: part }, ordering: { cls: 'int', value: i * 5873 } }))),
    );
    expect(content.length).toBe(176);
    expect(createHash('sha256').update(content).digest('hex')).toBe(HUDI_V2_SHA256);
    expect(decodeDeleteBlockContent(content)).toEqual([
      { recordKey: 'key1', partitionPath: '2023-01-01', orderingVal: 5873, orderingClass: 'Integer' },
      { recordKey: 'key2', partitionPath: '2023-01-01', orderingVal: 11746, orderingClass: 'Integer' },
    ]);
  });
});

describe('version 1: HoodieKey[]', () => {
  it('keys of every string shape: shared and repeated instances, null, empty, one char, ASCII limits, UTF-8, long', () => {
    const shared = j('2024/01/02');
    const keys: JKey[] = [
      { recordKey: j('k1'), partitionPath: shared },
      { recordKey: j('k2'), partitionPath: shared },
      { recordKey: j('k1'), partitionPath: j('2024/01/02') }, // equal text, other instances: written again
      { recordKey: j(''), partitionPath: null },
      { recordKey: j('x'), partitionPath: j('') },
      { recordKey: j('a'.repeat(63)), partitionPath: j('b'.repeat(64)) },
      { recordKey: j('région=Île-de-France/中文/🙂'), partitionPath: j('é') },
      { recordKey: j('z'.repeat(9000)), partitionPath: shared },
      { recordKey: null, partitionPath: shared },
    ];
    const got = decodeDeleteBlockContent(deleteBlockContent(1, kryoHoodieKeys(keys)));
    expect(got).toEqual(plain(keys).map((k) => ({ ...k, orderingVal: 0, orderingClass: 'Integer' })));
  });

  it('any keys (full Unicode, up to 300 keys, partition paths shared or not) read back as written', () => {
    const pool = ['p0', 'p1', 'dt=2021-01-01'].map(j);
    const key = fc.record({
      recordKey: fc.option(fc.string({ unit: 'binary', maxLength: 80 }).map(j), { freq: 20 }),
      partitionPath: fc.oneof(fc.constantFrom(...pool), fc.string({ unit: 'binary', maxLength: 80 }).map(j), fc.constant(null)),
    });
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (keys) => {
        const got = decodeDeleteBlockContent(deleteBlockContent(1, kryoHoodieKeys(keys)));
        expect(got.map((d) => ({ recordKey: d.recordKey, partitionPath: d.partitionPath }))).toEqual(plain(keys));
      }),
      { numRuns: 150 },
    );
  });

  it('an empty array', () => {
    expect(decodeDeleteBlockContent(deleteBlockContent(1, kryoHoodieKeys([])))).toEqual([]);
  });
});

describe('version 2: DeleteRecord[]', () => {
  it('ordering values of each class Kryo registers by default, Avro Utf8 (registered by Hudi) and null', () => {
    const same = j('2023-07-01');
    const cases: [JOrdering | null, unknown, string | undefined][] = [
      [{ cls: 'int', value: -2147483648 }, -2147483648, 'Integer'],
      [{ cls: 'int', value: 2147483647 }, 2147483647, 'Integer'],
      [{ cls: 'long', value: -9007199254740991n }, -9007199254740991, 'Long'],
      [{ cls: 'long', value: 1690766971000n }, 1690766971000, 'Long'],
      [{ cls: 'float', value: 0.125 }, 0.125, 'Float'],
      [{ cls: 'double', value: 809.25 }, 809.25, 'Double'],
      [{ cls: 'boolean', value: true }, true, 'Boolean'],
      [{ cls: 'String', value: j('val1') }, 'val1', 'String'],
      [{ cls: 'String', value: same }, '2023-07-01', 'String'], // the partition path's instance: a back-reference
      [{ cls: 'Utf8', value: j('ünïcode') }, 'ünïcode', 'String'],
      [null, null, undefined],
    ];
    const records = cases.map(([ordering], i) => ({ key: { recordKey: j(`key${i}`), partitionPath: same }, ordering }));
    const got = decodeDeleteBlockContent(deleteBlockContent(2, kryoDeleteRecords(records)));
    expect(got).toEqual(
      cases.map(([, value, cls], i) => ({ recordKey: `key${i}`, partitionPath: '2023-07-01', orderingVal: value, ...(cls ? { orderingClass: cls } : {}) })),
    );
  });

  it('an ordering value of a class tblcli does not decode is unsupported, naming the Java class', () => {
    const e = decodeErr(deleteBlockContent(2, kryoDeleteRecords([{ key: { recordKey: j('k'), partitionPath: j('p') }, ordering: { cls: 'java.math.BigDecimal', value: null } }])));
    expect(e).toBeInstanceOf(TblError);
    expect((e as TblError).kind).toBe('unsupported');
    expect((e as TblError).message).toMatch(/^\/t\/\.f\.log\.1_0-1-1: Kryo delete block data, byte \d+: .*java\.math\.BigDecimal/);
  });
});

describe('bad Kryo data', () => {
  const good = deleteBlockContent(1, kryoHoodieKeys([{ recordKey: j('key1'), partitionPath: j('part1') }]));

  it('truncated, trailing bytes, the other version, not an array, a class registered by the writer: one clear error naming the file', () => {
    const data = good.subarray(8);
    const cut = deleteBlockContent(1, data.subarray(0, data.length - 1));
    const trailing = deleteBlockContent(1, Uint8Array.from([...data, 0]));
    const otherVersion = deleteBlockContent(2, data);
    const notAnArray = deleteBlockContent(1, Uint8Array.from([4, 0, 0, 0, 0]));
    // an ordering value of a class the writer's Kryo registered (id 11): its class cannot be known
    const int0 = kryoDeleteRecords([{ key: { recordKey: j('k'), partitionPath: j('p') }, ordering: { cls: 'int', value: 0 } }]);
    expect([...int0.subarray(-2)]).toEqual([2, 0]); // class id 0 + 2, zigzag 0
    const registered = deleteBlockContent(2, Uint8Array.from([...int0.subarray(0, -2), 13, 0]));
    const expected: [Uint8Array, string, RegExp][] = [
      [cut, 'logfile', /truncated/],
      [trailing, 'logfile', /1 byte\(s\) after the records/],
      [otherVersion, 'logfile', /expected a \[Lorg\.apache\.hudi\.common\.model\.DeleteRecord;, found \[Lorg\.apache\.hudi\.common\.model\.HoodieKey;/],
      [notAnArray, 'logfile', /expected a \[Lorg\.apache\.hudi\.common\.model\.HoodieKey;, found float/],
      [registered, 'unsupported', /class registration id 11: a class the writer's Kryo registered, not known here/],
    ];
    for (const [content, kind, message] of expected) {
      const e = decodeErr(content) as TblError;
      expect(e, String(message)).toBeInstanceOf(TblError);
      expect(e.kind).toBe(kind);
      expect(e.message).toMatch(/^\/t\/\.f\.log\.1_0-1-1: /);
      expect(e.message).toMatch(message);
    }
  });

  it('content version 0 is not a version', () => {
    const e = decodeErr(deleteBlockContent(0, good.subarray(8))) as TblError;
    expect(e.kind).toBe('logfile');
    expect(e.message).toMatch(/content version 0 is not a version/);
  });
});
