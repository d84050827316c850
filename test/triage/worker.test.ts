// The built scan lists a large local table on a worker thread while it reads the write stats: its
// results are exactly those of the one-thread scan (sources), on a table with findings of every kind.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, testBuildRoot } from '../support/bundle.ts';
import { setAllMtimes, zooTable } from './zoo.ts';
import { triageAll } from './worker-driver.ts';

const NOW = new Date('2026-01-01T12:00:00Z');

describe.each([6, 8] as const)('listing on a worker thread (zoo table v%i, 70 more partitions)', (version) => {
  it('same collisions, orphans, doctor report and metrics as listing in one thread', async () => {
    const dir = await zooTable(version, NOW);
    // enough top-level entries for the scan to start a worker
    for (let p = 0; p < 70; p++) {
      const part = join(dir, `region=x${String(p).padStart(2, '0')}`);
      mkdirSync(part);
      writeFileSync(join(part, '.hoodie_partition_metadata'), 'commitTime=20250101000000000\npartitionDepth=1\n');
      if (p % 10 === 0) writeFileSync(join(part, `stray-${p}.txt`), 'x');
    }
    setAllMtimes(dir, new Date(NOW.getTime() - 5_000));
    mkdirSync(testBuildRoot(), { recursive: true });
    const out = mkdtempSync(join(testBuildRoot(), 'triage-worker-'));
    await build({
      entryPoints: { driver: join(ROOT, 'test/triage/worker-driver.ts'), 'triage-worker': join(ROOT, 'src/triage/listing-worker.ts') },
      outdir: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      packages: 'external',
    });
    const r = spawnSync(process.execPath, [join(out, 'driver.js'), '--run', dir, NOW.toISOString()], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(r.status, r.stderr).toBe(0);
    const built = JSON.parse(r.stdout) as { listedOn: string; out: unknown };
    const here = await triageAll(dir, NOW);
    expect(built.listedOn).toBe('worker');
    expect(here.listedOn).toBe('main');
    expect(built.out).toEqual(JSON.parse(JSON.stringify(here.out)));
    expect((here.out as { orphans: unknown[] }).orphans.length).toBeGreaterThan(5);
  }, 120_000);
});
