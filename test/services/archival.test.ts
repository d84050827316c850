// `trigger archival` on generated 200-commit tables (COW and MOR; table versions 6, 8, 9; cleans,
// rollbacks, compactions or clusterings, a savepoint and a pending compaction/clustering): the active
// timeline keeps exactly what Hudi's rules keep (independent statement: support/archival-oracle.ts), the
// archive holds every archived instant state with the same metadata — read back by our readers, and
// independently (v1: the log framing parsed here and each record decoded with avsc; v2: DuckDB over the
// parquet files the manifest lists) — and `commits show --includeArchivedTimeline` afterwards equals
// `commits show` before.
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { loadArchivedTimeline } from '../../src/archive/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { mdtOracleInput, oracleArchive, readTimelineDir } from './support/archival-oracle.ts';
import { writeArchivalTable, type ArchivalTableOptions } from './support/archival-table.ts';
import { COMPARABLE, checkV1Record, completedOf, parseArchiveLog, timelineFiles, type StateFile } from './support/archive-check.ts';

const storage = new LocalStorage();

let duck: Promise<DuckDBConnection> | undefined;
async function duckRows(path: string): Promise<Record<string, string | null>[]> {
  duck ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  const r = await (await duck).runAndReadAll(
    `SELECT instantTime, completionTime, action, hex(metadata) AS metadata, hex(plan) AS plan, version
       FROM read_parquet('${path.replaceAll("'", "''")}', file_row_number = true) ORDER BY file_row_number`,
  );
  return r.getRowObjects().map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? null : String(v)])));
}
afterAll(async () => {
  if (duck) (await duck).closeSync();
});

/** The LSM `plan` column: the clean / compaction plan, a clustering's requested file (or its non-empty inflight). */
function expectedPlan(files: StateFile[]): Buffer | null {
  const req = files.find((f) => f.state === 'REQUESTED');
  const inf = files.find((f) => f.state === 'INFLIGHT');
  const pendingAction = (req ?? inf)?.action;
  if (pendingAction === 'clean') return (req ?? inf)!.bytes.length ? (req ?? inf)!.bytes : null;
  if (pendingAction === 'compaction') return req?.bytes.length ? req.bytes : null;
  if (pendingAction === 'clustering' || pendingAction === 'replacecommit') return inf?.bytes.length ? inf.bytes : req?.bytes.length ? req.bytes : null;
  return null;
}

// ---------------------------------------------------------------- the scenarios

const SCENARIOS: [string, ArchivalTableOptions][] = [
  ['MOR v6', { tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, savepointAt: 150, pendingAfter: 172 }],
  ['COW v6', { tableType: 'COPY_ON_WRITE', version: 6, cleanEvery: 10, rollbackEvery: 37, clusterAfter: [40, 95], savepointAt: 160, pendingAfter: 150 }],
  ['MOR v8', { tableType: 'MERGE_ON_READ', version: 8, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, savepointAt: 150, pendingAfter: 172 }],
  ['COW v9', { tableType: 'COPY_ON_WRITE', version: 9, cleanEvery: 10, rollbackEvery: 37, clusterAfter: [40, 95], savepointAt: 160, pendingAfter: 150 }],
];

function tlDir(base: string, version: number): string {
  return version >= 8 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
}

/**
 * One table's timeline after the run (the data table's, or its metadata table's at `<base>/.hoodie/metadata`):
 * exactly the `expected` instants left the active timeline, the rest untouched; the archive holds every
 * archived state (layout 1) / instant (layout 2), once, with the same metadata — by our reader, and
 * without it (the v1 framing parsed here and decoded with avsc; v2 with DuckDB).
 */
