// Name-only trees (zero-byte files) for the slicing rules the fixtures do not cover: pending compaction,
// uncommitted files, log-only groups, CDC logs, the merged view.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { buildFileSystemView, listPartitions, type ViewTimeline } from '../../src/fs-view/index.ts';

const storage = new LocalStorage();
function tree(files: string[]): string {
  const base = mkdtempSync(join(tmpdir(), 'tblcli-view-'));
  mkdirSync(join(base, '.hoodie'));
  for (const f of files) {
    const p = join(base, f);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, '');
  }
  return base;
}
function timeline(t: Partial<ViewTimeline> & { layout: 1 | 2 }): ViewTimeline {
  const completed = t.completedInstants ?? [];
  return {
    completedInstants: completed,
    completionTimeOf: (r) => completed.find((i) => i.requestedTime === r)?.completionTime,
    replacedFileGroups: [],
    pendingCompactions: [],
    ...t,
  };
}
const FG = 'f1-0';

describe('file slicing rules on stub trees', () => {
  it('layout 1: pending compaction starts an empty slice; later logs join it; merged view folds them back', async () => {
    const base = tree([
      'p/.hoodie_partition_metadata',
      `p/${FG}_0-1-1_100.parquet`,
      `p/.${FG}_100.log.1_0-1-1`,
      `p/${FG}_0-2-2_300.parquet`, // output of the still-pending compaction: not visible
      `p/.${FG}_300.log.1_0-3-3`,
    ]);
    const tl = timeline({
      layout: 1,
      completedInstants: [{ requestedTime: '100', action: 'commit' }, { requestedTime: '200', action: 'deltacommit' }, { requestedTime: '400', action: 'deltacommit' }],
      pendingCompactions: [{ instant: '300', operations: [{ partitionPath: 'p', fileId: FG, baseInstantTime: '100' }] }],
    });
    const v = await buildFileSystemView(storage, base, tl);
    const latest = v.latestFileSlices('p')[0]!;
    expect([latest.baseInstant, latest.baseFile, latest.pendingCompaction, latest.logFiles.map((l) => l.name)]).toEqual(['300', undefined, true, [`.${FG}_300.log.1_0-3-3`]]);
    expect(v.excludedFiles()).toEqual([{ partition: 'p', name: `${FG}_0-2-2_300.parquet`, reason: 'pending-compaction-output', instant: '300' }]);
    const merged = v.latestMergedFileSlices('p')[0]!;
    expect([merged.baseInstant, merged.baseFile?.name, merged.logFiles.map((l) => l.name)]).toEqual(['100', `${FG}_0-1-1_100.parquet`, [`.${FG}_100.log.1_0-1-1`, `.${FG}_300.log.1_0-3-3`]]);
    expect(v.pendingCompactionInstant('p', FG)).toBe('300');
  });

  it('layout 2: a log joins the slice with the largest base instant ≤ its completion time; uncommitted logs are dropped', async () => {
    const base = tree([
      'p/.hoodie_partition_metadata',
      `p/${FG}_0-1-1_100.parquet`,
      `p/.${FG}_200.log.1_0-1-1`, // requested 200, completed 260 (before compaction 250? no: after) → new slice
      `p/.${FG}_210.log.1_0-1-1`, // completed 240 < 250 → old slice
      `p/${FG}_0-2-2_250.parquet`,
      `p/.${FG}_270.log.1_0-1-1`, // never completed
    ]);
    const tl = timeline({
      layout: 2,
      completedInstants: [
        { requestedTime: '100', action: 'commit', completionTime: '110' },
        { requestedTime: '200', action: 'deltacommit', completionTime: '260' },
        { requestedTime: '210', action: 'deltacommit', completionTime: '240' },
        { requestedTime: '250', action: 'commit', completionTime: '255' },
      ],
    });
    const v = await buildFileSystemView(storage, base, tl);
    const slices = v.allFileGroups('p')[0]!.slices;
    expect(slices.map((s) => [s.baseInstant, s.logFiles.map((l) => l.instant)])).toEqual([['100', ['210']], ['250', ['200']]]);
    expect(v.excludedFiles().map((e) => [e.name, e.reason])).toEqual([[`.${FG}_270.log.1_0-1-1`, 'uncommitted']]);
    const withInflight = await buildFileSystemView(storage, base, tl, { includeInflight: true });
    expect(withInflight.latestFileSlices('p')[0]!.logFiles.map((l) => l.instant)).toEqual(['200', '270']);
    // as of 249 (a requested-time bound, like hudi-rs): deltacommit 200 is ≤ 249 and complete, so it is visible
    const asOf = await buildFileSystemView(storage, base, tl, { maxInstant: '249' });
    expect(asOf.latestFileSlices('p')[0]!.baseInstant).toBe('100');
    expect(asOf.latestFileSlices('p')[0]!.logFiles.map((l) => l.instant)).toEqual(['210', '200']); // completion-time order
  });

  it('failed base files are excluded; log-only file groups form a slice at their first instant; CDC logs kept apart', async () => {
    const base = tree([
      'p/.hoodie_partition_metadata',
      `p/${FG}_0-1-1_100.parquet`,
      `p/${FG}_0-1-2_150.parquet`, // failed commit 150
      `p/.g2-0_300.log.1_0-1-1`,
      `p/.g2-0_300.log.1_0-1-1-cdc`,
    ]);
    const tl = timeline({ layout: 1, completedInstants: [{ requestedTime: '100', action: 'commit' }, { requestedTime: '300', action: 'deltacommit' }] });
    const v = await buildFileSystemView(storage, base, tl);
    expect(v.latestFileSlices('p').map((s) => [s.fileId, s.baseInstant, s.baseFile?.instant, s.logFiles.length, s.cdcLogFiles.length])).toEqual([
      [FG, '100', '100', 0, 0],
      ['g2-0', '300', undefined, 1, 1],
    ]);
    expect(v.excludedFiles()).toEqual([{ partition: 'p', name: `${FG}_0-1-2_150.parquet`, reason: 'uncommitted', instant: '150' }]);
    expect(v.isCommitted('150')).toBe(false);
    expect(v.isCommitted('050')).toBe(true); // older than the active timeline: archived, counts as committed
  });

  it('replaced file groups vanish once the replacecommit is complete, not before', async () => {
    const base = tree(['p/.hoodie_partition_metadata', `p/${FG}_0-1-1_100.parquet`, 'p/g2-0_0-1-1_200.parquet']);
    const tl = timeline({
      layout: 1,
      completedInstants: [{ requestedTime: '100', action: 'commit' }, { requestedTime: '200', action: 'replacecommit' }],
      replacedFileGroups: [{ partition: 'p', fileId: FG, byInstant: '200' }],
    });
    expect((await buildFileSystemView(storage, base, tl)).latestFileSlices().map((s) => s.fileId)).toEqual(['g2-0']);
    expect((await buildFileSystemView(storage, base, tl, { maxInstant: '150' })).latestFileSlices().map((s) => s.fileId)).toEqual([FG]);
    expect((await buildFileSystemView(storage, base, tl, { maxInstant: '200', includeMax: false })).latestFileSlices().map((s) => s.fileId)).toEqual([FG]);
  });

  it('listPartitions walks nested levels, skips hidden dirs and __MACOSX, finds a partition-less root', async () => {
    const base = tree([
      '2023/04/01/12/.hoodie_partition_metadata',
      '2023/04/02/00/.hoodie_partition_metadata.parquet',
      '__MACOSX/x/.hoodie_partition_metadata',
      '.hidden/.hoodie_partition_metadata',
      '.hoodie/metadata/files/.hoodie_partition_metadata',
    ]);
    expect((await listPartitions(storage, base)).map((p) => p.partition)).toEqual(['2023/04/01/12', '2023/04/02/00']);
    const flat = tree([`${FG}_0-1-1_100.parquet`]);
    expect((await listPartitions(storage, flat)).map((p) => p.partition)).toEqual(['']);
  });
});
