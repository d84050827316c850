// A compaction run that cannot succeed finds out before it writes anything (issue 13 §3): each input
// the run reads — the plan, the commit that carries the schema, a base file's footer, a log file, the
// table's properties — is corrupted in turn on a fresh copy of a real table, and the run must fail with
// one line naming the file while the table stays byte-identical (locks and heartbeats aside; with
// --metadata-table disable, not even the metadata table is dropped).
import { readdirSync, readFileSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';

const TABLES = ['quickstart_trips_table/mor/avro/v6_trips_8i1u', 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d'];
const OPTS = { clockSkewMs: 1, metadataTable: 'disable' as const };

interface Scheduled {
  base: string;
  instant: string;
  timelineDir: string;
  planFile: string;
  baseFile: string;
  logFile: string;
  /** the completed commit the table schema is read from (the newest) */
  schemaCommit: string;
}

async function scheduled(id: string): Promise<Scheduled> {
  const base = tableFresh(id);
  const s = await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
  const t = await openTable(base);
  const tl = await t.timeline();
  const op = s.plan!.operations!.find((o) => o.dataFilePath && (o.deltaFilePaths ?? []).length > 0)!;
  const dir = join(base, op.partitionPath ?? '');
  const newest = tl.completedCommits().at(-1)!;
  return {
    base,
    instant: s.instant!,
    timelineDir: t.timelineSource.timelineDir,
    planFile: join(t.timelineSource.timelineDir, readdirSync(t.timelineSource.timelineDir).find((n) => n === `${s.instant}.compaction.requested`)!),
    baseFile: join(dir, op.dataFilePath!),
    logFile: join(dir, op.deltaFilePaths![0]!),
    schemaCommit: newest.files.COMPLETED!.path,
  };
}

const CORRUPTIONS: [string, (s: Scheduled) => string][] = [
  ['the plan holds garbage', (s) => (writeFileSync(s.planFile, 'not an avro container'), s.planFile)],
  ['the newest completed commit (the schema source) holds garbage', (s) => (writeFileSync(s.schemaCommit, '{"partitionToWriteStats": '), s.schemaCommit)],
  ['a base file lost its footer', (s) => (truncateSync(s.baseFile, statSync(s.baseFile).size - 64), s.baseFile)],
  ['a log file of the plan is gone', (s) => (rmSync(s.logFile), s.logFile)],
  ['hoodie.properties lost its table name', (s) => {
    const p = join(s.base, '.hoodie', 'hoodie.properties');
    writeFileSync(p, readFileSync(p, 'utf8').replace(/^hoodie\.table\.name=.*$/m, ''));
    return p;
  }],
];

describe.skipIf(!HAVE_FIXTURES)('compaction run: a corrupt input leaves the table byte-identical', () => {
  for (const id of TABLES) {
    it.each(CORRUPTIONS.map(([name, f]) => [name, f] as const))(`${id}: %s`, async (_name, corrupt) => {
      const s = await scheduled(id);
      const file = corrupt(s);
      const before = treeDigest(s.base, LOCKS_AND_HEARTBEATS);
      const e = await (async () => runCompaction(await openTable(s.base), { ...OPTS, instant: s.instant }))().then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, 'the run should fail').toBeInstanceOf(TblError);
      const err = e as TblError;
      expect(err.message).not.toContain('\n');
      expect(`${err.message} ${err.path ?? ''}`).toContain(file);
      expect(treeDigest(s.base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    });
  }
});