async function verifyArchived(tableBase: string, layout: 1 | 2, before: Map<string, StateFile[]>, expected: Set<string>): Promise<void> {
  const dir = layout === 2 ? join(tableBase, '.hoodie', 'timeline') : join(tableBase, '.hoodie');
  const after = timelineFiles(dir, layout);
  const archivedKeys = new Set<string>();
  for (const [key, files] of before) {
    const c = completedOf(files);
    const archived = c !== undefined && expected.has(`${c.t}|${c.action}`);
    if (archived) {
      archivedKeys.add(key);
      expect(after.has(key), key).toBe(false);
    } else {
      expect(after.get(key)?.map((f) => [f.name, f.bytes.toString('hex')]), key).toEqual(files.map((f) => [f.name, f.bytes.toString('hex')]));
    }
  }
  expect(archivedKeys.size).toBe(expected.size);
  expect([...after.keys()].every((k) => before.has(k))).toBe(true);

  // our reader: every archived state (layout 1) / instant (layout 2), once
  const archiveDir = layout === 1 ? join(tableBase, '.hoodie', 'archived') : join(dir, 'history');
  const ours = await loadArchivedTimeline(storage, tableBase, { layout, archiveDir });
  const wantStates = [...archivedKeys].flatMap((k) => before.get(k)!.map((f) => `${f.t}|${f.action}|${f.state}`));
  if (layout === 1) expect(ours.map((a) => `${a.requestedTime}|${a.action}|${a.state}`).sort()).toEqual(wantStates.sort());
  else expect(ours.map((a) => `${a.requestedTime}|${a.action}`).sort()).toEqual([...expected].sort());

  // independently of our readers
  if (layout === 1) {
    const files = readdirSync(archiveDir);
    expect(files).toEqual(['.commits_.archive.1_1-0-1']);
    const blocks = parseArchiveLog(readFileSync(join(archiveDir, files[0]!)));
    expect(blocks.every((b) => [...b.header.keys()].join() === '2' && b.records.length <= 10)).toBe(true);
    const records = blocks.flatMap((b) => b.records);
    expect(records.map((x) => `${x.commitTime}|${x.actionType}|${x.actionState}`).sort()).toEqual(wantStates.sort());
    for (const rec of records) {
      const key = `${rec.commitTime}|${COMPARABLE[String(rec.actionType)] ?? rec.actionType}`;
      const files = before.get(key)!;
      checkV1Record(rec, files.find((f) => f.state === rec.actionState)!, files);
    }
  } else {
    const version = readFileSync(join(archiveDir, '_version_'), 'utf8');
    expect(version).toBe('1');
    const manifest = JSON.parse(readFileSync(join(archiveDir, `manifest_${version}`), 'utf8')) as { files: { fileName: string; fileLen: number }[] };
    expect(readFileSync(join(archiveDir, `manifest_${version}`), 'utf8')).toMatch(/^\{\n {2}"files" : \[ \{\n {4}"fileName" : "/);
    expect(manifest.files).toHaveLength(1);
    const rows = (await Promise.all(manifest.files.map((f) => duckRows(join(archiveDir, f.fileName))))).flat();
    const sorted = [...expected].sort();
    expect(manifest.files[0]!.fileName).toBe(`${sorted[0]!.split('|')[0]}_${sorted.at(-1)!.split('|')[0]}_0.parquet`);
    expect(manifest.files[0]!.fileLen).toBe(readFileSync(join(archiveDir, manifest.files[0]!.fileName)).length);
    expect(rows.map((x) => `${x.instantTime}|${x.action}`)).toEqual(sorted);
    for (const row of rows) {
      const key = `${row.instantTime}|${COMPARABLE[row.action!] ?? row.action}`;
      const files = before.get(key)!;
      const c = completedOf(files)!;
      expect(row.completionTime).toBe(c.ct);
      expect(row.metadata).toBe(c.bytes.toString('hex').toUpperCase());
      expect(row.plan).toBe(expectedPlan(files)?.toString('hex').toUpperCase() ?? null);
      expect(row.version).toBe('1');
    }
    // Avro-parquet as Hudi's writer leaves it: the footer carries the HoodieLSMTimelineInstant schema
    const kv = await (await duck!).runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${join(archiveDir, manifest.files[0]!.fileName)}')`);
    const footer = new Map(kv.getRowObjects().map((o) => [String(o.k), String(o.v)]));
    expect(JSON.parse(footer.get('parquet.avro.schema')!).name).toBe('HoodieLSMTimelineInstant');
    expect(footer.has('hoodie_min_record_key')).toBe(false);
  }
}

describe('trigger archival on 200-commit tables', () => {
  for (const [name, opts] of SCENARIOS) {
    it(`${name}: keeps what Hudi's rules keep; archive = the rest, same metadata; commits show unchanged`, async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
      await writeArchivalTable(base, { commits: 200, ...opts });
      const layout = opts.version >= 8 ? 2 : 1;
      const dir = tlDir(base, opts.version);
      const before = timelineFiles(dir, layout);
      const beforeShow = await runJson<unknown[]>(['commits', 'show', '--path', base]);
      const beforeExtra = await runJson<unknown[]>(['commits', 'show', '--path', base, '--includeExtraMetadata']);
      const expected = oracleArchive(readTimelineDir(dir, layout), { version: opts.version, mor: opts.tableType === 'MERGE_ON_READ', min: 20, max: 30, retained: 10 });
      expect(expected.size).toBeGreaterThan(100);

      const r = await runCli(['trigger', 'archival', '--path', base]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
      await verifyArchived(base, layout, before, expected);
      const archiveDir = layout === 1 ? join(base, '.hoodie', 'archived') : join(dir, 'history');
      // commits show --includeArchivedTimeline afterwards == commits show before
      expect(await runJson<unknown[]>(['commits', 'show', '--path', base, '--includeArchivedTimeline'])).toEqual(beforeShow);
      expect(await runJson<unknown[]>(['commits', 'show', '--path', base, '--includeArchivedTimeline', '--includeExtraMetadata'])).toEqual(beforeExtra);
      const archivedCommits = [...expected].filter((k) => /\|(commit|deltacommit|replacecommit)$/.test(k));
      const showArchived = await runJson<{ commitTime: string }[]>(['commits', 'showarchived', '--path', base, '--startTs', '0', '--endTs', '99999999999999999']);
      expect(showArchived.map((x) => x.commitTime).sort()).toEqual(archivedCommits.map((k) => k.split('|')[0]).sort());
      // hudi-cli's show archived commits (every completed archived instant) and commit stats (their write stats)
      const shownArchived = await runJson<{ commitTime: string; commitType: string }[]>(['show', 'archived', 'commits', '--path', base, '--limit', '-1']);
      expect(shownArchived.map((x) => `${x.commitTime}|${x.commitType}`).sort()).toEqual([...expected].sort());
      const stats = new Set((await runJson<{ instant: string }[]>(['show', 'archived', 'commit', 'stats', '--path', base, '--limit', '-1'])).map((x) => x.instant));
      const commitTimes = new Set(archivedCommits.map((k) => k.split('|')[0]!));
      expect([...stats].every((t) => commitTimes.has(t))).toBe(true);
      expect(stats.size).toBeGreaterThan(commitTimes.size / 2);

      if (opts.tableType === 'MERGE_ON_READ') {
        // archived compactions, plans included, through the hudi-cli commands
        const compactions = [...expected].filter((k) => k.endsWith('|commit')).map((k) => k.split('|')[0]!).sort();
        expect(compactions.length).toBeGreaterThan(5);
        const shown = await runJson<{ compactionInstantTime: string; state: string; totalFileIdsToBeCompacted: number }[]>(['compactions', 'showarchived', '--path', base, '--startTs', '0', '--endTs', '99999999999999999']);
        expect(shown.map((x) => x.compactionInstantTime).sort()).toEqual(compactions);
        expect(shown.every((x) => x.state === 'COMPLETED' && x.totalFileIdsToBeCompacted === 2)).toBe(true);
        expect(await runJson<unknown[]>(['compaction', 'showarchived', '--path', base, '--instant', compactions[0]!])).toHaveLength(2);
      }

      // a second run finds nothing to archive and changes nothing
      const snapshot = readdirSync(archiveDir).map((f) => [f, readFileSync(join(archiveDir, f)).toString('hex')]);
      const again = await runJson<{ archived: number; recovered: unknown[] }>(['trigger', 'archival', '--path', base]);
      expect(again.archived).toBe(0);
      expect(again.recovered).toEqual([]);
      expect(readdirSync(archiveDir).map((f) => [f, readFileSync(join(archiveDir, f)).toString('hex')])).toEqual(snapshot);
      expect(existsSync(join(base, '.hoodie', '.aux', 'lock'))).toBe(false);
    }, 120_000);
  }
});

describe('trigger archival: the metadata table\'s timeline', () => {
  // 200 data commits, each with its MDT deltacommit, and an MDT compaction after commit 180: the data
  // table archives below that compaction, then the MDT archives by its own rules below the data
  // timeline's new start
  const CASES: [string, ArchivalTableOptions][] = [
    ['MOR v6 + MDT', { tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, mdtCompactionAfter: 180 }],
    ['COW v8 + MDT', { tableType: 'COPY_ON_WRITE', version: 8, cleanEvery: 10, rollbackEvery: 37, mdtCompactionAfter: 180 }],
  ];
  for (const [name, opts] of CASES) {
    it(`${name}: archived after the data table, read back by our readers and independently; commits show over the MDT unchanged`, async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-mdt-'));
      await writeArchivalTable(base, { commits: 200, ...opts });
      const layout = opts.version >= 8 ? 2 : 1;
      const mdt = join(base, '.hoodie', 'metadata');
      const dataDir = tlDir(base, opts.version);
      const mdtDir = tlDir(mdt, opts.version);
      const dataAll = readTimelineDir(dataDir, layout);
      const mdtBefore = timelineFiles(mdtDir, layout);
      const mdtShow = await runJson<unknown[]>(['commits', 'show', '--path', mdt]);
      const mdtCompaction = readTimelineDir(mdtDir, layout).filter((i) => i.completed && i.action === 'commit').at(-1)!.t;
      const dataExpected = oracleArchive(dataAll, { version: opts.version, mor: opts.tableType === 'MERGE_ON_READ', min: 20, max: 30, retained: 10, mdtCompaction });
      const mdtExpected = oracleArchive(readTimelineDir(mdtDir, layout), mdtOracleInput({ version: opts.version, min: 20, max: 30, retained: 10 }, dataAll.filter((i) => !dataExpected.has(`${i.t}|${i.action}`))));
      expect(mdtExpected.size).toBeGreaterThan(100);

      const summary = await runJson<{ archived: number; metadataTable: { archived: number; rules: string; minCommits: number; maxCommits: number; archiveFiles: string[] } }>(['trigger', 'archival', '--path', base]);
      expect(summary.archived).toBe(dataExpected.size);
      expect(summary.metadataTable).toMatchObject({ archived: mdtExpected.size, rules: layout === 1 ? '0.14' : '1.x', minCommits: 21, maxCommits: 31 });
      expect(summary.metadataTable.archiveFiles).toHaveLength(1);
      await verifyArchived(mdt, layout, mdtBefore, mdtExpected);
      expect(await runJson<unknown[]>(['commits', 'show', '--path', mdt, '--includeArchivedTimeline'])).toEqual(mdtShow);
      // the MDT keeps every instant from the data timeline's (new) first commit on
      const dataLeft = readTimelineDir(dataDir, layout);
      const firstData = dataLeft.find((i) => ['commit', 'deltacommit', 'replacecommit'].includes(i.action))!.t;
      const mdtLeft = new Set([...timelineFiles(mdtDir, layout).keys()]);
      const later = [...mdtBefore.keys()].filter((k) => k.split('|')[0]! >= firstData);
      expect(later.length).toBeGreaterThan(20);
      for (const k of later) expect(mdtLeft.has(k), k).toBe(true);
      // nothing more to do, on either timeline
      const again = await runJson<{ archived: number; metadataTable: { archived: number } }>(['trigger', 'archival', '--path', base]);
      expect([again.archived, again.metadataTable.archived]).toEqual([0, 0]);
    }, 120_000);
  }

  it('--enableMetadata false (table version 8) leaves the metadata table alone', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-mdt-'));
    await writeArchivalTable(base, { commits: 80, tableType: 'COPY_ON_WRITE', version: 8, mdtCompactionAfter: 70 });
    const mdtDir = tlDir(join(base, '.hoodie', 'metadata'), 8);
    const names = readdirSync(mdtDir).sort();
    const r = await runJson<{ archived: number; metadataTable: unknown }>(['trigger', 'archival', '--path', base, '--enableMetadata', 'false']);
    expect(r.archived).toBeGreaterThan(0);
    expect(r.metadataTable).toBeNull();
    expect(readdirSync(mdtDir).sort()).toEqual(names);
  }, 60_000);
});

describe('trigger archival --dry-run', () => {
  it('lists every instant with whether it goes and why it stays; writes nothing', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 60, tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, compactEvery: 12, savepointAt: 40, pendingAfter: 50 });
    const names = readdirSync(join(base, '.hoodie')).sort();
    const rows = await runJson<{ instant: string; action: string; state: string; archive: boolean; reason: string }[]>(['trigger', 'archival', '--path', base, '--dry-run', '--minCommits', '12', '--maxCommits', '15', '--commitsRetainedByCleaner', '5']);
    expect(readdirSync(join(base, '.hoodie')).sort()).toEqual(names);
    expect(rows.filter((x) => x.archive).length).toBeGreaterThan(10);
    const sp = rows.find((x) => x.action === 'savepoint')!;
    expect(sp.reason).toMatch(/savepoints are never archived/);
    const pending = rows.find((x) => x.state === 'REQUESTED' && x.action === 'compaction')!;
    expect(pending.reason).toMatch(/pending/);
    // the commit savepointed and everything after it stay, naming the savepoint
    const kept = rows.filter((x) => !x.archive && x.action === 'deltacommit' && x.instant >= sp.instant);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((x) => x.reason.includes(`at or after ${sp.instant}`))).toBe(true);
    const text = await runCli(['trigger', 'archival', '--path', base, '--dry-run', '--minCommits', '12', '--maxCommits', '15', '--commitsRetainedByCleaner', '5']);
    expect(text.exitCode).toBe(0);
    // tblcli's own listing: aligned plain columns in a pipe, a box fitted to the width on a terminal
    expect(text.stdout.split('\n')[0]).toMatch(/^Table +Instant +Action +State +Archive +Reason$/);
    expect(text.stdout.split('\n').filter((l) => l.startsWith('data ')).length).toBe(rows.length);
    const tty = await runCli(['trigger', 'archival', '--path', base, '--dry-run', '--minCommits', '12', '--maxCommits', '15', '--commitsRetainedByCleaner', '5', '--no-pager'], { tty: true });
    expect(tty.exitCode).toBe(0);
    const lines = tty.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(rows.length);
    for (const l of lines) expect([...l.replace(/\u001b\[[0-9;]*m/g, '')].length).toBeLessThanOrEqual(100);
    expect(tty.stdout).toContain('savepoints are never');
  }, 60_000);
});

