// Collision cases built on the demo table with the project's own writers, each asserting the exact finding.
import { describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { encodeCommitMetadataAvro } from '../../src/metadata/index.ts';
import { formatInstantTime } from '../../src/util/index.ts';
import { findCollisions } from '../../src/triage/index.ts';
import { parseDuration } from '../../src/util/index.ts';
import { demoTable, scanOf, storage, viewOf } from './support.ts';

describe('collision cases', () => {
  it('two base files of one file group with the same instant and different write tokens', async () => {
    const { dir } = await demoTable(8);
    const part = join(dir, 'region=apac');
    const c = readdirSync(part).find((n) => n.endsWith('.parquet') && n.includes('_2-'))!;
    const [fileId, , rest] = c.split('_') as [string, string, string];
    const retried = `${fileId}_2-99-7_${rest}`;
    copyFileSync(join(part, c), join(part, retried));
    const f = (await findCollisions(await scanOf(dir))).filter((x) => x.kind === 'duplicate-write-token');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'warning', partition: 'region=apac', fileId, instants: [rest.split('.')[0]], files: [c, retried].map((n) => `region=apac/${n}`).sort() });
    expect(f[0]!.evidence).toContain(`the instant's write stats name ${c}`);
  });

  it('--bucket-index on a table of UUID fileIds: every live file group lacks the bucket prefix', async () => {
    const { dir } = await demoTable(6);
    const scan = await scanOf(dir);
    expect((await findCollisions(scan)).some((x) => x.kind.startsWith('bucket'))).toBe(false); // not inferred
    const f = (await findCollisions(scan, { bucketIndex: 4 })).filter((x) => x.kind === 'bucket-missing-prefix');
    expect(f.map((x) => `${x.partition}/${x.fileId}`).sort()).toEqual((await viewOf(dir)).allFileGroups().map((g) => `${g.partition}/${g.fileId}`).sort());
    expect(f[0]!.meaning).toContain('NumberFormatException');
  });

  it('a commit writing a base file into a file group held by a pending compaction plan', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(8, now);
    const plan = demo.problems.find((p) => p.kind === 'pending-compaction')!;
    const part = join(dir, plan.partition!);
    const base = readdirSync(part).find((n) => n.startsWith(plan.fileId!) && n.endsWith('.parquet'))!;
    const rt = formatInstantTime(new Date(now.getTime() - 60_000), 'LOCAL');
    const ct = formatInstantTime(new Date(now.getTime() - 58_000), 'LOCAL');
    const name = `${plan.fileId}_0-5-5_${rt}.parquet`;
    copyFileSync(join(part, base), join(part, name));
    const m = encodeCommitMetadataAvro({
      partitionToWriteStats: { [plan.partition!]: [{ fileId: plan.fileId!, path: `${plan.partition}/${name}`, prevCommit: base.split('_')[2]!.split('.')[0]!, partitionPath: plan.partition!, numWrites: 1, numDeletes: 0, numUpdateWrites: 1, numInserts: 0, totalWriteBytes: 1, totalWriteErrors: 0, totalLogRecords: 0, totalLogFilesCompacted: 0, totalLogSizeCompacted: 0, totalUpdatedRecordsCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0, totalRollbackBlocks: 0, fileSizeInBytes: 1 }] },
      compacted: false,
      extraMetadata: {},
      operationType: 'UPSERT',
    });
    const tl = join(dir, '.hoodie', 'timeline');
    await storage.writeNew(join(tl, `${rt}.commit.requested`), new Uint8Array(0));
    await storage.writeNew(join(tl, `${rt}.commit.inflight`), new Uint8Array(0));
    await storage.writeNew(join(tl, `${rt}_${ct}.commit`), m);
    const f = (await findCollisions(await scanOf(dir, now))).filter((x) => x.kind === 'write-under-pending-plan');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'error', partition: plan.partition, fileId: plan.fileId, instants: [plan.instants![0], rt].sort(), files: [`${plan.partition}/${name}`] });
    expect(f[0]!.nextStep).toContain('Pause async compaction');
  });

  it('parses --older-than durations', () => {
    expect([parseDuration('1h'), parseDuration('30m'), parseDuration('90s'), parseDuration('2d'), parseDuration('0')]).toEqual([3_600_000, 1_800_000, 90_000, 172_800_000, 0]);
    expect(() => parseDuration('soon')).toThrow(/duration/);
  });
});
