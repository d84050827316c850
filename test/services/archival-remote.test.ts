// `trigger archival` over WebHDFS (the test NameNode/DataNode serving a copy of the table): both layouts
// give the local run's result — the same active timelines (data and metadata table) and the same
// archive files, byte for byte.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../support/run-cli.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { writeArchivalTable, type ArchivalTableOptions } from './support/archival-table.ts';

function tree(dir: string, out = new Map<string, string>(), rel = ''): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.aux' || e.name.startsWith('.tblcli-tmp-')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) tree(p, out, `${rel}${e.name}/`);
    else out.set(`${rel}${e.name}`, readFileSync(p).toString('hex'));
  }
  return out;
}

const CASES: [string, ArchivalTableOptions][] = [
  ['MOR v6 (log archive)', { tableType: 'MERGE_ON_READ', version: 6, commits: 120, cleanEvery: 10, rollbackEvery: 29, compactEvery: 12, savepointAt: 100, pendingAfter: 110, mdtCompactionAfter: 100 }],
  ['COW v9 (LSM timeline)', { tableType: 'COPY_ON_WRITE', version: 9, commits: 120, cleanEvery: 10, rollbackEvery: 29, clusterAfter: [30], savepointAt: 100, pendingAfter: 110, mdtCompactionAfter: 100 }],
];

describe('trigger archival over WebHDFS', () => {
  for (const [name, opts] of CASES) {
    it(`${name}: the same result as the local run`, async () => {
      const root = mkdtempSync(join(tmpdir(), 'tblcli-arch-hdfs-'));
      const local = join(root, 'local');
      const remote = join(root, 'remote');
      mkdirSync(local);
      await writeArchivalTable(local, opts);
      // layout 1 records carry each state file's modification time: give both copies the same whole seconds
      cpSync(local, remote, { recursive: true });
      for (const rel of tree(local).keys()) {
        const s = Math.floor(statSync(join(local, rel)).mtimeMs / 1000);
        for (const b of [local, remote]) utimesSync(join(b, rel), s, s);
      }
      const before = await runJson<unknown[]>(['commits', 'show', '--path', local]);
      const empty = new Set([...tree(remote).entries()].filter(([, hex]) => hex === '').map(([rel]) => `/remote/${rel}`));
      const srv = await startWebHdfsServer({ root });
      try {
        const uri = srv.uri('/remote');
        type Summary = { archived: number; archiveFiles: string[]; metadataTable: { archived: number } };
        const l = await runJson<Summary>(['trigger', 'archival', '--path', local, '--minCommits', '11', '--maxCommits', '15']);
        const r = await runJson<Summary>(['trigger', 'archival', '--path', uri, '--minCommits', '11', '--maxCommits', '15']);
        expect(l.archived).toBeGreaterThan(50);
        expect(r.archived).toBe(l.archived);
        // the metadata table's timeline too, in its own archive under .hoodie/metadata
        expect(l.metadataTable.archived).toBeGreaterThan(50);
        expect(r.metadataTable.archived).toBe(l.metadataTable.archived);
        expect(srv.requests.some((q) => q.op === 'CREATE')).toBe(true);
        expect(srv.requests.some((q) => q.op === 'DELETE')).toBe(true);
        expect(tree(remote)).toEqual(tree(local));
        // the listing's sizes spare the empty state files (most pending files) their OPENs
        expect(empty.size).toBeGreaterThan(50);
        expect(srv.requests.filter((q) => q.op === 'OPEN' && empty.has(q.path)).map((q) => q.path)).toEqual([]);
        expect(await runJson<unknown[]>(['commits', 'show', '--path', uri, '--includeArchivedTimeline'])).toEqual(before);
        const dry = await runCli(['trigger', 'archival', '--path', uri, '--dry-run', '--minCommits', '11', '--maxCommits', '15', '--json']);
        expect(dry.exitCode, dry.stderr).toBe(0);
        expect((JSON.parse(dry.stdout) as { archive: boolean }[]).some((x) => x.archive)).toBe(false);
      } finally {
        await srv.close();
      }
    }, 120_000);
  }
});
