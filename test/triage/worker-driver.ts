// Runs every triage check on one table with a fixed clock and prints the results as JSON (worker.test.ts
// runs it bundled, where the listing goes to a worker thread, and from sources, where it does not).
import { openTable } from '../../src/table/index.ts';
import { doctor, findCollisions, findOrphans, scanTable, tableMetrics } from '../../src/triage/index.ts';

export async function triageAll(dir: string, now: Date): Promise<{ listedOn: string; out: unknown }> {
  const scan = await scanTable(await openTable(dir), { now });
  const report = await doctor(scan, {});
  return {
    listedOn: scan.listedOn,
    out: {
      collisions: await findCollisions(scan),
      bucket: await findCollisions(scan, { bucketIndex: 4 }),
      orphans: findOrphans(scan),
      orphans1s: findOrphans(scan, { olderThanMs: 1000 }),
      doctor: report,
      metrics: tableMetrics(scan, report),
      warnings: scan.warnings,
    },
  };
}

if (process.argv[2] === '--run') {
  const r = await triageAll(process.argv[3]!, new Date(process.argv[4]!));
  process.stdout.write(JSON.stringify(r));
}
