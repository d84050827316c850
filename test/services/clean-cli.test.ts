// The clean commands as cron uses them: quiet on success, --json summary, --dry-run plan, exit codes
// 0 / 1 / 4, the clean keys of --hoodieConfigs and --propsFilePath honoured, the LAZY failed-writes
// policy, --max-duration, bad plans refused before anything is written, and `cleans show` /
// `clean showpartitions` showing our cleans as hudi-cli shows Hudi's.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCleanMetadata, encodeCleanerPlan } from '../../src/metadata/index.ts';
import { openTable } from '../../src/table/index.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { dataFiles } from './support/clean-check.ts';
import { predictClean } from './support/clean-oracle.ts';
import { GenTable } from './support/gen-table.ts';

async function table(type: 'COPY_ON_WRITE' | 'MERGE_ON_READ' = 'COPY_ON_WRITE', version: 6 | 8 = 8, updates = 4): Promise<GenTable> {
  const g = await GenTable.create(join(mkdtempSync(join(tmpdir(), 'tblcli-clean-cli-')), 't'), { type, version });
  await g.insert(2, 2);
  for (let i = 0; i < updates; i++) await g.update();
  return g;
}

const cleanInstants = async (base: string) => (await (await openTable(base)).timeline()).instants.filter((i) => i.action === 'clean');