describe('trigger archival at a terminal and with --verbose', () => {
  it('a terminal: a progress bar of the instants leaving the active timeline on stderr, then one line per timeline in units a person reads', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 80, tableType: 'COPY_ON_WRITE', version: 6, cleanEvery: 10, mdtCompactionAfter: 70 });
    const r = await runCli(['trigger', 'archival', '--path', base, '--verbose'], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // the bar (redrawn in place, cleared at the end), without a records count
    expect(r.stderr).toMatch(/\rarchival ▕[█░]{20}▏ \d+\/\d+ instants · /);
    expect(r.stderr).toMatch(/\rarchival \(metadata table\) ▕/);
    expect(r.stderr).not.toMatch(/records/);
    // what stays on the screen of each line: after the bar's last clear-to-end-of-line
    const lines = r.stderr.split('\n').map((l) => l.split('\u001b[K').at(-1)!).filter(Boolean);
    expect(lines[0]).toMatch(/^Data table: archived \d+ instant\(s\) into \.commits_\.archive\.1_1-0-1, \d+ timeline file\(s\) deleted$/);
    expect(lines[1]).toMatch(/^Metadata table: archived \d+ instant\(s\) into \.commits_\.archive\.1_1-0-1, \d+ timeline file\(s\) deleted$/);
    expect(lines[2]).toMatch(/^Done in /);
    // nothing left: said so
    const again = await runCli(['trigger', 'archival', '--path', base, '--verbose'], { tty: true });
    expect(again.stderr).toContain('Data table: nothing to archive (--dry-run shows why each instant stays)');
  }, 60_000);

  it('a pipe: quiet without --verbose; with it plain progress lines and the summary with full paths', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 80, tableType: 'MERGE_ON_READ', version: 8, cleanEvery: 10, compactEvery: 12 });
    const copy = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    cpSync(base, copy, { recursive: true });
    const quiet = await runCli(['trigger', 'archival', '--path', copy]);
    expect([quiet.exitCode, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
    const r = await runCli(['trigger', 'archival', '--path', base, '--verbose']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^archival: 0\/(\d+) instants, 0 B, 0 B\/s, elapsed /);
    expect(lines.at(-2)).toMatch(/^archival: (\d+)\/\1 instants, /);
    expect(lines.at(-1)).toMatch(new RegExp(`^data table: archived \\d+ instant\\(s\\) by Hudi 1\\.x's rules, keeping \\d+\\.\\.\\d+ commits into ${base.replaceAll('/', '\\/')}.*_0\\.parquet; \\d+ timeline file\\(s\\) deleted$`));
    expect(r.stderr).not.toContain('\r');
  }, 60_000);
});

