// decodeCommitTotals (a field-by-field fast path for Avro, JSON.parse for JSON) must give exactly
// what the full parse gives, and the full parse's error for anything it rejects.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { HAVE_FIXTURES, SHARED_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { decodeCommitMetadata, decodeCommitTotals, encodeCommitMetadataAvro, encodeCommitMetadataJson, type CommitMetadata } from '../../src/metadata/index.ts';
import { readAvroContainer, schemaRecordName, sniffContent } from '../../src/metadata/avro-container.ts';
import { SCHEMAS } from '../../src/metadata/schemas.ts';

type Rec = Record<string, unknown>;

/** The totals rule on the raw record, as decodeCommitTotals computed it before the fast paths. */
function referenceTotals(bytes: Uint8Array): unknown {
  const ctx = { path: 'x' };
  const kind = sniffContent(bytes, ctx);
  let rec: Rec | undefined;
  if (kind === 'json') {
    decodeCommitMetadata(bytes, ctx); // throws the reference error
    rec = JSON.parse(Buffer.from(bytes).toString('utf8')) as Rec;
  } else if (kind === 'avro') {
    decodeCommitMetadata(bytes, ctx);
    const name = schemaRecordName(bytes, ctx) as keyof typeof SCHEMAS;
    rec = readAvroContainer(bytes, ctx, { readerSchema: SCHEMAS[name] }).records[0] as Rec | undefined;
  }
  const t = {
    totalBytesWritten: 0,
    totalFilesInsert: 0,
    totalFilesUpdated: 0,
    totalPartitionsWritten: 0,
    totalRecordsWritten: 0,
    totalUpdateRecordsWritten: 0,
    totalInsertRecordsWritten: 0,
    totalRecordsDeleted: 0,
    totalWriteErrors: 0,
  };
  if (!rec) return { ...t, operationType: 'UNKNOWN' };
  const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
  const parts = isRec(rec.partitionToWriteStats) ? rec.partitionToWriteStats : {};
  t.totalPartitionsWritten = Object.keys(parts).length;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  for (const stats of Object.values(parts)) {
    if (!Array.isArray(stats)) continue;
    for (const s of stats as Rec[]) {
      if (typeof s.prevCommit === 'string') {
        if (s.prevCommit.toLowerCase() === 'null') t.totalFilesInsert++;
        else t.totalFilesUpdated++;
        t.totalInsertRecordsWritten += n(s.numInserts);
      }
      t.totalBytesWritten += n(s.totalWriteBytes);
      t.totalRecordsWritten += n(s.numWrites);
      t.totalUpdateRecordsWritten += n(s.numUpdateWrites);
      t.totalRecordsDeleted += n(s.numDeletes);
      t.totalWriteErrors += n(s.totalWriteErrors);
    }
  }
  return { ...t, operationType: typeof rec.operationType === 'string' ? rec.operationType : null };
}

function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: String((e as Error).message) };
  }
}

function expectSame(bytes: Uint8Array): void {
  expect(outcome(() => decodeCommitTotals(bytes, { path: 'x' }))).toEqual(outcome(() => referenceTotals(bytes)));
}

function sample(i: number, opts: { prev?: string | null; parts?: number } = {}): CommitMetadata {
  const stats: CommitMetadata['partitionToWriteStats'] = {};
  for (let p = 0; p < (opts.parts ?? 2); p++) {
    stats[`region=${p}`] = [0, 1].map((k) => ({
      fileId: `f-${p}-${k}`,
      path: `region=${p}/f-${p}-${k}_1.parquet`,
      prevCommit: opts.prev === undefined ? (k === 0 ? 'null' : '20250101000000000') : opts.prev,
      partitionPath: `region=${p}`,
      numWrites: 100 + i,
      numDeletes: i % 3,
      numUpdateWrites: 50,
      numInserts: 50 + i,
      totalWriteBytes: 40_000 + i,
      totalWriteErrors: k,
      totalLogRecords: 0,
      totalLogFilesCompacted: 0,
      totalLogSizeCompacted: 0,
      totalUpdatedRecordsCompacted: 0,
      totalLogBlocks: 0,
      totalCorruptLogBlock: 0,
      totalRollbackBlocks: 0,
      fileSizeInBytes: 40_000 + i,
      runtimeStats: { totalScanTime: 0, totalUpsertTime: 12, totalCreateTime: 0 },
    }));
  }
  return { partitionToWriteStats: stats, compacted: false, extraMetadata: { schema: '{"type":"record","name":"r","fields":[]}' }, operationType: 'UPSERT' };
}

function commitFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) commitFiles(p, out);
    else if (/^\d+(_\d+)?\.(commit|deltacommit|replacecommit)$/.test(name) || name.endsWith('_commit.json') || name.endsWith('.avro')) out.push(p);
  }
  return out;
}

