// `commits show` totals decoded by this thread and a worker thread sharing chunks (commit-totals.ts):
// same totals as the numbers written, whoever decodes which chunk; the first error in timeline order
// wins; a worker that cannot run leaves the work to this thread. The worker is bundled with esbuild
// (vitest runs sources, where no worker file exists).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { bundleForTest } from '../support/bundle.ts';
import { emptyCommitMetadata, encodeCommitMetadataJson, newWriteStat } from '../../src/metadata/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, loadCommitTotals } from '../../src/table/index.ts';
import { fromWorkerInput, loadTotals, MIN_FILES_FOR_WORKER, TOTALS_CHUNK, TotalsWorker, toWorkerInput, type InstantTotals, type TotalsFile } from '../../src/table/commit-totals.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
/** the worker the built CLI runs (npm install builds it) */
const DIST_WORKER = join(ROOT, 'dist', 'totals-worker.js');
const TWO_CORES = availableParallelism() >= 2;
let workerUrl: URL;
let brokenUrl: URL;
const made: string[] = [];
const tempDir = (prefix: string): string => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
};

afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

beforeAll(async () => {
  const worker = await bundleForTest('src/table/totals-worker.ts', 'totals-worker.mjs', { packages: 'external' });
  workerUrl = worker.url;
  const broken = join(worker.dir, 'broken-worker.mjs');
  writeFileSync(broken, "throw new Error('this worker cannot start');\n");
  brokenUrl = pathToFileURL(broken);
});

const N = TOTALS_CHUNK * 5 + 17; // six chunks, the last one short

