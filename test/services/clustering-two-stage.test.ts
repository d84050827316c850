// A clustering group in the bundled worker, on one thread or two (cluster-stage.ts: the worker
// gathers, this thread orders a base-files group and encodes the fields): the files are byte-identical to the in-process
// clustering's on every path — base files only (no merge), slices with logs (merged and held), the
// row path — with several outputs and rollover; an input error ends as it does in-process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { clusterGroup, type ClusterJob, type ClusterOutput } from '../../src/services/rewrite/cluster-op.ts';
import { clusterJob } from '../../src/services/rewrite/worker-run.ts';
import { joinFileData, LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { bundleForTest } from '../support/bundle.ts';
import { generateSmallFilesTable } from '../support/small-files.ts';
import { captureBefore, checkAfter, clusterJobOf } from './support/clustering-check.ts';

let url: URL;

beforeAll(async () => {
  url = (await bundleForTest('src/services/rewrite/worker.ts', 'rewrite-worker.js', { packages: 'external' })).url;
});

function fresh(o: Parameters<typeof generateSmallFilesTable>[1]): string {
  const base = join(mkdtempSync(join(tmpdir(), 'tblcli-two-stage-')), 'events');
  generateSmallFilesTable(base, o);
  return base;
}

const jobOf = (base: string, o: Partial<ClusterJob>) => clusterJobOf(base, 'p', { rowGroupSize: 250, sortColumns: ['city', 'ts'], ...o });

function expectSame(got: ClusterOutput, want: ClusterOutput): void {
  expect(got.path).toBe(want.path);
  expect(got.records).toBe(want.records);
  expect(got.stats).toEqual(want.stats);
  expect(got.files.map((f) => [f.fileId, f.fileName, f.rowCount])).toEqual(want.files.map((f) => [f.fileId, f.fileName, f.rowCount]));
  expect(got.files.map((f) => f.keys)).toEqual(want.files.map((f) => f.keys));
  for (const [i, f] of got.files.entries()) expect(Buffer.from(joinFileData(f.parts)).equals(Buffer.from(joinFileData(want.files[i]!.parts))), f.fileName).toBe(true);
}

describe('clustering a group on two threads', () => {
  it.each([
    ['base files only', 'COPY_ON_WRITE', {}],
    ['base files only, rollover, z-order', 'COPY_ON_WRITE', { targetFileMaxBytes: 15_000, layout: 'z-order', sortColumns: ['qty', 'ts'] }],
    ['slices with logs', 'MERGE_ON_READ', {}],
    ['slices with logs, GZIP level 1, hilbert', 'MERGE_ON_READ', { gzipLevel: 1, layout: 'hilbert', sortColumns: ['ts', 'city'] }],
    ['the row path', 'MERGE_ON_READ', { mergePath: 'rows' }],
    ['SNAPPY', 'COPY_ON_WRITE', { codec: 'SNAPPY' }],
    ['no sort columns', 'COPY_ON_WRITE', { sortColumns: [] }],
  ] as const)('%s: the in-process bytes', async (_name, type, o) => {
    const base = fresh({ version: 9, type, partitions: ['p'], filesPerPartition: 4, rowsPerFile: 600, rowGroupSize: 200, logUpdates: 30, seed: 5 });
    const job = await jobOf(base, o as Partial<ClusterJob>);
    const storage = new LocalStorage();
    const want = await clusterGroup(storage, job);
    for (const threads of [1, 2] as const) {
      const got = await clusterJob(storage, job, { mode: 'always', url, threads });
      expectSame(got, want);
      // on two threads a base-files group is ordered by this thread while the worker starts
      expect(got.orderGiven ?? false).toBe(threads === 2 && type === 'COPY_ON_WRITE');
    }
  });

  it('record keys held as bytes (over 4,096 of them), several files: the in-process bytes, bloom filters too', async () => {
    // the worker builds the bloom filters from the held keys a step at a time (cluster-write.ts
    // BloomWork), resuming inside a file; the dictionary-held keys of the cases above take another path
    const base = fresh({ version: 6, type: 'COPY_ON_WRITE', partitions: ['p'], filesPerPartition: 4, rowsPerFile: 1_600, rowGroupSize: 400, seed: 8 });
    const job = await jobOf(base, { targetFileMaxBytes: 900_000 });
    const storage = new LocalStorage();
    const want = await clusterGroup(storage, job);
    expect(want.files.length).toBeGreaterThan(1);
    expect(Math.max(...want.files.map((f) => f.rowCount))).toBeGreaterThan(2_048);
    expectSame(await clusterJob(storage, job, { mode: 'always', url, threads: 2 }), want);
  });

  it('clustering run with the worker, two threads: every acceptance check', async () => {
    const base = fresh({ version: 6, type: 'COPY_ON_WRITE', partitions: ['2025/01/01'], filesPerPartition: 5, rowsPerFile: 800, seed: 6 });
    const before = await captureBefore(base);
    const s = await scheduleClustering(await openTable(base), { clockSkewMs: 1, sortColumns: ['city', 'ts'] });
    const r = await runClustering(await openTable(base), { clockSkewMs: 1, fileGroupWorkers: 'always', workerUrl: url, fileGroupThreads: 2, rowGroupSize: 700 });
    expect(r.status).toBe('completed');
    await checkAfter(base, before, s, r, ['city', 'ts'], 'linear');
  });

  it('a corrupt base page: the in-process error', async () => {
    const base = fresh({ version: 9, type: 'COPY_ON_WRITE', partitions: ['p'], filesPerPartition: 3, rowsPerFile: 400, seed: 7 });
    const job = await jobOf(base, {});
    const path = job.slices[1]!.baseFile!.path;
    const bytes = readFileSync(path);
    // garble the middle of the file (page bytes, not the footer)
    for (let i = 200; i < 260; i++) bytes[i] = bytes[i]! ^ 0x5a;
    writeFileSync(path, bytes);
    const storage = new LocalStorage();
    const want = await clusterGroup(storage, job).then(
      () => 'no error',
      (e: Error) => e.message,
    );
    expect(want).not.toBe('no error');
    for (const threads of [1, 2] as const) {
      const got = await clusterJob(storage, job, { mode: 'always', url, threads }).then(
        () => 'no error',
        (e: Error) => e.message,
      );
      expect(got).toBe(want);
    }
  });
});
