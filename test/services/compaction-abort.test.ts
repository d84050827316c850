// When one file group of a compaction fails, the others must not write after the attempt is given
// back (rolled back): no base file or marker of the instant may appear afterwards, and the next run
// completes the same plan.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTable } from '../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { decodeCompactionPlan, encodeCompactionPlan } from '../../src/metadata/index.ts';
import { runCli } from '../support/run-cli.ts';

describe('compaction abort', () => {
  it('a failing file group stops the others before they write; the plan survives and the next run completes it', async () => {
    const t = join(mkdtempSync(join(tmpdir(), 'abort-')), 'orders');
    expect((await runCli(['demo', t, '--table-version', '8'])).exitCode).toBe(0);
    const s = await scheduleCompaction(await openTable(t), { clockSkewMs: 1, strategy: 'all' });
    expect(s.instant).toBeDefined();
    const instant = s.instant!;
    // put a file group whose base file is missing in front of the real one: it fails at once while
    // the real one is still merging
    const planPath = join(t, '.hoodie', 'timeline', `${instant}.compaction.requested`);
    const plan = decodeCompactionPlan(readFileSync(planPath), { path: planPath });
    const real = plan.operations![0]!;
    const bogus = { ...real, fileId: 'ffffffff-0000-0000-0000-000000000000-0', dataFilePath: `ffffffff-0000-0000-0000-000000000000-0_0-1-1_${real.baseInstantTime}.parquet`, deltaFilePaths: [] };
    writeFileSync(planPath, encodeCompactionPlan({ ...plan, operations: [bogus, real] }));

    await expect(runCompaction(await openTable(t), { instant, clockSkewMs: 1, parallelism: 2, fileGroupWorkers: 'never' })).rejects.toThrow(/no such file/);
    const dir = join(t, real.partitionPath!);
    expect(readdirSync(dir).filter((n) => n.endsWith(`_${instant}.parquet`))).toEqual([]);
    expect(existsSync(join(t, '.hoodie', '.temp', instant))).toBe(false);
    const timeline = readdirSync(join(t, '.hoodie', 'timeline'));
    expect(timeline).toContain(`${instant}.compaction.requested`);
    expect(timeline).not.toContain(`${instant}.compaction.inflight`);

    // drop the bogus operation again: the same instant completes
    writeFileSync(planPath, encodeCompactionPlan({ ...plan, operations: [real] }));
    const r = await runCompaction(await openTable(t), { instant, clockSkewMs: 1, fileGroupWorkers: 'never' });
    expect(r.status).toBe('completed');
    expect(r.instant).toBe(instant);
    expect(readdirSync(dir).filter((n) => n.endsWith(`_${instant}.parquet`))).toHaveLength(1);
  });
});
