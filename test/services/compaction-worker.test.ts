// The worker-thread path of `compaction run` (vitest runs sources, where 'auto' merges in-process):
// the worker bundled with esbuild, forced with fileGroupWorkers 'always', writes the same bytes as
// the in-process merge for the same plan.
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { bundleForTest } from '../support/bundle.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';

const ID = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
let workerUrl: URL;

beforeAll(async () => {
  workerUrl = (await bundleForTest('src/services/rewrite/worker.ts', 'compaction-worker.mjs', { packages: 'external' })).url;
});

/** A fresh table with a scheduled plan, copied: both copies run the same instant. */
async function twoScheduled(): Promise<[string, string]> {
  const a = tableFresh(ID);
  const s = await scheduleCompaction(await openTable(a), { clockSkewMs: 1, strategy: 'all' });
  expect(s.instant).toBeDefined();
  const b = mkdtempSync(join(tmpdir(), 'tblcli-worker-copy-'));
  cpSync(a, b, { recursive: true });
  return [a, b];
}

describe.skipIf(!HAVE_FIXTURES)('compaction run in worker threads', () => {
  it(`${ID}: same files, bytes and stats as the in-process merge`, async () => {
    const [a, b] = await twoScheduled();
    const w = await runCompaction(await openTable(a), { clockSkewMs: 1, fileGroupWorkers: 'always', workerUrl });
    const p = await runCompaction(await openTable(b), { clockSkewMs: 1, fileGroupWorkers: 'never' });
    expect(w.status).toBe('completed');
    expect(w.fileGroups).toBeGreaterThan(0);
    const strip = (r: typeof w) => r.writeStats.map((s) => ({ ...s, runtimeStats: null, totalLogReadTimeMs: 0 }));
    expect(strip(w)).toEqual(strip(p));
    for (const s of w.writeStats) expect(Buffer.compare(readFileSync(join(a, s.path!)), readFileSync(join(b, s.path!)))).toBe(0);
  });
});
