// Archiving a metadata table that tblcli alone kept for a while (the v8 fixture and the Trino v6 table):
// 40 data deltacommits, each with its MDT deltacommit (a new file in the `files` partition), the MDT
// compacted every 3 of them as Hudi's writer would. `trigger archival` then archives both timelines
// (the MDT by its own rules, below the data timeline's new start), and afterwards the MDT lists exactly
// the same files, both timelines read the same through the archive, and the next write with its MDT
// deltacommit and MDT compaction works on the shortened MDT timeline.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadArchivedTimeline } from '../../src/archive/index.ts';
import { compactMetadataTableIfDue } from '../../src/mdt/compaction.ts';
import { encodeMetadataRecord, filesRecord, mdtWriterSchema, readMetadataTableFiles } from '../../src/mdt/index.ts';
import { openMdtWriteTarget, writeMdtDeltacommit } from '../../src/mdt/writer.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, emptyCommitMetadata } from '../../src/metadata/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt } from '../../src/table/index.ts';
import { completeInstant, createRequested, newInstantTime, timesOnTimeline, transitionToInflight } from '../../src/timeline/writer.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';

const storage = new LocalStorage();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CASES: { name: string; fresh: () => string }[] = [
  ...(HAVE_FIXTURES ? [{ name: 'v8_trips_8i3u1d', fresh: () => tableFresh('quickstart_trips_table/mor/avro/v8_trips_8i3u1d') }] : []),
  ...(HAVE_TRINO_V6
    ? [
        {
          name: 'trino v6',
          fresh: () => {
            const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
            cpSync(trinoV6Table(), dest, { recursive: true });
            return dest;
          },
        },
      ]
    : []),
];

/** A data deltacommit that added one file, its MDT deltacommit first, then the MDT compaction when due. */
async function write(base: string, partition: string, name: string): Promise<void> {
  const data = await openTable(base);
  const src = data.timelineSource;
  const t = newInstantTime(timesOnTimeline(await data.timeline()), data.config.timezone, new Date());
  await sleep(2);
  await createRequested(src, t, 'deltacommit');
  await transitionToInflight(src, t, 'deltacommit');
  const w = await openMdtWriteTarget(data, ['files']);
  const rec = filesRecord(partition, [[name, 1000]]);
  await writeMdtDeltacommit(w, t, new Map([['files', [{ key: rec.key, value: encodeMetadataRecord(rec, mdtWriterSchema(w.writerSchema)) }]]]), { clockSkewMs: 1 });
  const m = emptyCommitMetadata();
  const ct = src.layout === 2 ? newInstantTime([...timesOnTimeline(await (await openTable(base)).timeline()), t], data.config.timezone, new Date()) : undefined;
  await sleep(2);
  await completeInstant(src, t, 'deltacommit', 'deltacommit', src.layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta: true }), ct);
  await compactMetadataTableIfDue(await openTable(base), { clockSkewMs: 1, maxDeltaCommits: 3 });
}

const listing = async (base: string) => {
  const l = await readMetadataTableFiles(storage, base);
  return [...l.files].map(([p, files]) => [p, [...files].sort()]).sort();
};
const mdtInstants = async (base: string) => (await (await openTableAt(storage, join(base, '.hoodie', 'metadata'))).timeline()).instants;

describe.skipIf(CASES.length === 0)('trigger archival on a metadata table kept by tblcli', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: 40 writes, then both timelines archived; the MDT lists the same files and takes the next write', async (_n, c) => {
    const base = c.fresh();
    const partition = (await readMetadataTableFiles(storage, base)).partitions[0]!;
    for (let i = 0; i < 40; i++) await write(base, partition, `arch-${String(i).padStart(2, '0')}.parquet`);
    const mdt = join(base, '.hoodie', 'metadata');
    const before = { listing: await listing(base), mdt: (await mdtInstants(base)).length, data: await runJson<unknown[]>(['commits', 'show', '--path', base]), mdtShow: await runJson<unknown[]>(['commits', 'show', '--path', mdt]) };

    const r = await runJson<{ archived: number; metadataTable: { archived: number; minCommits: number } }>(['trigger', 'archival', '--path', base, '--minCommits', '3', '--maxCommits', '4', '--commitsRetainedByCleaner', '2']);
    expect(r.archived).toBeGreaterThan(20);
    expect(r.metadataTable.archived).toBeGreaterThan(10);
    // the MDT's cleaner retains 20 commits, which raises its minCommits (ArchivalUtils)
    expect(r.metadataTable.minCommits).toBeGreaterThanOrEqual(21);
    const left = await mdtInstants(base);
    expect(left.length).toBe(before.mdt - r.metadataTable.archived);
    // its latest compaction stays active (the data table's next archival is bounded by it)
    expect(left.some((i) => i.state === 'COMPLETED' && i.action === 'commit')).toBe(true);
    const layout = (await openTableAt(storage, mdt)).config.layoutVersion;
    const archive = await loadArchivedTimeline(storage, mdt, { layout, archiveDir: layout === 2 ? join(mdt, '.hoodie', 'timeline', 'history') : join(mdt, '.hoodie', 'archived') });
    // one entry per state file in a v1 archive (a compaction's requested state says compaction): by instant time
    expect(new Set(archive.map((a) => a.requestedTime)).size).toBe(r.metadataTable.archived);

    // readers see the same table through the archive
    expect(await listing(base)).toEqual(before.listing);
    expect(await runJson<unknown[]>(['commits', 'show', '--path', base, '--includeArchivedTimeline'])).toEqual(before.data);
    expect(await runJson<unknown[]>(['commits', 'show', '--path', mdt, '--includeArchivedTimeline'])).toEqual(before.mdtShow);

    // and the next writes (MDT deltacommits, an MDT compaction) work on the shortened MDT timeline
    for (let i = 0; i < 3; i++) await write(base, partition, `after-${i}.parquet`);
    const next = await readMetadataTableFiles(storage, base);
    for (const f of ['arch-00.parquet', 'arch-39.parquet', 'after-0.parquet', 'after-2.parquet']) expect(next.files.get(partition)!.has(f), f).toBe(true);
    expect((await mdtInstants(base)).filter((i) => i.state !== 'COMPLETED')).toEqual([]);
  }, 180_000);
});
