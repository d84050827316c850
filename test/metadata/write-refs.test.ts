// visitWriteRefs (the triage scan's decode: a byte scanner for JSON, the ordinary decode otherwise) must
// visit exactly the write stats, replaced file groups and operationType the full decodeCommitMetadata gives — in the
// same order, with the same defaults — and fail with its error on anything it rejects.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { HAVE_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { decodeCommitMetadata, encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat, visitWriteRefs } from '../../src/metadata/index.ts';
import { scanCommitJson } from '../../src/metadata/commit-scan.ts';

type Visit = ['stat', string, string, string | null, string | null] | ['replaced', string, string] | ['op', string | null];

/** What the triage scan took from decodeCommitMetadata before the scanner existed. */
function reference(bytes: Uint8Array): Visit[] | { error: string } {
  let m;
  try {
    m = decodeCommitMetadata(bytes, { path: 'f' });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const out: Visit[] = [];
  for (const stats of Object.values(m.partitionToWriteStats)) for (const s of stats) out.push(['stat', s.partitionPath, s.fileId, s.prevCommit ?? null, s.path ?? null]);
  for (const [p, ids] of Object.entries(m.partitionToReplaceFileIds ?? {})) for (const id of ids) out.push(['replaced', p, id]);
  out.push(['op', m.operationType]);
  return out;
}

function visits(bytes: Uint8Array, scan: boolean): Visit[] | { error: string } {
  const out: Visit[] = [];
  try {
    visitWriteRefs(bytes, { path: 'f' }, { stat: (p, f, prev, path) => void out.push(['stat', p, f, prev, path]), replaced: (p, f) => void out.push(['replaced', p, f]), operationType: (op) => void out.push(['op', op]) }, { scan });
  } catch (e) {
    return { error: (e as Error).message };
  }
  return out;
}

function same(bytes: Uint8Array): void {
  const ref = reference(bytes);
  expect(visits(bytes, true)).toEqual(ref);
  expect(visits(bytes, false)).toEqual(ref);
  // the scanner accepts exactly what JSON.parse accepts (short of absurd nesting)
  const text = Buffer.from(bytes).toString('utf8');
  if (/^\s*\{/.test(text)) {
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    expect(scanCommitJson(bytes) !== undefined, text.slice(0, 200)).toBe(valid);
  }
}

const enc = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const stat = (fileId: string, path: string | null, prev: string | null, partition: string) => newWriteStat({ fileId, path, prevCommit: prev, partitionPath: partition, numWrites: 1 });

describe('visitWriteRefs', () => {
  it('Jackson-written commits (JSON and Avro), with replaced file groups', () => {
    const m = {
      partitionToWriteStats: {
        'region=us': [stat('a-0', 'region=us/a-0_0-1-1_001.parquet', null, 'region=us'), stat('b-0', 'region=us/.b-0_001.log.1_0-1-1', '001', 'region=us')],
        '2021': [stat('c-0', '2021/c-0_1-2-3_002.parquet', 'null', '2021')],
        '10': [stat('d-0', null, null, '10')],
        'héllo wörld/ü': [stat('e-0', 'héllo wörld/ü/e-0_1-1-1_3.parquet', '', 'héllo wörld/ü')],
      },
      compacted: false,
      extraMetadata: { schema: '{"type":"record","fields":[{"name":"fileId"}]}' },
      operationType: 'UPSERT',
      partitionToReplaceFileIds: { 'region=us': ['x-0', 'y-0'], '7': ['z-0'] },
    };
    same(encodeCommitMetadataJson(m));
    same(encodeCommitMetadataJson(m, { delta: true }));
    same(encodeCommitMetadataAvro(m));
    expect(scanCommitJson(encodeCommitMetadataJson(m))).toBeDefined();
  });

  it('hand-written JSON: duplicate keys, escapes, non-string fields, odd shapes, __proto__', () => {
    const cases = [
      '{}',
      '{"partitionToWriteStats":null}',
      '{"partitionToWriteStats":[]}',
      '{"partitionToWriteStats":{"p":null,"q":[null,1,"s",[],{}],"r":{"fileId":"x"}}}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a","fileId":"b","path":1,"prevCommit":{"x":1},"partitionPath":null}]}}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a"}]},"partitionToWriteStats":{"q":[{"fileId":"b"}]}}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a","fileId":{"x":"y"},"path":"q","path":[1],"prevCommit":"c","prevCommit":true}]}}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a"}]},"partitionToWriteStats":null}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a"}],"p":[{"fileId":"b"}],"o":[]}}',
      '{"partitionToWriteStats":{"__proto__":[{"fileId":"a"}],"b":[{"fileId":"b"}]}}',
      '{"partitionToWriteStats":{"2":[{"fileId":"two"}],"x":[{"fileId":"x"}],"1":[{"fileId":"one"}],"4294967295":[{"fileId":"big"}]}}',
      '{"partitionToWriteStats":{"p\\u0041":[{"file\\u0049d":"\\u00e9\\n\\"q\\"","path":"a\\/b","partitionPath":"\\ud83d\\ude00"}]}}',
      '{"partitionToWriteStats":{"p":[{"fileId":"\\ud800","path":"é😀"}]}}',
      '  \n\t{"partitionToWriteStats" : { "p" : [ { "fileId" : "a" , "runtimeStats" : {"a":[1,-2.5e+3,0.1,true,false,null,{"b":[[]]}]} } ] } }  \r\n',
      '{"partitionToReplaceFileIds":null}',
      '{"partitionToReplaceFileIds":{"p":[1,null,true,{"a":1},[2,3],"s"],"q":"x","r":null}}',
      '{"partitionToReplaceFileIds":{"p":["a"]},"partitionToReplaceFileIds":{"q":["b"]}}',
      '{"partitionToReplaceFileIds":[]}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a","prevCommit":"null","path":""}]},"x":-0,"y":1E5,"z":[0,-0.0e-0]}',
    ];
    for (const c of cases) same(enc(c));
    // invalid UTF-8 inside strings reads as U+FFFD, as Buffer#toString gives JSON.parse
    same(new Uint8Array([...enc('{"partitionToWriteStats":{"p"'), ...enc(':[{"fileId":"a'), 0xff, 0xe2, 0x82, ...enc('"}]}}')]));
  });

  it('rejects what JSON.parse rejects, with decodeCommitMetadata’s error', () => {
    const bad = [
      '{', '{"a":}', '{"a":1,}', '{"a":[1,]}', '{"a":01}', '{"a":1.}', '{"a":-}', '{"a":.5}', '{"a":1e}', '{"a":tru}', '{"a":nul}',
      "{'a':1}", '{"a":1}x', '{"a":1} {}', '{"a":"\t"}', '{"a":"\\x"}', '{"a":"\\u12g4"}', '{"a":"abc}', '{"a" 1}', '{a:1}',
      '{"partitionToWriteStats":{"p":[{"fileId":"a"}]}', '{"partitionToWriteStats":{"p":[{"fileId":"a"},]}}', '{"a":NaN}', '{"a":[1 2]}',
      '[]', '{"a":1}\u0000',
    ];
    for (const c of bad) same(enc(c));
    same(new Uint8Array([...enc('{"a":1}'), 0xc3, 0xa9]));
  });

  it('random documents and mutations of them', () => {
    const key = fc.oneof(fc.constantFrom('fileId', 'path', 'prevCommit', 'partitionPath', 'partitionToWriteStats', 'partitionToReplaceFileIds', '__proto__', '0', '12', 'x'), fc.string({ maxLength: 6 }));
    const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
    })).v;
    const statArb = fc.dictionary(key, fc.oneof(fc.string({ maxLength: 10 }), value), { maxKeys: 6 });
    const doc = fc.record({
      partitionToWriteStats: fc.oneof(fc.dictionary(key, fc.oneof(fc.array(fc.oneof(statArb, value), { maxLength: 4 }), value), { maxKeys: 4 }), value),
      partitionToReplaceFileIds: fc.oneof(fc.dictionary(key, fc.oneof(fc.array(value, { maxLength: 3 }), value), { maxKeys: 3 }), value),
      other: value,
    }, { requiredKeys: [] });
    fc.assert(
      fc.property(doc, fc.integer({ min: 0, max: 2 }), fc.nat(), fc.integer({ min: 0, max: 255 }), (d, mode, at, byte) => {
        const text = mode === 1 ? JSON.stringify(d, null, 2) : JSON.stringify(d);
        const bytes = enc(text);
        if (mode === 2 && bytes.length > 0) bytes[at % bytes.length] = byte; // one byte changed: valid or not, both agree
        same(bytes);
      }),
      { numRuns: 3000 },
    );
  });

  it.skipIf(!HAVE_FIXTURES)('every commit, deltacommit, replacecommit and inflight file of the fixture tables', () => {
    let n = 0;
    for (const id of allTableIds()) {
      const meta = join(table(id), '.hoodie');
      for (const dir of [meta, join(meta, 'timeline')]) {
        let names: string[];
        try {
          names = readdirSync(dir);
        } catch {
          continue;
        }
        for (const name of names) {
          if (!/\.(commit|deltacommit|replacecommit|inflight)$/.test(name) || statSync(join(dir, name)).size === 0) continue;
          same(new Uint8Array(readFileSync(join(dir, name))));
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(100);
  });
});
