// Codec round trips (including the actions no fixture table has: clean, savepoint, restore), log-block datums,
// the container framing, totals, and error messages.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { HAVE_FIXTURES, coreTestData } from '../support/fixtures.ts';
import {
  SCHEMAS,
  SCHEMA_NAMES,
  avroType,
  readAvroContainer,
  writeAvroContainer,
  sniffContent,
  schemaRecordName,
  decodeCommitMetadata,
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  emptyCommitMetadata,
  commitTotals,
  decodeCompactionPlan,
  encodeCompactionPlan,
  decodeCleanPlan,
  encodeCleanPlan,
  decodeCleanMetadata,
  encodeCleanMetadata,
  decodeSavepointMetadata,
  encodeSavepointMetadata,
  decodeRestorePlan,
  encodeRestorePlan,
  decodeRestoreMetadata,
  encodeRestoreMetadata,
  decodeRollbackPlan,
  encodeRollbackPlan,
  decodeRollbackMetadata,
  decodeIndexPlan,
  encodeIndexPlan,
  decodeArchivedMetaEntry,
  encodeArchivedMetaEntry,
  decodeDatum,
  encodeDatum,
  decodeDeleteRecordList,
  encodeDeleteRecordList,
  javaHashMapOrder,
  type CommitMetadata,
  type WriteStat,
  type CleanerPlan,
  type CleanMetadata,
  type RollbackMetadata,
  type CompactionPlan,
} from '../../src/metadata/index.ts';
import { TblError } from '../../src/errors/index.ts';

const ctx = { path: '/t/.hoodie/x' };

function stat(over: Partial<WriteStat>): WriteStat {
  return {
    fileId: 'f1-0', path: 'p/f1-0_0-1-2_001.parquet', prevCommit: 'null', partitionPath: 'p', numWrites: 10, numDeletes: 1,
    numUpdateWrites: 2, numInserts: 8, totalWriteBytes: 1000, totalWriteErrors: 0, totalLogRecords: 0, totalLogFilesCompacted: 0,
    totalLogSizeCompacted: 0, totalUpdatedRecordsCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0, totalRollbackBlocks: 0,
    fileSizeInBytes: 1000, totalLogFiles: null, logVersion: null, logOffset: null, baseFile: null, logFiles: null, prevBaseFile: null,
    minEventTime: null, maxEventTime: null, runtimeStats: { totalScanTime: 0, totalCreateTime: 5, totalUpsertTime: 0 }, tempPath: null,
    cdcStats: null, totalLogReadTimeMs: null, numUpdates: null, ...over,
  };
}

function expectTblError(f: () => unknown, kind: string, message: string | RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(TblError);
  expect((err as TblError).kind).toBe(kind);
  if (typeof message === 'string') expect((err as TblError).message).toBe(message);
  else expect((err as TblError).message).toMatch(message);
}

describe('schemas', () => {
  it('every schema constant builds an avsc type', () => {
    for (const n of SCHEMA_NAMES) expect(avroType(SCHEMAS[n]).name?.endsWith(n)).toBe(true);
  });
  it('composite schemas define each named type once (ArchivedMetaEntry, RestoreMetadata)', () => {
    const text = JSON.stringify(SCHEMAS.HoodieArchivedMetaEntry);
    expect(text.match(/"name":"HoodieWriteStat"/g)).toHaveLength(1);
    expect(JSON.stringify(SCHEMAS.HoodieRestoreMetadata).match(/"name":"HoodieInstantInfo"/g)).toHaveLength(1);
  });
});

