// Crash safety of `trigger archival`: a child process archiving a 200-commit table is SIGKILLed at each
// step. Right after the kill every instant is active or archived (none lost) and our readers count each
// once (`commits show --includeArchivedTimeline` unchanged); the next run completes, after which no
// instant is both active and archived, the archive holds each instant once (read by our reader and
// independently), and the table matches a run that was never interrupted. The same for a table whose
// metadata table's timeline the run archives too (killed in that part).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadArchivedTimeline } from '../../src/archive/index.ts';
import { triggerArchival } from '../../src/services/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { runJson } from '../support/run-cli.ts';
import { readTimelineDir } from './support/archival-oracle.ts';
import { writeArchivalTable } from './support/archival-table.ts';
import { buildArchivalChild, runChild as runChildScript } from './support/build-child.ts';

const storage = new LocalStorage();
let child = '';
let duck: Promise<DuckDBConnection> | undefined;
beforeAll(async () => {
  child = await buildArchivalChild();
}, 60_000);
afterAll(async () => {
  if (duck) (await duck).closeSync();
});

interface Settings {
  minCommits: number;
  maxCommits: number;
  commitsRetained: number;
  archiveChunkInstants?: number;
}

const runChild = (base: string, opts: object) => runChildScript(child, base, opts);

const tl = (base: string, layout: 1 | 2) => (layout === 2 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie'));
const archiveDir = (base: string, layout: 1 | 2) => (layout === 2 ? join(base, '.hoodie', 'timeline', 'history') : join(base, '.hoodie', 'archived'));

/** The data table, and its metadata table when the case has one (archived in the same run). */
let withMdt = false;
const roots = (base: string) => (withMdt ? [base, join(base, '.hoodie', 'metadata')] : [base]);
const tag = (root: string, s: string) => (root.endsWith('/.hoodie/metadata') ? `mdt:${s}` : s);

/** Timeline file names (state granularity) and completed instants, of every root. */
function active(base: string, layout: 1 | 2): { files: string[]; completed: Set<string> } {
  const files: string[] = [];
  const completed = new Set<string>();
  for (const r of roots(base)) {
    files.push(...readdirSync(tl(r, layout)).filter((f) => /^\d/.test(f)).map((f) => tag(r, f)));
    for (const i of readTimelineDir(tl(r, layout), layout)) if (i.completed) completed.add(tag(r, `${i.t}|${i.action}`));
  }
  return { files: files.sort(), completed };
}

/** Archived entries through our reader: `<t>|<action>|<state>` (layout 1) or `<t>|<action>` (layout 2), duplicates kept. */
async function archived(base: string, layout: 1 | 2): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots(base)) {
    const a = await loadArchivedTimeline(storage, r, { layout, archiveDir: archiveDir(r, layout), withMetadata: false });
    out.push(...a.map((x) => tag(r, layout === 1 ? `${x.requestedTime}|${x.action}|${x.state}` : `${x.requestedTime}|${x.action}`)));
  }
  return out.sort();
}

/** `commits show --includeArchivedTimeline` of every root. */
async function shown(base: string): Promise<unknown[]> {
  return Promise.all(roots(base).map((r) => runJson<unknown[]>(['commits', 'show', '--path', r, '--includeArchivedTimeline'])));
}

/** The part of an entry that names the instant: `[mdt:]<t>|<action>`. */
const instantOf = (x: string) => x.split('|').slice(0, 2).join('|');

/** The same, read without our readers: DuckDB over the files the manifest lists (layout 2). */
async function archivedByDuckDb(base: string): Promise<string[]> {
  duck ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  const out: string[] = [];
  for (const root of roots(base)) {
    const dir = archiveDir(root, 2);
    const names = readdirSync(dir);
    const version = names.includes('_version_') ? readFileSync(join(dir, '_version_'), 'utf8') : String(Math.max(...names.filter((n) => n.startsWith('manifest_')).map((n) => Number(n.slice(9)))));
    const manifest = JSON.parse(readFileSync(join(dir, `manifest_${version}`), 'utf8')) as { files: { fileName: string }[] };
    for (const f of manifest.files) {
      const r = await (await duck).runAndReadAll(`SELECT instantTime, action FROM read_parquet('${join(dir, f.fileName)}')`);
      for (const row of r.getRows()) out.push(tag(root, `${row[0]}|${row[1]}`));
    }
  }
  return out.sort();
}