/** N commit files whose totals are known from the numbers written. */
function timeline(): { files: TotalsFile[]; expected: { records: number; bytes: number; inserts: number; partitions: number }[] } {
  const dir = tempDir('tblcli-totals-');
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

  const workerAlone = async (url: URL) => {
    const { files, expected } = timeline();
    const worker = TotalsWorker.start(url)!;
    const got: InstantTotals[] = new Array(files.length);
    let chunks = 0;
    await worker.run(toWorkerInput(files, new SharedArrayBuffer(4)), (c, rows) => {
      chunks += 1;
      rows.forEach((r, k) => (got[c * TOTALS_CHUNK + k] = r));
    });
    expect(chunks).toBe(Math.ceil(N / TOTALS_CHUNK));
    expect(summary(got)).toEqual(expected);
  };

  it('a worker alone decodes every chunk it claims: the totals written, posted per chunk', () => workerAlone(workerUrl));

  it.skipIf(!existsSync(DIST_WORKER))('the built worker (dist/totals-worker.js, what the CLI runs) does the same', () => workerAlone(pathToFileURL(DIST_WORKER)));

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

  it('with a worker, or alone, the totals written in order (whoever decodes which chunk)', async () => {
    const { files, expected } = timeline();
    expect(summary(await loadTotals(storage, files, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1 }))).toEqual(expected);
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
    for (let run = 0; run < 3; run++) {
      const e = await errorOf(loadTotals(storage, files, { worker: TotalsWorker.start(workerUrl), minFilesForWorker: 1 }));
      expect(e.kind).toBe('metadata');
      expect(e.message).toContain(`${files[TOTALS_CHUNK * 4 + 1]!.path}: invalid JSON commit metadata`);
      // the cause chain --debug prints survives whichever thread met it first (the worker only says which chunk failed)
      expect(e.cause).toBeInstanceOf(SyntaxError);
    }
  });

  it('a worker that dies at start-up leaves every chunk to this thread; a missing file is still named', async () => {
    const { files, expected } = timeline();
    const stats = { workerChunks: 0 };
    expect(summary(await loadTotals(storage, files, { worker: TotalsWorker.start(brokenUrl), minFilesForWorker: 1, stats }))).toEqual(expected);
    expect(stats.workerChunks).toBe(0);
    const early = TotalsWorker.start(brokenUrl)!;
    await early.exited; // dead before it is given any work
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

describe('loadCommitTotals: decoding starts on the listing', () => {
  /** A layout-1 table of `n` commits (+ requested/inflight files), 14- and 17-digit times mixed. */
  function table(n: number): { dir: string; expected: number[] } {
    const dir = tempDir('tblcli-early-');
    const meta = join(dir, '.hoodie');
    mkdirSync(meta);
    writeFileSync(join(meta, 'hoodie.properties'), 'hoodie.table.name=t\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=6\nhoodie.timeline.layout.version=1\n');
    const times: string[] = [];
    for (let i = 0; i < n; i++) {
      // every 50th instant has a 14-digit time: it sorts among the 17-digit ones differently by name
      times.push(i % 50 === 0 ? String(20240101000000 + i) : String(20240101000000000 + i * 1000));
    }
    for (const [i, t] of times.entries()) {
      const m = emptyCommitMetadata();
      m.partitionToWriteStats.p = [newWriteStat({ fileId: `f${i}`, path: `p/f${i}.parquet`, prevCommit: 'null', partitionPath: 'p', numWrites: i })];
      writeFileSync(join(meta, `${t}.commit.requested`), '');
      writeFileSync(join(meta, `${t}.inflight`), '');
      writeFileSync(join(meta, `${t}.commit`), encodeCommitMetadataJson(m));
    }
    const order = times.map((t, i) => ({ t, i })).sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0));
    return { dir, expected: order.map((x) => x.i) };
  }

  it.skipIf(!TWO_CORES)('the worker starts on the listing; rows are the grouped timeline\'s, newest first', async () => {
    const { dir, expected } = table(MIN_FILES_FOR_WORKER + 100);
    const stats = { early: false, workerChunks: 0 };
    const rows = await loadCommitTotals(await openTable(dir), { workerUrl, stats });
    expect(stats.early).toBe(true);
    expect(rows.map((r) => r.totals.totalRecordsWritten)).toEqual(expected);
    const alone = await loadCommitTotals(await openTable(dir), { workerUrl: null });
    expect(alone.map((r) => [r.instant.requestedTime, r.totals])).toEqual(rows.map((r) => [r.instant.requestedTime, r.totals]));
  });

  it('a timeline the names mislead (one instant completed twice, layout 2) is decoded from the grouped timeline', async () => {
    const dir = tempDir('tblcli-mislead-');
    const tl = join(dir, '.hoodie', 'timeline');
    mkdirSync(tl, { recursive: true });
    writeFileSync(join(dir, '.hoodie', 'hoodie.properties'), 'hoodie.table.name=t\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=8\nhoodie.timeline.layout.version=2\n');
    const n = MIN_FILES_FOR_WORKER + 10;
    const commit = (records: number) => {
      const m = emptyCommitMetadata();
      m.partitionToWriteStats.p = [newWriteStat({ fileId: 'f', path: 'p/f.parquet', prevCommit: 'null', partitionPath: 'p', numWrites: records })];
      return encodeCommitMetadataJson(m);
    };
    for (let i = 0; i < n; i++) {
      const t = String(20240101000000000 + i * 1000);
      writeFileSync(join(tl, `${t}.commit.requested`), '');
      writeFileSync(join(tl, `${t}_${String(20240101000000000 + i * 1000 + 500)}.commit`), commit(i));
    }
    // the newest instant completed twice: the names give n + 1 files, the grouped timeline n
    writeFileSync(join(tl, `${String(20240101000000000 + (n - 1) * 1000)}_20990101000000000.commit`), commit(-1));
    const stats = { early: false, workerChunks: 0 };
    const rows = await loadCommitTotals(await openTable(dir), { workerUrl, stats });
    expect(stats.early).toBe(false);
    expect(rows).toHaveLength(n);
    // grouping keeps the later completed file of the two
    expect(rows.map((r) => r.totals.totalRecordsWritten)).toEqual([-1, ...Array.from({ length: n - 1 }, (_, k) => n - 2 - k)]);
  });

  it('a small timeline stops the worker unused; --limit starts none', async () => {
    const { dir, expected } = table(40);
    const stats = { early: false, workerChunks: 0 };
    const rows = await loadCommitTotals(await openTable(dir), { workerUrl, stats });
    expect([stats.early, stats.workerChunks]).toEqual([false, 0]);
    expect(rows.map((r) => r.totals.totalRecordsWritten)).toEqual(expected);
    const limited = await loadCommitTotals(await openTable(dir), { workerUrl, stats, limit: 5 });
    expect(limited.map((r) => r.totals.totalRecordsWritten)).toEqual(expected.slice(0, 5));
  });
});
