// `trigger archival --minCommits 2 --maxCommits 3 --commitsRetainedByCleaner 1` on every real Hudi table of
// the fixtures (0.14/0.15 and 1.x writers; metadata tables with and without compactions, replacecommits,
// indexing, rollbacks): the archived set is what Hudi's rules give (independent statement, including the
// real metadata table's latest compaction), the archive reads back through our reader and independently
// (avsc on the raw v1 blocks, DuckDB on the LSM files) with the instant files' content, and
// `commits show --includeArchivedTimeline` equals `commits show` before.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { loadArchivedTimeline } from '../../src/archive/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, allTableIds, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { COMPARABLE, checkV1Record, completedOf, parseArchiveLog, timelineFiles } from './support/archive-check.ts';
import { oracleArchive, readTimelineDir } from './support/archival-oracle.ts';
import { readdirSync } from 'node:fs';

const storage = new LocalStorage();
let duck: Promise<DuckDBConnection> | undefined;
afterAll(async () => {
  if (duck) (await duck).closeSync();
});

const SMALL = ['--minCommits', '2', '--maxCommits', '3', '--commitsRetainedByCleaner', '1'];

describe.skipIf(!HAVE_FIXTURES)('trigger archival on the real Hudi tables', () => {
  let archivedSomewhere = 0;
  let mdtBound = 0;
  for (const id of HAVE_FIXTURES ? allTableIds() : []) {
    it(id, async () => {
      const base = tableFresh(id);
      const t = await openTable(base);
      const layout = t.config.layoutVersion;
      const dir = t.timelineSource.timelineDir;
      const all = readTimelineDir(dir, layout);
      let mdtCompaction: string | null | undefined;
      if (t.config.metadataPartitions.includes('files')) {
        const mdtDir = layout === 2 ? join(base, '.hoodie/metadata/.hoodie/timeline') : join(base, '.hoodie/metadata/.hoodie');
        mdtCompaction = readTimelineDir(mdtDir, layout).filter((i) => i.completed && (i.action === 'commit' || i.action === 'replacecommit')).at(-1)?.t ?? null;
      }
      const expected = oracleArchive(all, { version: t.config.version, mor: t.config.type === 'MERGE_ON_READ', min: 2, max: 3, retained: 1, mdtCompaction });
      const before = timelineFiles(dir, layout);
      const show = await runJson<unknown[]>(['commits', 'show', '--path', base]);

      const r = await runCli(['trigger', 'archival', '--path', base, ...SMALL, '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { instants: { instant: string; action: string }[] };
      expect(out.instants.map((x) => `${x.instant}|${x.action}`).sort()).toEqual([...expected].sort());
      if (expected.size > 0) archivedSomewhere++;
      // the metadata table's bound held instants back that the other rules would archive
      if (oracleArchive(all, { version: t.config.version, mor: t.config.type === 'MERGE_ON_READ', min: 2, max: 3, retained: 1 }).size > expected.size) mdtBound++;

      const archiveDir = layout === 1 ? join(base, '.hoodie', t.config.archiveFolder) : join(dir, t.config.historyPath);
      const ours = await loadArchivedTimeline(storage, base, { layout, archiveDir });
      const archivedGroups = [...before.entries()].filter(([, files]) => {
        const c = completedOf(files);
        return c !== undefined && expected.has(`${c.t}|${c.action}`);
      });
      if (layout === 1) {
        const want = archivedGroups.flatMap(([, files]) => files.map((f) => `${f.t}|${f.action}|${f.state}`)).sort();
        expect(ours.map((a) => `${a.requestedTime}|${a.action}|${a.state}`).sort()).toEqual(want);
        if (expected.size > 0) {
          const records = readdirSync(archiveDir)
            .filter((f) => f.startsWith('.commits_.archive.'))
            .flatMap((f) => parseArchiveLog(readFileSync(join(archiveDir, f))).flatMap((b) => b.records));
          expect(records.map((x) => `${x.commitTime}|${x.actionType}|${x.actionState}`).sort()).toEqual(want);
          for (const rec of records) {
            const files = before.get(`${rec.commitTime}|${COMPARABLE[String(rec.actionType)] ?? rec.actionType}`)!;
            checkV1Record(rec, files.find((f) => f.state === rec.actionState)!, files);
          }
        }
      } else {
        expect(ours.map((a) => `${a.requestedTime}|${a.action}`).sort()).toEqual([...expected].sort());
        if (expected.size > 0) {
          duck ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
          const manifest = JSON.parse(readFileSync(join(archiveDir, `manifest_${readFileSync(join(archiveDir, '_version_'), 'utf8')}`), 'utf8')) as { files: { fileName: string }[] };
          for (const f of manifest.files) {
            const rows = (await (await duck).runAndReadAll(`SELECT instantTime, action, completionTime, hex(metadata) FROM read_parquet('${join(archiveDir, f.fileName)}')`)).getRows();
            for (const [rt, action, ct, hex] of rows) {
              const c = completedOf(before.get(`${rt}|${COMPARABLE[String(action)] ?? action}`)!)!;
              expect(ct).toBe(c.ct);
              expect(hex).toBe(c.bytes.length ? c.bytes.toString('hex').toUpperCase() : null);
            }
          }
        }
      }
      expect(await runJson<unknown[]>(['commits', 'show', '--path', base, '--includeArchivedTimeline'])).toEqual(show);
    }, 60_000);
  }
  it('the sweep archived something and met the metadata-table bound', () => {
    expect(archivedSomewhere).toBeGreaterThan(10);
    expect(mdtBound).toBeGreaterThan(0);
  });
});