describe('cleans run (cron)', () => {
  it('is quiet on success and nothing to clean, exit 0; --json prints the summary', async () => {
    const g = await table();
    const expected = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    const r = await runCli(['cleans', 'run', '--path', g.base, '--commits-retained', '2']);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    for (const f of expected.files) expect(existsSync(join(g.base, f))).toBe(false);
    const again = await runCli(['cleans', 'run', '--path', g.base, '--commits-retained', '2']);
    expect([again.exitCode, again.stdout, again.stderr]).toEqual([0, '', '']);
    const j = await runJson<Record<string, unknown>>(['cleans', 'run', '--path', g.base, '--commits-retained', '2']);
    expect(j.status).toBe('nothing-to-clean');
    expect(j.reason).toMatch(/hoodie.clean.trigger.max.commits|nothing to clean/);

    await g.update();
    const next = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    const s = await runJson<Record<string, unknown>>(['cleans', 'run', '--path', g.base, '--commits-retained', '2']);
    expect(s).toMatchObject({ status: 'cleaned', files: next.files.size, failedFiles: 0, partitions: 2, partitionsDeleted: [], rolledBack: [] });
    expect(s.instant).toMatch(/^\d{17}$/);
    expect(typeof s.bytes).toBe('number');
    expect(s.bytes as number).toBeGreaterThan(0);
    expect(typeof s.durationMs).toBe('number');
  });

  it('progress: a bar on a terminal\'s stderr (gone at the end), ~20 plain lines with --verbose in a pipe; the summary for a person', async () => {
    const g = await table('COPY_ON_WRITE', 8, 6);
    const n = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 }).files.size;
    expect(n).toBeGreaterThan(1);
    const tty = await runCli(['cleans', 'run', '--path', g.base, '--commits-retained', '1'], { tty: true });
    expect(tty.exitCode, tty.stderr).toBe(0);
    expect(tty.stdout).toBe('');
    expect(tty.stderr).toMatch(new RegExp(`\\r(clean \\d{17} )?▕░{20}▏ 0/${n} files · 0 files/s · elapsed \\d+ ms`));
    expect(tty.stderr).toMatch(new RegExp(`\\r(clean \\d{17} )?▕█{20}▏ ${n}/${n} files · [\\d.]+k? files/s`));
    expect(tty.stderr).not.toMatch(/records| B\b/);
    expect(tty.stderr.endsWith('\r\u001b[K')).toBe(true);

    const h = await table('COPY_ON_WRITE', 8, 6);
    const pipe = await runCli(['cleans', 'run', '--path', h.base, '--commits-retained', '1', '--verbose']);
    expect(pipe.exitCode, pipe.stderr).toBe(0);
    const lines = pipe.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^clean \\d{17}: 0/${n} files, 0 files/s, elapsed 0 ms$`));
    const steps = lines.filter((l) => /^clean \d{17}: \d+\/\d+ files/.test(l));
    expect(steps.length).toBeLessThanOrEqual(22);
    expect(steps.at(-1)).toMatch(new RegExp(`: ${n}/${n} files`));
    expect(lines.at(-1)).toMatch(new RegExp(`^Clean \\d{17} completed: ${n} file\\(s\\) deleted, \\d+ bytes, 2 partition\\(s\\) in \\d+ ms$`));
    expect(pipe.stderr).not.toMatch(/\u001b|\r/);

    // --verbose on a terminal: the same facts in a person's units, after the bar is gone
    const k = await table('COPY_ON_WRITE', 8, 6);
    const person = await runCli(['cleans', 'run', '--path', k.base, '--commits-retained', '1', '--verbose'], { tty: true });
    expect(person.exitCode, person.stderr).toBe(0);
    expect(person.stderr).toMatch(new RegExp(`\\r\\u001b\\[KClean \\d{17} completed: ${n} file\\(s\\) deleted, [\\d.]+ [kMG]?B, 2 partition\\(s\\) in [\\d.]+ m?s\\n$`));
  });

  it('clean run --dry-run lists the pending plans a run would execute and changes nothing', async () => {
    const g = await table();
    const none = await runJson<{ dryRun: boolean; pending: string[]; files: unknown[] }>(['clean', 'run', '--path', g.base, '--dry-run']);
    expect(none).toMatchObject({ dryRun: true, pending: [], files: [] });
    const s = await runJson<{ instant: string; files: number }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '1']);
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const j = await runJson<{ instant: string; pending: string[]; busy: string[]; files: { partition: string; file: string; reason: string }[] }>(['clean', 'run', '--path', g.base, '--dry-run']);
    expect(j).toMatchObject({ instant: s.instant, pending: [s.instant], busy: [] });
    expect(j.files).toHaveLength(s.files);
    for (const f of j.files) expect(f.reason).toBe(`pending clean ${s.instant}`);
    const r = await runCli(['clean', 'run', '--path', g.base, '--instant', s.instant, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`pending clean ${s.instant}`);
    expect((await runCli(['clean', 'run', '--path', g.base, '--instant', '20000101000000000', '--dry-run'])).exitCode).toBe(1);
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  });

  it('--dry-run prints partition, file, bytes and why, and changes nothing', async () => {
    const g = await table();
    const digest = treeDigest(g.base);
    const expected = predictClean(g.base, { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 });
    const r = await runCli(['cleans', 'run', '--path', g.base, '--policy', 'KEEP_LATEST_FILE_VERSIONS', '--file-versions-retained', '1', '--dry-run', '--format', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('Partition Path,File,Size,Reason');
    expect(lines.slice(1).map((l) => { const [p, f] = l.split(','); return `${p}/${f}`; }).sort()).toEqual([...expected.files].sort());
    for (const l of lines.slice(1)) {
      const [, , size, ...why] = l.split(',');
      expect(Number(size)).toBeGreaterThan(0);
      expect(why.join(',')).toMatch(/version \d of the file group/);
    }
    const j = await runJson<{ dryRun: boolean; files: { partition: string; file: string; bytes: number; reason: string }[] }>(['cleans', 'run', '--path', g.base, '--policy', 'KEEP_LATEST_FILE_VERSIONS', '--file-versions-retained', '1', '--dry-run']);
    expect(j.dryRun).toBe(true);
    expect(j.files).toHaveLength(expected.files.size);
    expect(treeDigest(g.base)).toEqual(digest);
  });

  it('honours the clean keys of --hoodieConfigs and --propsFilePath; flags win', async () => {
    const g = await table();
    const before = dataFiles(g.base);
    const props = join(mkdtempSync(join(tmpdir(), 'tblcli-props-')), 'clean.properties');
    writeFileSync(props, 'hoodie.cleaner.policy=KEEP_LATEST_COMMITS\nhoodie.cleaner.commits.retained=3\n');
    // props: COMMITS 3; --hoodieConfigs overrides the policy to FILE_VERSIONS with 2 versions
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 2 });
    const r = await runJson<{ files: number }>(['cleans', 'run', '--path', g.base, '--propsFilePath', props, '--hoodieConfigs', 'hoodie.clean.policy=KEEP_LATEST_FILE_VERSIONS', 'hoodie.cleaner.fileversions.retained=2']);
    expect(r.files).toBe(want.files.size);
    expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual([...want.files].sort());
    const m = decodeCleanMetadata(await (await (await openTable(g.base)).timeline()).read((await cleanInstants(g.base))[0]!), { path: 'c' });
    expect(Object.values(m.partitionMetadata)[0]!.policy).toBe('KEEP_LATEST_FILE_VERSIONS');

    // the props file alone: KEEP_LATEST_COMMITS retaining 3
    const h = await table();
    const want3 = predictClean(h.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 3 });
    expect((await runJson<{ files: number }>(['cleans', 'run', '--path', h.base, '--propsFilePath', props])).files).toBe(want3.files.size);
    // a flag beats both
    const k = await table();
    const want1 = predictClean(k.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 });
    expect((await runJson<{ files: number }>(['cleans', 'run', '--path', k.base, '--propsFilePath', props, '--commits-retained', '1'])).files).toBe(want1.files.size);
    // table version 8 infers the policy from the one *.retained key given (HoodieCleanConfig 1.x)
    const v = await table();
    const wantV = predictClean(v.base, { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 });
    expect((await runJson<{ files: number }>(['cleans', 'run', '--path', v.base, '--file-versions-retained', '1'])).files).toBe(wantV.files.size);
  });

  it('exit 4 while another process holds the lock; exit 2 on a bad policy; exit 1 on a bad config value', async () => {
    const g = await table();
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    mkdirSync(join(g.base, '.hoodie/.aux'), { recursive: true });
    writeFileSync(join(g.base, '.hoodie/.aux/lock'), '{}');
    const held = await runCli(['cleans', 'run', '--path', g.base]);
    expect(held.exitCode).toBe(4);
    expect(held.stderr.trim().split('\n')).toHaveLength(1);
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    const bad = await runCli(['cleans', 'run', '--path', g.base, '--policy', 'KEEP_EVERYTHING']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('KEEP_EVERYTHING');
    const badKey = await runCli(['cleans', 'run', '--path', g.base, '--hoodieConfigs', 'hoodie.clean.commits.retained=ten']);
    expect(badKey.exitCode).toBe(1);
    expect(badKey.stderr).toContain('hoodie.clean.commits.retained=ten');
  });

  it('a plan naming a file outside the table is refused with one line; nothing is written', async () => {
    const g = await table();
    const t = await openTable(g.base);
    const T = '20991231000000000';
    writeFileSync(
      join(t.timelineSource.timelineDir, `${T}.clean.requested`),
      encodeCleanerPlan({
        earliestInstantToRetain: null,
        lastCompletedCommitTimestamp: '',
        policy: 'KEEP_LATEST_COMMITS',
        filesToBeDeletedPerPartition: {},
        version: 2,
        filePathsToBeDeletedPerPartition: { 'part=a': [{ filePath: `file:${g.base}/part=a/../../../etc/passwd`, isBootstrapBaseFile: false }] },
        partitionsToBeDeleted: [],
        extraMetadata: {},
      }),
    );
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const r = await runCli(['cleans', 'run', '--path', g.base]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(T);
    expect(r.stderr).toContain('clean plan');
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  });

  it('a pending version-1 plan (a 0.x writer\'s: file names per partition) is executed from it, exactly; a v1 entry that is a path is refused', async () => {
    const g = await table('COPY_ON_WRITE', 6, 4);
    const want = [...predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 }).files].sort();
    expect(want.length).toBeGreaterThan(1);
    const t = await openTable(g.base);
    const T = '20991231000000000';
    const byPartition: Record<string, string[]> = {};
    for (const f of want) (byPartition[f.slice(0, f.indexOf('/'))] ??= []).push(f.slice(f.indexOf('/') + 1));
    const plan = (files: Record<string, string[]>) =>
      encodeCleanerPlan({ earliestInstantToRetain: null, lastCompletedCommitTimestamp: '', policy: 'KEEP_LATEST_COMMITS', filesToBeDeletedPerPartition: files, version: 1, filePathsToBeDeletedPerPartition: null, partitionsToBeDeleted: null, extraMetadata: null });
    const file = join(t.timelineSource.timelineDir, `${T}.clean.requested`);
    writeFileSync(file, plan({ 'part=a': ['../part=b/x.parquet'] }));
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const bad = await runCli(['clean', 'run', '--path', g.base]);
    expect([bad.exitCode, bad.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(bad.stderr).toContain('version 1');
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    writeFileSync(file, plan(byPartition));
    const before = dataFiles(g.base);
    const r = await runJson<{ instant: string; files: number; failedFiles: number }>(['clean', 'run', '--path', g.base]);
    expect(r).toMatchObject({ instant: T, files: want.length, failedFiles: 0 });
    expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual(want);
    const m = decodeCleanMetadata(await (await (await openTable(g.base)).timeline()).read((await cleanInstants(g.base)).find((i) => i.state === 'COMPLETED')!), { path: 'c' });
    expect(Object.values(m.partitionMetadata).flatMap((p) => p.successDeleteFiles).sort()).toEqual(want.map((f) => f.slice(f.indexOf('/') + 1)).sort());
  });

  it('--max-duration stops the deletions; the clean stays pending and the next run completes its plan', async () => {
    const g = await table('COPY_ON_WRITE', 8, 6);
    const expected = predictClean(g.base, { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 });
    const r = await runCli(['cleans', 'run', '--path', g.base, '--policy', 'KEEP_LATEST_FILE_VERSIONS', '--file-versions-retained', '1', '--max-duration', '1ms']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('--max-duration');
    const pending = (await cleanInstants(g.base)).filter((i) => i.state !== 'COMPLETED');
    expect(pending.map((i) => i.state)).toEqual(['INFLIGHT']);
    const ok = await runJson<{ instant: string; cleans: { resumed: boolean }[] }>(['cleans', 'run', '--path', g.base, '--policy', 'KEEP_LATEST_FILE_VERSIONS', '--file-versions-retained', '1']);
    expect(ok.instant).toBe(pending[0]!.requestedTime);
    expect(ok.cleans[0]!.resumed).toBe(true);
    for (const f of expected.files) expect(existsSync(join(g.base, f))).toBe(false);
  });

  it('clean schedule, clean run --instant, clean scheduleAndExecute; cleans show and clean showpartitions show them', async () => {
    const g = await table('MERGE_ON_READ', 6);
    await g.compact();
    await g.update();
    await g.compact();
    const s = await runJson<{ scheduled: boolean; instant: string; files: number }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '1']);
    expect(s.scheduled).toBe(true);
    expect((await cleanInstants(g.base)).map((i) => i.state)).toEqual(['REQUESTED']);
    // a second plan is not made while one is pending
    const second = await runJson<{ scheduled: boolean; reason: string }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '1']);
    expect(second).toMatchObject({ scheduled: false });
    expect(second.reason).toContain(`clean ${s.instant} is pending`);
    const busy = await runCli(['clean', 'run', '--path', g.base, '--instant', '20000101000000000']);
    expect(busy.exitCode).toBe(1);
    expect(busy.stderr).toContain('not found');
    const r = await runJson<{ instant: string; files: number }>(['clean', 'run', '--path', g.base, '--instant', s.instant]);
    expect([r.instant, r.files]).toEqual([s.instant, s.files]);
    const done = await runCli(['clean', 'run', '--path', g.base, '--instant', s.instant]);
    expect(done.exitCode).toBe(0);

    await g.update();
    await g.compact();
    const se = await runJson<{ instant: string; files: number }>(['clean', 'scheduleAndExecute', '--path', g.base, '--commits-retained', '1']);
    expect(se.files).toBeGreaterThan(0);

    const shown = await runJson<{ cleanTime: string; earliestCommandRetained: string; totalFilesDeleted: number; totalTimeTaken: number }[]>(['cleans', 'show', '--path', g.base]);
    const tl = await (await openTable(g.base)).timeline();
    const cleans = tl.completed().filter((i) => i.action === 'clean').reverse();
    expect(shown.map((x) => x.cleanTime)).toEqual(cleans.map((i) => i.requestedTime));
    for (const [k, i] of cleans.entries()) {
      const m = decodeCleanMetadata(await tl.read(i), { path: 'c' });
      expect(shown[k]).toEqual({ cleanTime: i.requestedTime, earliestCommandRetained: m.earliestCommitToRetain, totalFilesDeleted: m.totalFilesDeleted, totalTimeTaken: m.timeTakenInMillis });
      const parts = await runJson<{ partitionPath: string; cleaningPolicy: string; totalFilesSuccessfullyDeleted: number; totalFailedDeletions: number }[]>(['clean', 'showpartitions', '--clean', i.requestedTime, '--path', g.base]);
      expect(parts.map((p) => p.partitionPath).sort()).toEqual(Object.keys(m.partitionMetadata).sort());
      for (const p of parts) {
        const pm = m.partitionMetadata[p.partitionPath]!;
        expect(p).toEqual({ partitionPath: p.partitionPath, cleaningPolicy: 'KEEP_LATEST_COMMITS', totalFilesSuccessfullyDeleted: pm.successDeleteFiles.length, totalFailedDeletions: pm.failedDeleteFiles.length });
      }
    }
  });

  it('LAZY failed-writes policy: an expired failed write is rolled back before the clean; a live one is left alone', async () => {
    const g = await table('MERGE_ON_READ', 8);
    const dead = await g.failedWrite();
    const alive = await g.failedWrite();
    mkdirSync(join(g.base, '.hoodie/.heartbeat'), { recursive: true });
    writeFileSync(join(g.base, '.hoodie/.heartbeat', alive.time), '');
    const r = await runJson<{ rolledBack: string[] }>(['cleans', 'run', '--path', g.base, '--hoodieConfigs', 'hoodie.write.concurrency.mode=optimistic_concurrency_control']);
    expect(r.rolledBack).toEqual([dead.time]);
    for (const f of dead.files) expect(existsSync(join(g.base, f))).toBe(false);
    for (const f of alive.files) expect(existsSync(join(g.base, f))).toBe(true);
    const tl = await (await openTable(g.base)).timeline();
    expect(tl.find(dead.time).filter((i) => i.action !== 'rollback')).toEqual([]);
    expect(tl.find(alive.time)[0]!.state).toBe('INFLIGHT');
    expect(tl.instants.some((i) => i.action === 'rollback' && i.state === 'COMPLETED')).toBe(true);
    // EAGER (the default) leaves failed writes to the next writer
    const e = await table('MERGE_ON_READ', 8);
    const f = await e.failedWrite();
    expect((await runJson<{ rolledBack: string[] }>(['cleans', 'run', '--path', e.base])).rolledBack).toEqual([]);
    expect((await (await openTable(e.base)).timeline()).find(f.time)[0]!.state).toBe('INFLIGHT');
  });
});