describe('trigger archival: options and refusals', () => {
  it('rejects settings Hudi rejects (exit 2), before touching the table', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 5, tableType: 'COPY_ON_WRITE', version: 6 });
    const a = await runCli(['trigger', 'archival', '--path', base, '--minCommits', '30', '--maxCommits', '30']);
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(/hoodie\.keep\.max\.commits=30 to be greater than hoodie\.keep\.min\.commits=30/);
    const b = await runCli(['trigger', 'archival', '--path', base, '--minCommits', '10', '--commitsRetainedByCleaner', '10']);
    expect(b.exitCode).toBe(2);
    expect(b.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('exits 4 while another process holds the table lock', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 40, tableType: 'COPY_ON_WRITE', version: 8 });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(base, '.hoodie', '.aux'), { recursive: true });
    writeFileSync(join(base, '.hoodie', '.aux', 'lock'), '{"lockCreateTime":"held by a test"}');
    const r = await runCli(['trigger', 'archival', '--path', base]);
    expect(r.exitCode).toBe(4);
    expect(readdirSync(join(base, '.hoodie', 'timeline')).some((f) => f === 'history')).toBe(false);
  });

  it('refuses a metadata table path', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-archival-'));
    await writeArchivalTable(base, { commits: 40, tableType: 'COPY_ON_WRITE', version: 6, mdtCompactionAfter: 20 });
    const r = await runCli(['trigger', 'archival', '--path', join(base, '.hoodie', 'metadata')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/is a metadata table/);
  });
});
