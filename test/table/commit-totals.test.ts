// `commits show` totals decoded by this thread and a worker thread sharing chunks (commit-totals.ts):
// same totals as the numbers written, whoever decodes which chunk; the first error in timeline order
// wins; a worker that cannot run leaves the work to this thread. The worker is bundled with esbuild
// (vitest runs sources, where no worker file exists).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { emptyCommitMetadata, encodeCommitMetadataJson, newWriteStat } from '../../src/metadata/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { fromWorkerInput, loadTotals, TOTALS_CHUNK, TotalsWorker, toWorkerInput, type InstantTotals, type TotalsFile } from '../../src/table/commit-totals.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
let workerUrl: URL;
let brokenUrl: URL;

beforeAll(async () => {
  // inside the repo, so the bundle's external packages resolve from node_modules
  const dir = join(ROOT, 'node_modules', '.cache', 'tblcli-tests');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `totals-worker-${process.pid}.mjs`);
  await build({ entryPoints: [join(ROOT, 'src/table/totals-worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'error', packages: 'external' });
  workerUrl = pathToFileURL(outfile);
  const broken = join(dir, `broken-worker-${process.pid}.mjs`);
  writeFileSync(broken, "throw new Error('this worker cannot start');\n");
  brokenUrl = pathToFileURL(broken);
});

const N = TOTALS_CHUNK * 5 + 17; // six chunks, the last one short

/** N commit files whose totals are known from the numbers written. */
function timeline(): { files: TotalsFile[]; expected: { records: number; bytes: number; inserts: number; partitions: number }[] } {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-totals-'));
  const files: TotalsFile[] = [];
  const expected = [];
  for (let i = 0; i < N; i++) {
    const instant = String(20250101000000000 + i * 1000);
    const m = emptyCommitMetadata();
    m.operationType = 'UPSERT';
    const parts = 1 + (i % 3);
    let records = 0;
    let bytes = 0;
    let inserts = 0;
    for (let p = 0; p < parts; p++) {
      const partitionPath = `p=${p}`;
      const first = i % 2 === 0;
      const stat = newWriteStat({ fileId: `f${p}`, path: `${partitionPath}/f${p}.parquet`, prevCommit: first ? 'null' : '20240101000000000', partitionPath, numWrites: i + p, totalWriteBytes: 1000 * i + p, numInserts: i });
      m.partitionToWriteStats[partitionPath] = [stat];
      records += i + p;
      bytes += 1000 * i + p;
      if (first) inserts += 1;
    }
    const path = join(dir, `${instant}.commit`);
    writeFileSync(path, encodeCommitMetadataJson(m));
    files.push({ path, uri: path, instant });
    expected.push({ records, bytes, inserts, partitions: parts });
  }
  return { files, expected };
}

const summary = (t: Awaited<ReturnType<typeof loadTotals>>) =>
  t.map((x) => ({ records: x.totalRecordsWritten, bytes: x.totalBytesWritten, inserts: x.totalFilesInsert, partitions: x.totalPartitionsWritten }));

async function errorOf(p: Promise<unknown>): Promise<TblError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TblError);
    return e as TblError;
  }
  throw new Error('expected an error');
}

describe('commits show totals across two threads', () => {
  const storage = new LocalStorage();

  it('a worker alone decodes every chunk it claims: the totals written, posted per chunk', async () => {
    const { files, expected } = timeline();
    const worker = TotalsWorker.start(workerUrl)!;
    const got: InstantTotals[] = new Array(files.length);
    const errors = new Map<number, Error>();
    let chunks = 0;
    await worker.run(toWorkerInput(files, new SharedArrayBuffer(4)), (c, rows) => {
      chunks += 1;
      rows.forEach((r, k) => (got[c * TOTALS_CHUNK + k] = r));
    }, errors);
    expect(errors.size).toBe(0);
    expect(chunks).toBe(Math.ceil(N / TOTALS_CHUNK));
    expect(summary(got)).toEqual(expected);
  });

  it('the worker input round-trips the files (URIs sent only when they differ from the paths)', () => {
    const files = [
      { path: '/t/.hoodie/1.commit', uri: '/t/.hoodie/1.commit', instant: '1' },
      { path: '/t/.hoodie/2.commit', uri: '/t/.hoodie/2.commit', instant: '2' },
    ];
    const sab = new SharedArrayBuffer(4);
    expect(toWorkerInput(files, sab).uris).toBeUndefined();
    expect(fromWorkerInput(toWorkerInput(files, sab))).toEqual(files);
    const remote = files.map((f) => ({ ...f, uri: `webhdfs://nn:9870${f.path}` }));
    expect(fromWorkerInput(toWorkerInput(remote, sab))).toEqual(remote);
    expect(fromWorkerInput(toWorkerInput([], sab))).toEqual([]);
  });

  it('a worker and this thread together give the totals written, in order', async () => {
    const { files, expected } = timeline();
    const stats = { workerChunks: 0 };
    expect(summary(await loadTotals(storage, files, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1, stats }))).toEqual(expected);
    expect(stats.workerChunks).toBeLessThanOrEqual(Math.ceil(N / TOTALS_CHUNK));
    expect(summary(await loadTotals(storage, files))).toEqual(expected);
  });

  it('the error reported is the first in timeline order, whichever thread met it', async () => {
    const { files } = timeline();
    writeFileSync(files[TOTALS_CHUNK + 3]!.path, ''); // chunk 1: empty completed commit
    writeFileSync(files[TOTALS_CHUNK * 4 + 1]!.path, '{"partitionToWriteStats": {'); // chunk 4: truncated JSON
    for (let run = 0; run < 3; run++) {
      const e = await errorOf(loadTotals(storage, files, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1 }));
      expect(e.message).toBe(`${files[TOTALS_CHUNK + 3]!.path}: empty completed commit file for instant ${files[TOTALS_CHUNK + 3]!.instant} (a writer crashed while completing it?)`);
    }
    writeFileSync(files[TOTALS_CHUNK + 3]!.path, encodeCommitMetadataJson(emptyCommitMetadata()));
    const e = await errorOf(loadTotals(storage, files, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1 }));
    expect(e.kind).toBe('metadata');
    expect(e.message).toContain(`${files[TOTALS_CHUNK * 4 + 1]!.path}: invalid JSON commit metadata`);
  });

  it('a worker that dies at start-up leaves every chunk to this thread; a missing file is still named', async () => {
    const { files, expected } = timeline();
    const stats = { workerChunks: 0 };
    expect(summary(await loadTotals(storage, files, { worker: TotalsWorker.start(brokenUrl), minFilesForWorker: 1, stats }))).toEqual(expected);
    expect(stats.workerChunks).toBe(0);
    const early = TotalsWorker.start(brokenUrl);
    await new Promise((r) => setTimeout(r, 500)); // dead before it is given any work
    expect(summary(await loadTotals(storage, files, { worker: early, minFilesForWorker: 1 }))).toEqual(expected);
    const gone = [...files.slice(0, 5), { ...files[5]!, path: `${files[5]!.path}.gone`, uri: `${files[5]!.uri}.gone` }];
    const e = await errorOf(loadTotals(storage, gone, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1 }));
    expect(e.kind).toBe('not-found');
    expect(e.message).toContain(`${files[5]!.path}.gone`);
  });

  it('below the threshold the worker is stopped unused', async () => {
    const { files, expected } = timeline();
    const stats = { workerChunks: 0 };
    expect(summary(await loadTotals(storage, files.slice(0, 10), { worker: TotalsWorker.start(workerUrl), stats }))).toEqual(expected.slice(0, 10));
    expect(stats.workerChunks).toBe(0);
  });
});