const V1_POINTS = ['before-write', 'after-archive-file', 'after-first-pending-deleted', 'after-first-completed-deleted', 'after-first-round-deleted', 'after-delete'];
const V2_POINTS = [
  'before-write',
  'after-lsm-file',
  'after-lsm-manifest',
  'after-lsm-version-deleted',
  'after-lsm-version',
  'after-first-pending-deleted',
  'after-first-completed-deleted',
  'after-first-round-deleted',
  'after-delete',
  'after-compaction-file',
  'after-compaction-manifest',
  'after-compaction-version-deleted',
  'after-compaction-version',
  'after-clean-manifests',
];

interface Case {
  name: string;
  layout: 1 | 2;
  points: string[];
  /** the table has a metadata table whose timeline the same run archives */
  mdt?: boolean;
  /** where the first run of the "killed again while finishing" test dies, and then the second */
  recovery: [string, string];
  /** settings of the killed run (and of the rerun) */
  run: Settings;
  template: () => Promise<string>;
}

const FINAL = { minCommits: 20, maxCommits: 30, commitsRetained: 10 };

const CASES: Case[] = [
  {
    name: 'MOR v6 (log archive)',
    layout: 1,
    points: V1_POINTS,
    recovery: ['after-archive-file', 'recovery-after-first-completed-deleted'],
    run: FINAL,
    template: async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-crash-'));
      await writeArchivalTable(base, { commits: 200, tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, savepointAt: 170, pendingAfter: 180 });
      return base;
    },
  },
  {
    // the killed run has written some of its archive files (after-archive-file: the first of several)
    name: 'MOR v6, archived 40 instants per archive file',
    layout: 1,
    points: V1_POINTS,
    recovery: ['after-archive-file', 'recovery-after-first-completed-deleted'],
    run: { ...FINAL, archiveChunkInstants: 40 },
    template: async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-crash-'));
      await writeArchivalTable(base, { commits: 200, tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, savepointAt: 170, pendingAfter: 180 });
      return base;
    },
  },
  {
    name: 'COW v8 (LSM timeline, the run that compacts L0)',
    layout: 2,
    points: V2_POINTS,
    recovery: ['after-lsm-version', 'recovery-after-first-completed-deleted'],
    run: { minCommits: 100, maxCommits: 101, commitsRetained: 10 },
    template: async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-crash-'));
      await writeArchivalTable(base, { commits: 200, tableType: 'COPY_ON_WRITE', version: 8, cleanEvery: 10, rollbackEvery: 37 });
      // nine earlier runs of ten commits each leave nine L0 files: the tenth triggers compaction
      for (let i = 0; i < 9; i++) {
        const min = 190 - 10 * i;
        await triggerArchival(await openTable(base), { minCommits: min, maxCommits: min + 1, commitsRetained: 10, clockSkewMs: 1 });
      }
      expect(readdirSync(archiveDir(base, 2)).filter((f) => f.endsWith('_0.parquet'))).toHaveLength(9);
      return base;
    },
  },
  // the metadata table's archival, after the data table's in the same run
  {
    name: 'MOR v6 + metadata table (both log archives)',
    layout: 1,
    mdt: true,
    points: ['after-delete', ...V1_POINTS.map((p) => `mdt-${p}`)],
    recovery: ['mdt-after-archive-file', 'mdt-recovery-after-first-completed-deleted'],
    run: FINAL,
    template: async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-crash-'));
      await writeArchivalTable(base, { commits: 200, tableType: 'MERGE_ON_READ', version: 6, cleanEvery: 10, rollbackEvery: 37, compactEvery: 12, mdtCompactionAfter: 180 });
      return base;
    },
  },
  {
    name: 'COW v8 + metadata table (both LSM timelines)',
    layout: 2,
    mdt: true,
    points: ['after-delete', ...V2_POINTS.slice(0, 9).map((p) => `mdt-${p}`)],
    recovery: ['mdt-after-lsm-version', 'mdt-recovery-after-first-completed-deleted'],
    run: FINAL,
    template: async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-crash-'));
      await writeArchivalTable(base, { commits: 200, tableType: 'COPY_ON_WRITE', version: 8, cleanEvery: 10, rollbackEvery: 37, mdtCompactionAfter: 180 });
      return base;
    },
  },
];