describe('decodeCommitTotals fast paths', () => {
  it('JSON: same totals as the full parse for generated commits', () => {
    for (const m of [sample(0), sample(5, { prev: null }), sample(7, { prev: 'NuLl' }), sample(1, { parts: 0 }), sample(3, { parts: 5 })]) {
      expectSame(encodeCommitMetadataJson(m));
      expectSame(encodeCommitMetadataJson(m, { delta: true }));
      expectSame(Buffer.from(JSON.stringify(m)));
    }
  });

  it('Avro: same totals as the full parse for generated commits', () => {
    for (const m of [sample(0), sample(5, { prev: null }), sample(1, { parts: 0 }), sample(3, { parts: 5 })]) {
      expectSame(encodeCommitMetadataAvro(m));
      expectSame(encodeCommitMetadataAvro(m, { codec: 'deflate' }));
      expectSame(encodeCommitMetadataAvro({ ...m, partitionToReplaceFileIds: { a: ['x'] } }));
    }
  });

  it('JSON: odd but valid documents (duplicate keys, escapes, non-numbers, big numbers) match the full parse', () => {
    const docs = [
      '{"partitionToWriteStats":{"a":[{"prevCommit":"x","numWrites":1,"numWrites":2}]},"operationType":"INSERT"}',
      '{"partitionToWriteStats":{"a":[{"prevCommit":"x"}],"a":[{"prevCommit":"null","numInserts":3}]}}',
      '{"partitionToWriteStats":{"a":[{"prevCommit":"x","numWrites":1}]},"partitionToWriteStats":{}}',
      '{"partitionToWriteStats":{"a\\u0062":[{"prev\\u0043ommit":"x","numWrites":1}]}}',
      '{"partitionToWriteStats":{"a":[{"prevCommit":"n\\u0075ll","numWrites":1.5,"numDeletes":-0,"numInserts":1e3}]}}',
      '{"partitionToWriteStats":{"a":[{"prevCommit":null,"numWrites":"7","totalWriteBytes":9007199254740993}]}}',
      '{"partitionToWriteStats":{"a":[null]}}',
      '{"partitionToWriteStats":{"a":[[1]],"b":{},"c":null}}',
      '{"partitionToWriteStats":[],"operationType":null}',
      '{"partitionToWriteStats":null,"operationType":7}',
      '{"operationType":"UPS\\u0045RT","operationType":"X"}',
      '{"partitionToWriteStats":{"1":[{"totalWriteBytes":1}],"0":[{"totalWriteBytes":2}]}}',
      '{"partitionToWriteStats":{"é":[{"prevCommit":"NULL"}], "\u00e9":[]}}',
      '  \n{ }  \r\n',
      '{"extraMetadata":{"k":"\\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t"},"partitionToWriteStats":{"a":[{}]}}',
    ];
    for (const d of docs) expectSame(Buffer.from(d));
  });

  it('JSON: invalid documents fail with the full parse error', () => {
    const docs = [
      '{"partitionToWriteStats":{"a":[{"numWrites":01}]}}',
      '{"partitionToWriteStats":{"a":[{"numWrites":1,}]}}',
      '{"partitionToWriteStats":{"a":[{"numWrites":1}]}} x',
      '{"partitionToWriteStats":{"a":[{"numWrites":1}]}',
      '{"a":"\t"}',
      '{"a":"\\x"}',
      '{"a":tru}',
      '{"a":1.}',
      '{"a":-}',
      "{'a':1}",
      '[1]',
    ];
    for (const d of docs) expectSame(Buffer.from(d));
  });

  it('JSON: random edits of a real-looking commit give the full parse result or error', () => {
    const base = Buffer.from(encodeCommitMetadataJson(sample(3), { delta: true }));
    const chars = Buffer.from('{}[]:,"\\ \n0123456789-.eEnultrfa\u00e9x');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('delete', 'insert', 'replace')), { minLength: 1, maxLength: 3 }),
        (edits) => {
          let b = Buffer.from(base);
          for (const [at, ch, op] of edits) {
            const i = at % b.length;
            const c = Buffer.of(chars[ch % chars.length]!);
            if (op === 'delete') b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
            else if (op === 'insert') b = Buffer.concat([b.subarray(0, i), c, b.subarray(i)]);
            else b = Buffer.concat([b.subarray(0, i), c, b.subarray(i + 1)]);
          }
          if (b.length === 0) return;
          expectSame(b);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('Avro: random byte edits give the full decode result or error', () => {
    const base = Buffer.from(encodeCommitMetadataAvro(sample(3)));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 3 }), (edits) => {
        const b = Buffer.from(base);
        // keep the header (schema text) intact: edits land in the data block
        const dataStart = b.length - 600;
        for (const [at, v] of edits) b[dataStart + (at % 600)] = v;
        expectSame(b);
      }),
      { numRuns: 1500 },
    );
  });

  it.skipIf(!HAVE_FIXTURES)('every commit file of the fixture tables and core test data', () => {
    const files = commitFiles(join(SHARED_FIXTURES, 'core-test-data'));
    for (const id of allTableIds()) commitFiles(join(table(id), '.hoodie'), files);
    expect(files.length).toBeGreaterThan(100);
    for (const f of files) expectSame(readFileSync(f));
  });
});
