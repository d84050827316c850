// A metadata table kept only by tblcli for a long time stays bounded for readers (issue 14): 25 data
// deltacommits, each with its MDT deltacommit (a new file in the `files` partition), and the MDT
// compaction whenever Hudi's writer would run it (here every 3 deltacommits) — on the v8 fixture and
// the Trino v6 table. After every write the MDT lists every file added so far, the latest `files`
// slice never holds more than 3 deltacommits' logs over its base file (v6 log versions restart in each
// new slice), and nothing is left pending.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactMetadataTableIfDue } from '../../src/mdt/compaction.ts';
import { encodeMetadataRecord, filesRecord, mdtWriterSchema, readMetadataTableFiles } from '../../src/mdt/index.ts';
import { openMdtWriteTarget, writeMdtDeltacommit } from '../../src/mdt/writer.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, emptyCommitMetadata } from '../../src/metadata/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt } from '../../src/table/index.ts';
import { completeInstant, createRequested, newInstantTime, timesOnTimeline, transitionToInflight } from '../../src/timeline/writer.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
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

describe.skipIf(CASES.length === 0)('an MDT kept by tblcli alone stays bounded', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: 25 writes, compacted every 3 deltacommits', async (_n, c) => {
    const base = c.fresh();
    const partition = (await readMetadataTableFiles(storage, base)).partitions[0]!;
    const added: string[] = [];
    let compactions = 0;
    for (let i = 0; i < 25; i++) {
      const data = await openTable(base);
      const src = data.timelineSource;
      const t = newInstantTime(timesOnTimeline(await data.timeline()), data.config.timezone, new Date());
      await sleep(2);
      // a data deltacommit that added one file, and its MDT deltacommit first
      await createRequested(src, t, 'deltacommit');
      await transitionToInflight(src, t, 'deltacommit');
      const w = await openMdtWriteTarget(data, ['files']);
      const name = `growth-${String(i).padStart(2, '0')}.parquet`;
      added.push(name);
      const rec = filesRecord(partition, [[name, 1000 + i]]);
      await writeMdtDeltacommit(w, t, new Map([['files', [{ key: rec.key, value: encodeMetadataRecord(rec, mdtWriterSchema(w.writerSchema)) }]]]), { clockSkewMs: 1 });
      const m = emptyCommitMetadata();
      const ct = src.layout === 2 ? newInstantTime([...timesOnTimeline(await (await openTable(base)).timeline()), t], data.config.timezone, new Date()) : undefined;
      await sleep(2);
      await completeInstant(src, t, 'deltacommit', 'deltacommit', src.layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta: true }), ct);
      const r = await compactMetadataTableIfDue(await openTable(base), { clockSkewMs: 1, maxDeltaCommits: 3 });
      if (r.result) compactions++;

      const listing = await readMetadataTableFiles(storage, base);
      for (const f of added) expect(listing.files.get(partition)!.has(f), `${f} after write ${i}`).toBe(true);
      const [slice] = listing.slices;
      // at most the 3 deltacommits that make a compaction due sit in logs over the latest base file
      const newer = slice!.logFiles.filter((l) => !l.name.includes('_00000000000000'));
      expect(newer.length, `write ${i}`).toBeLessThanOrEqual(3);
      if (slice!.baseFile && (await openTable(base)).config.version < 8) for (const l of slice!.logFiles) expect(l.version).toBeLessThanOrEqual(3);
      expect((await (await openTableAt(storage, join(base, '.hoodie', 'metadata'))).timeline()).pending()).toEqual([]);
    }
    expect(compactions).toBeGreaterThanOrEqual(7);
  }, 120_000);
});