describe('trigger archival crash safety', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      let template = '';
      let reference: { active: string[]; archived: string[] } | undefined;
      let before: { completed: Set<string>; show: unknown[]; archived: string[] } | undefined;
      beforeEach(() => {
        withMdt = c.mdt === true;
      });
      beforeAll(async () => {
        withMdt = c.mdt === true;
        template = await c.template();
        const a = active(template, c.layout);
        before = { completed: a.completed, show: await shown(template), archived: await archived(template, c.layout) };
        const ref = mkdtempSync(join(tmpdir(), 'tblcli-arch-ref-'));
        cpSync(template, ref, { recursive: true });
        const r = await runChild(ref, c.run);
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as { compacted: number; mdtArchived: number | null };
        if (c.layout === 2 && !c.mdt) expect(out.compacted).toBe(1);
        if (c.run.archiveChunkInstants) {
          const files = (b: string) => (existsSync(archiveDir(b, 1)) ? readdirSync(archiveDir(b, 1)).length : 0);
          expect(files(ref) - files(template)).toBeGreaterThan(2);
        }
        if (c.mdt) expect(out.mdtArchived).toBeGreaterThan(100);
        reference = { active: active(ref, c.layout).files, archived: await archived(ref, c.layout) };
      }, 120_000);

      it('killed again while finishing an interrupted run → the third run completes it', async () => {
        const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-kill-'));
        cpSync(template, base, { recursive: true });
        const first = await runChild(base, { ...c.run, crashAt: c.recovery[0] });
        expect(first.signal).toBe('SIGKILL');
        const second = await runChild(base, { ...c.run, lockExpireMs: 300, crashAt: c.recovery[1] });
        expect(second.signal, second.stderr).toBe('SIGKILL');
        expect(await shown(base)).toEqual(before!.show);
        const third = await runChild(base, { ...c.run, lockExpireMs: 300 });
        expect(third.code, third.stderr).toBe(0);
        const out = JSON.parse(third.stdout) as { recovered: number; mdtRecovered: number | null };
        expect(c.mdt ? out.mdtRecovered : out.recovered).toBeGreaterThan(0);
        expect(active(base, c.layout).files).toEqual(reference!.active);
        expect(await archived(base, c.layout)).toEqual(reference!.archived);
      }, 60_000);

      for (const point of c.points) {
        it(`killed at ${point} → nothing lost or counted twice; the next run completes it`, async () => {
          const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-kill-'));
          cpSync(template, base, { recursive: true });
          const k = await runChild(base, { ...c.run, crashAt: point });
          expect(k.signal, k.stderr).toBe('SIGKILL');

          // right after the kill: every completed instant is active or archived, readers count it once
          const mid = active(base, c.layout);
          const midArchived = new Set((await archived(base, c.layout)).map(instantOf));
          for (const i of before!.completed) expect(mid.completed.has(i) || midArchived.has(i), `${i} lost`).toBe(true);
          expect(await shown(base)).toEqual(before!.show);

          // the next run takes over the killed run's expired lock and finishes the job: same table as an uninterrupted run
          const again = await runChild(base, { ...c.run, lockExpireMs: 300 });
          expect(again.code, again.stderr).toBe(0);
          const end = active(base, c.layout);
          const endArchived = await archived(base, c.layout);
          expect(end.files).toEqual(reference!.active);
          expect(endArchived).toEqual(reference!.archived);
          expect(new Set(endArchived).size).toBe(endArchived.length);
          for (const x of endArchived) expect(end.completed.has(instantOf(x)), `${x} both active and archived`).toBe(false);
          if (c.layout === 2) expect(await archivedByDuckDb(base)).toEqual(endArchived);
          expect(await shown(base)).toEqual(before!.show);
          expect(readdirSync(join(base, '.hoodie', '.aux')).includes('lock')).toBe(false);
        }, 60_000);
      }
    });
  }
});
