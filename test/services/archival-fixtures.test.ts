// `trigger archival --minCommits 2 --maxCommits 3 --commitsRetainedByCleaner 1` on every real Hudi table of
// the fixtures (0.14/0.15 and 1.x writers; metadata tables with and without compactions, replacecommits,
// indexing, rollbacks): the archived set is what Hudi's rules give (independent statement, including the
// real metadata table's latest compaction), the archive reads back through our reader and independently
// (avsc on the raw v1 blocks, DuckDB on the LSM files) with the instant files' content, and
// `commits show --includeArchivedTimeline` equals `commits show` before. The metadata table's own
// timeline: archived as Hudi's rules give it, `commits show` over it and `metadata validate-files` unchanged.
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
import { mdtOracleInput, oracleArchive, readTimelineDir } from './support/archival-oracle.ts';
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
  let mdtArchived = 0;
  for (const id of HAVE_FIXTURES ? allTableIds() : []) {
    it(id, async () => {
      const base = tableFresh(id);
      const t = await openTable(base);
      const layout = t.config.layoutVersion;
      const dir = t.timelineSource.timelineDir;
      const all = readTimelineDir(dir, layout);
      let mdtCompaction: string | null | undefined;
      const hasMdt = t.config.metadataPartitions.includes('files');
      const mdt = join(base, '.hoodie', 'metadata');
      const mdtDir = layout === 2 ? join(mdt, '.hoodie/timeline') : join(mdt, '.hoodie');
      if (hasMdt) mdtCompaction = readTimelineDir(mdtDir, layout).filter((i) => i.completed && (i.action === 'commit' || i.action === 'replacecommit')).at(-1)?.t ?? null;
      const expected = oracleArchive(all, { version: t.config.version, mor: t.config.type === 'MERGE_ON_READ', min: 2, max: 3, retained: 1, mdtCompaction });
      const before = timelineFiles(dir, layout);
      const show = await runJson<unknown[]>(['commits', 'show', '--path', base]);
      // the metadata table: its own rules (Hudi's writer derives its settings from the data table's), and
      // what its readers see before
      const mdtDeltaMax = Number(t.config.props.get('hoodie.metadata.compact.max.delta.commits') ?? 10);
      const mdtExpected = hasMdt ? oracleArchive(readTimelineDir(mdtDir, layout), mdtOracleInput({ version: t.config.version, min: 2, max: 3, retained: 1 }, all.filter((i) => !expected.has(`${i.t}|${i.action}`)), mdtDeltaMax)) : new Set<string>();
      const mdtShow = hasMdt ? await runJson<unknown[]>(['commits', 'show', '--path', mdt]) : [];
      const validate = hasMdt ? await runCli(['metadata', 'validate-files', '--path', base, '--json']) : undefined;

      const r = await runCli(['trigger', 'archival', '--path', base, ...SMALL, '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { instants: { instant: string; action: string }[]; metadataTable: { instants: { instant: string; action: string }[] } | null };
      expect(out.instants.map((x) => `${x.instant}|${x.action}`).sort()).toEqual([...expected].sort());
      expect(out.metadataTable === null).toBe(!hasMdt);
      if (hasMdt) {
        expect(out.metadataTable!.instants.map((x) => `${x.instant}|${x.action}`).sort()).toEqual([...mdtExpected].sort());
        if (mdtExpected.size > 0) mdtArchived++;
        expect(await runJson<unknown[]>(['commits', 'show', '--path', mdt, '--includeArchivedTimeline'])).toEqual(mdtShow);
        // the metadata table reads the same after both archivals
        const after = await runCli(['metadata', 'validate-files', '--path', base, '--json']);
        expect([after.exitCode, after.stdout]).toEqual([validate!.exitCode, validate!.stdout]);
      }
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
  it('the sweep archived something, met the metadata-table bound, and archived real metadata tables', () => {
    expect(archivedSomewhere).toBeGreaterThan(10);
    expect(mdtBound).toBeGreaterThan(0);
    // real metadata tables whose own timeline had something to archive (10 of the fixtures' at the time of writing)
    expect(mdtArchived).toBeGreaterThan(5);
  });
});