describe('commit metadata', () => {
  const m: CommitMetadata = {
    partitionToWriteStats: {
      p: [stat({}), stat({ fileId: 'f2-0', prevCommit: '001', numInserts: 0, numUpdateWrites: 5, numWrites: 5, totalWriteBytes: 500 })],
      q: [stat({ fileId: 'f3-0', prevCommit: null, numInserts: 3, partitionPath: 'q', totalWriteErrors: 2 })],
    },
    compacted: false,
    extraMetadata: { schema: '{"type":"record"}', 'a.b': 'c' },
    operationType: 'UPSERT',
  };

  it('Avro encode → decode round trip', () => {
    const back = decodeCommitMetadata(encodeCommitMetadataAvro(m), ctx);
    expect(back).toEqual({ ...m, version: 1 });
    expect(schemaRecordName(encodeCommitMetadataAvro(m))).toBe('HoodieCommitMetadata');
  });

  it('replace commits use HoodieReplaceCommitMetadata', () => {
    const r = { ...m, operationType: 'INSERT_OVERWRITE', partitionToReplaceFileIds: { p: ['old-0'] } };
    const bytes = encodeCommitMetadataAvro(r);
    expect(schemaRecordName(bytes)).toBe('HoodieReplaceCommitMetadata');
    expect(decodeCommitMetadata(bytes, ctx).partitionToReplaceFileIds).toEqual({ p: ['old-0'] });
  });

  it('JSON encode → decode round trip, Jackson layout', () => {
    const bytes = encodeCommitMetadataJson(m);
    const text = Buffer.from(bytes).toString();
    expect(text.startsWith('{\n  "partitionToWriteStats" : {\n    "p" : [ {\n      "fileId" : "f1-0",\n      "path" : ')).toBe(true);
    expect(text).toContain('"runtimeStats" : {\n        "totalScanTime" : 0,\n        "totalUpsertTime" : 0,\n        "totalCreateTime" : 5\n      }\n    }, {');
    expect(text.endsWith('"operationType" : "UPSERT"\n}')).toBe(true);
    const back = decodeCommitMetadata(bytes, ctx);
    expect(back).toEqual(m);
    expect(Buffer.from(encodeCommitMetadataJson(back)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('delta stats append logVersion/logOffset/baseFile/logFiles/recordsStats', () => {
    const d = { ...m, partitionToWriteStats: { p: [stat({ logVersion: 2, logOffset: 0, baseFile: 'b.parquet', logFiles: ['.f1-0_001.log.2_0-1-1'] })] } };
    const text = Buffer.from(encodeCommitMetadataJson(d)).toString();
    expect(text).toContain('"logVersion" : 2,\n      "logOffset" : 0,\n      "baseFile" : "b.parquet",\n      "logFiles" : [ ".f1-0_001.log.2_0-1-1" ],\n      "recordsStats" : {\n        "val" : null\n      }\n    } ]');
    const base = Buffer.from(encodeCommitMetadataJson(d, { delta: false })).toString();
    expect(base).not.toContain('logVersion');
  });

  it('commitTotals follows HoodieCommitMetadata.fetchTotal*', () => {
    expect(commitTotals(m)).toEqual({
      totalBytesWritten: 2500,
      totalFilesInsert: 1, // prevCommit "null"
      totalFilesUpdated: 1, // prevCommit "001"; a missing prevCommit counts as neither
      totalPartitionsWritten: 2,
      totalRecordsWritten: 25,
      totalUpdateRecordsWritten: 9,
      totalInsertRecordsWritten: 8,
      totalRecordsDeleted: 3,
      totalWriteErrors: 2,
    });
  });

  it('empty file → empty metadata, like Java', () => {
    expect(decodeCommitMetadata(new Uint8Array(0), ctx)).toEqual(emptyCommitMetadata());
  });

  it('integer-like partition keys are written in Java HashMap order', () => {
    expect(javaHashMapOrder(['10', '20', '30'])).toEqual(['30', '20', '10']);
    const n = { ...m, partitionToWriteStats: { '10': [stat({ partitionPath: '10' })], '30': [stat({ partitionPath: '30' })] } };
    const text = Buffer.from(encodeCommitMetadataJson(n)).toString();
    expect(text.indexOf('"30" : [')).toBeLessThan(text.indexOf('"10" : ['));
  });

  it('errors: invalid JSON, not JSON/Avro, wrong Avro schema, truncated Avro', () => {
    expectTblError(() => decodeCommitMetadata(Buffer.from('{"partitionToWriteStats": '), ctx), 'metadata', /^\/t\/\.hoodie\/x: invalid JSON commit metadata \(/);
    expectTblError(() => decodeCommitMetadata(Buffer.from('PAR1'), ctx), 'metadata', '/t/.hoodie/x: not Avro or JSON instant content');
    const plan = encodeCompactionPlan(samplePlan());
    expectTblError(() => decodeCommitMetadata(plan, ctx), 'metadata', '/t/.hoodie/x: expected Avro HoodieCommitMetadata, found HoodieCompactionPlan');
    const full = encodeCommitMetadataAvro(m);
    for (const cut of [full.length - 1, full.length - 20, 300, 10]) {
      expectTblError(() => decodeCommitMetadata(full.subarray(0, cut), ctx), 'metadata', /^\/t\/\.hoodie\/x: truncated or corrupt Avro \(/);
    }
    const garbled = Uint8Array.from(full);
    garbled.fill(0xff, garbled.length - 60, garbled.length - 16); // runaway varints inside the record
    expectTblError(() => decodeCommitMetadata(garbled, ctx), 'metadata', /truncated or corrupt Avro/);
  });
});

function samplePlan(): CompactionPlan {
  return {
    operations: [{
      baseInstantTime: '20250101000000000', deltaFilePaths: ['.f1-0_20250101000000000.log.1_0-1-1'], dataFilePath: 'f1-0_0-1-1_20250101000000000.parquet',
      fileId: 'f1-0', partitionPath: 'p', metrics: { TOTAL_LOG_FILES: 1, TOTAL_IO_MB: 0.5 }, bootstrapFilePath: null,
    }],
    extraMetadata: null, version: 2, strategy: null, preserveHoodieMetadata: true, missingSchedulePartitions: null,
  };
}

describe('typed instant codecs', () => {
  it('compaction plan round trip', () => {
    expect(decodeCompactionPlan(encodeCompactionPlan(samplePlan()), ctx)).toEqual(samplePlan());
  });

  it('clean plan and clean metadata round trip', () => {
    const plan: CleanerPlan = {
      earliestInstantToRetain: { timestamp: '003', action: 'commit', state: 'COMPLETED' },
      lastCompletedCommitTimestamp: '005', policy: 'KEEP_LATEST_COMMITS', filesToBeDeletedPerPartition: null, version: 2,
      filePathsToBeDeletedPerPartition: { p: [{ filePath: 'file:/t/p/a.parquet', isBootstrapBaseFile: false }] },
      partitionsToBeDeleted: [], extraMetadata: null,
    };
    expect(decodeCleanPlan(encodeCleanPlan(plan), ctx)).toEqual(plan);
    const meta: CleanMetadata = {
      startCleanTime: '006', timeTakenInMillis: 12, totalFilesDeleted: 1, earliestCommitToRetain: '003', lastCompletedCommitTimestamp: '005',
      partitionMetadata: { p: { partitionPath: 'p', policy: 'KEEP_LATEST_COMMITS', deletePathPatterns: ['a.parquet'], successDeleteFiles: ['a.parquet'], failedDeleteFiles: [], isPartitionDeleted: false } },
      version: 2, bootstrapPartitionMetadata: null, extraMetadata: null,
    };
    expect(decodeCleanMetadata(encodeCleanMetadata(meta), ctx)).toEqual(meta);
  });

  it('savepoint, restore plan and restore metadata round trip', () => {
    const sp = { savepointedBy: 'me', savepointedAt: 1700000000, comments: 'c', partitionMetadata: { p: { partitionPath: 'p', savepointDataFile: ['a.parquet'] } }, version: 1 };
    expect(decodeSavepointMetadata(encodeSavepointMetadata(sp), ctx)).toEqual(sp);
    const rp = { instantsToRollback: [{ commitTime: '007', action: 'commit' }], version: 2, savepointToRestoreTimestamp: '006' };
    expect(decodeRestorePlan(encodeRestorePlan(rp), ctx)).toEqual(rp);
    // a version-1 plan (no savepointToRestoreTimestamp) reads with null
    const v1 = { instantsToRollback: [{ commitTime: '007', action: 'commit' }], version: 1, savepointToRestoreTimestamp: null };
    expect(decodeRestorePlan(encodeRestorePlan(v1), ctx)).toEqual(v1);
    const rb: RollbackMetadata = {
      startRollbackTime: '008', timeTakenInMillis: 3, totalFilesDeleted: 1, commitsRollback: ['007'],
      partitionMetadata: { p: { partitionPath: 'p', successDeleteFiles: ['x'], failedDeleteFiles: [], rollbackLogFiles: null, logFilesFromFailedCommit: { 'p/.l': 10 } } },
      version: 1, instantsRollback: [{ commitTime: '007', action: 'commit' }],
    };
    const rm = { startRestoreTime: '008', timeTakenInMillis: 4, instantsToRollback: ['007'], hoodieRestoreMetadata: { '007': [rb, null] }, version: 1, restoreInstantInfo: [{ commitTime: '007', action: 'commit' }], extraMetadata: null };
    expect(decodeRestoreMetadata(encodeRestoreMetadata(rm), ctx)).toEqual(rm);
  });

  it('older writer schemas resolve by name; missing fields get our defaults', () => {
    // A clean plan written with the pre-lastCompletedCommitTimestamp schema (apache/hudi 42a480fc).
    const old = {
      type: 'record', name: 'HoodieCleanerPlan', namespace: 'org.apache.hudi.avro.model', fields: [
        { name: 'earliestInstantToRetain', type: ['null', { type: 'record', name: 'HoodieActionInstant', fields: [{ name: 'timestamp', type: 'string' }, { name: 'action', type: 'string' }, { name: 'state', type: 'string' }] }], default: null },
        { name: 'policy', type: 'string' },
        { name: 'filesToBeDeletedPerPartition', type: ['null', { type: 'map', values: { type: 'array', items: 'string' } }], default: null },
        { name: 'version', type: ['int', 'null'], default: 1 },
      ],
    };
    const bytes = writeAvroContainer(old, [{ earliestInstantToRetain: null, policy: 'KEEP_LATEST_FILE_VERSIONS', filesToBeDeletedPerPartition: { p: ['a'] }, version: 1 }]);
    expect(decodeCleanPlan(bytes, ctx)).toEqual({
      earliestInstantToRetain: null, lastCompletedCommitTimestamp: '', policy: 'KEEP_LATEST_FILE_VERSIONS', filesToBeDeletedPerPartition: { p: ['a'] },
      version: 1, filePathsToBeDeletedPerPartition: null, partitionsToBeDeleted: null, extraMetadata: null,
    });
  });

  it('errors: empty where content is required, wrong schema, JSON, optional empty', () => {
    expectTblError(() => decodeRollbackPlan(new Uint8Array(0), ctx), 'metadata', '/t/.hoodie/x: empty file, expected Avro HoodieRollbackPlan (rollback plan)');
    expectTblError(() => decodeCompactionPlan(encodeIndexPlan({ version: 1, indexPartitionInfos: null }), ctx), 'metadata', '/t/.hoodie/x: expected Avro HoodieCompactionPlan, found HoodieIndexPlan');
    expectTblError(() => decodeIndexPlan(Buffer.from(' {"a":1}'), ctx), 'metadata', '/t/.hoodie/x: expected Avro HoodieIndexPlan, found JSON');
    expect(decodeCleanPlan(new Uint8Array(0), ctx, { emptyValue: null })).toBeNull();
    expectTblError(() => decodeRollbackMetadata(encodeRollbackPlan({ instantToRollback: null, RollbackRequests: [], version: 1 }).subarray(0, 50), ctx), 'metadata', /truncated or corrupt Avro/);
  });
});

describe('Avro container framing', () => {
  it('sniffContent', () => {
    expect(sniffContent(new Uint8Array(0))).toBe('empty');
    expect(sniffContent(Buffer.from('Obj\x01rest', 'latin1'))).toBe('avro');
    expect(sniffContent(Buffer.from('\n  {"a":1}'))).toBe('json');
    expectTblError(() => sniffContent(Buffer.from('hello'), { path: 'p' }), 'metadata', 'p: not Avro or JSON instant content');
  });

  it('header holds only avro.schema; deflate codec round-trips; fixed sync is used', () => {
    const sync = new Uint8Array(16).fill(7);
    const plain = writeAvroContainer(SCHEMAS.HoodieRestorePlan, [{ instantsToRollback: [], version: 1 }], { sync });
    expect(Buffer.from(plain).includes(Buffer.from('avro.codec'))).toBe(false);
    expect(Buffer.from(plain.subarray(plain.length - 16)).equals(Buffer.from(sync))).toBe(true);
    const recs = Array.from({ length: 50 }, (_, i) => ({ instantsToRollback: [{ commitTime: String(i).repeat(10), action: 'commit' }], version: 2, savepointToRestoreTimestamp: String(i) }));
    const z = writeAvroContainer(SCHEMAS.HoodieRestorePlan, recs, { codec: 'deflate' });
    const back = readAvroContainer(z, ctx);
    expect(back.schemaName).toBe('HoodieRestorePlan');
    expect(back.records).toEqual(recs);
  });

  it('a sync-marker mismatch is reported as corruption', () => {
    const b = Uint8Array.from(writeAvroContainer(SCHEMAS.HoodieRestorePlan, [{ instantsToRollback: [], version: 1 }]));
    b[b.length - 1] = b[b.length - 1]! ^ 0xff;
    expectTblError(() => readAvroContainer(b, ctx), 'metadata', '/t/.hoodie/x: truncated or corrupt Avro (sync marker mismatch)');
  });
});

describe('log-block datums', () => {
  it('HoodieDeleteRecordList matches the real DELETE block bytes (format-data.md §3.4 hexdump)', () => {
    const hex =
      '0602486539366334333936 2d336661642d343133612d613934322d346362333631303664373231' +
      '0224636974793d73616e5f6672616e636973636f0400' +
      '0248393930396138623 12d326431352d346433642d386563392d656663343863353336613030' +
      '0224636974793d73616e5f6672616e636973636f0400' +
      '0248333334653236653 92d383335352d343563632d393763362d633331646166306466333330' +
      '0224636974793d73616e5f6672616e636973636f040000';
    const real = Buffer.from(hex.replace(/\s/g, ''), 'hex');
    expect(real.length).toBe(182);
    const recs = decodeDeleteRecordList(real, ctx);
    expect(recs.map((r) => r.recordKey)).toEqual([
      'e96c4396-3fad-413a-a942-4cb36106d721', '9909a8b1-2d15-4d3d-8ec9-efc48c536a00', '334e26e9-8355-45cc-97c6-c31daf0df330',
    ]);
    expect(recs.every((r) => r.partitionPath === 'city=san_francisco')).toBe(true);
    expect(recs[0]!.orderingVal).toEqual({ type: 'int', value: 0 });
    expect(Buffer.from(encodeDeleteRecordList(recs)).equals(real)).toBe(true);
  });

  it('delete records with other ordering types and null round-trip', () => {
    const recs = [
      { recordKey: 'a', partitionPath: null, orderingVal: { type: 'long' as const, value: 1700000000123 } },
      { recordKey: 'b', partitionPath: 'p', orderingVal: { type: 'string' as const, value: 'x' } },
      { recordKey: 'c', partitionPath: 'p', orderingVal: null },
      { recordKey: 'd', partitionPath: 'p', orderingVal: { type: 'timestampMicros' as const, value: 5 } },
    ];
    expect(decodeDeleteRecordList(encodeDeleteRecordList(recs), ctx)).toEqual(recs);
  });

  it('archived meta entry: datum round trip, and resolution from a writer schema', () => {
    const entry = {
      commitTime: '20240101000000000', actionType: 'rollback', actionState: 'COMPLETED', version: 1, stateTransitionTime: null,
      hoodieRollbackMetadata: { startRollbackTime: '1', timeTakenInMillis: 2, totalFilesDeleted: 0, commitsRollback: ['0'], partitionMetadata: {}, version: 1, instantsRollback: [] },
    };
    const bytes = encodeArchivedMetaEntry(entry);
    const back = decodeArchivedMetaEntry(bytes, { path: 'a', writerSchema: JSON.stringify(SCHEMAS.HoodieArchivedMetaEntry) });
    expect(back.commitTime).toBe('20240101000000000');
    expect(back.hoodieRollbackMetadata?.commitsRollback).toEqual(['0']);
    expect(back.hoodieCommitMetadata).toBeNull();
    expect(decodeDatum(encodeDatum('HoodieLSMTimelineInstant', { instantTime: '1', completionTime: '2', action: 'commit', metadata: Buffer.from([1, 2]), plan: null, version: 1 }), { path: 'l', readerName: 'HoodieLSMTimelineInstant' })).toMatchObject({ instantTime: '1', action: 'commit' });
    expectTblError(() => decodeArchivedMetaEntry(bytes.subarray(0, 5), { path: 'a', writerSchema: SCHEMAS.HoodieArchivedMetaEntry }), 'metadata', /^a: truncated or corrupt Avro/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('schema constants equal the schemas Hudi embeds', () => {
  it('HoodieCommitMetadata (v8_deltacommit.avro)', () => {
    const bytes = readFileSync(coreTestData('commit_metadata/v8_deltacommit.avro'));
    expect(JSON.stringify(readAvroContainer(bytes, ctx).schema)).toBe(JSON.stringify(SCHEMAS.HoodieCommitMetadata));
  });
});
