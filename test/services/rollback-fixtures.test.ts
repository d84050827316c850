// The rollback engine against the two rollbacks real Hudi wrote (format-services-write.md §3):
// each fixture table is put back into the state it had before its rollback (the rollback's files
// and the later commit removed, the rolled-back deltacommit re-created from what the plan names),
// rolled back by tblcli at the same rollback time, and the plan, the metadata and the files written
// are compared with Hudi's: paths (up to the base path), fileIds, latestBaseInstant, the
// logBlocksToBeDeleted keys (full `file:` URIs), rollbackLogFiles, the v6 command block byte for
// byte, and on v9 the metadata table's rollback at the same instant, completed first.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeRollbackMetadata,
  decodeRollbackPlan,
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  newWriteStat,
  type RollbackMetadata,
  type RollbackPlan,
} from '../../src/metadata/index.ts';
import { metadataTableFor, rollbackWithMetadataTable, underLock } from '../../src/services/transaction.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, table as fixture, tableFresh } from '../support/fixtures.ts';
import { allFiles } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';

const rm = (p: string) => rmSync(p, { force: true });

/** Hudi's paths with its base path replaced by ours (and both URI forms). */
function rebase<T>(v: T, hudiBase: string, base: string): T {
  return JSON.parse(JSON.stringify(v).replaceAll(hudiBase, base)) as T;
}

function sortRequests(p: RollbackPlan): RollbackPlan {
  return { ...p, RollbackRequests: [...(p.RollbackRequests ?? [])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
}

/** Metadata without the duration, partition lists sorted. */
function stable(m: RollbackMetadata): unknown {
  const parts = Object.fromEntries(
    Object.entries(m.partitionMetadata).map(([k, p]) => [k, { ...p, successDeleteFiles: [...p.successDeleteFiles].sort(), failedDeleteFiles: [...p.failedDeleteFiles].sort() }]),
  );
  return { ...m, timeTakenInMillis: 0, partitionMetadata: parts };
}

describe.skipIf(!HAVE_FIXTURES)('rollback engine = Hudi on its own rollbacks', () => {
  it('v6 MOR (0.x): listing-based plan, rollback command block appended as log version 2, byte for byte', async () => {
    const id = 'sample_table/mor/parquet/v6_nonpartitioned_rollback';
    const hudiBase = '/opt/data/external_tables/v6_nonpartitioned_rollback';
    const orig = fixture(id);
    const base = tableFresh(id);
    const h = join(base, '.hoodie');
    const FID = '0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0';
    const B1 = '20250126040823628';
    const T = '20250126040826878';
    const RB = '20250126040936578';
    const hudiPlan = decodeRollbackPlan(readFileSync(join(orig, `.hoodie/${RB}.rollback.requested`)), { path: 'plan' });
    const hudiMeta = decodeRollbackMetadata(readFileSync(join(orig, `.hoodie/${RB}.rollback`)), { path: 'meta' });
    const hudiBlock = readFileSync(join(orig, `.${FID}_${B1}.log.2_1-0-1`));

    // back to before the rollback: drop the rollback, the later deltacommit and the files they wrote
    for (const s of ['rollback', 'rollback.inflight', 'rollback.requested']) rm(join(h, `${RB}.${s}`));
    for (const s of ['deltacommit', 'deltacommit.inflight', 'deltacommit.requested']) rm(join(h, `20250126060846931.${s}`));
    rm(join(base, `.${FID}_${B1}.log.2_1-0-1`));
    rm(join(base, `.${FID}_${B1}.log.3_0-13-9`));
    const expected = comparable(await snapshotRows(base));
    // the rolled-back deltacommit as its plan names it: an insert into a new file group (its rows are
    // not reproduced: the file is only deleted) and the update log file of the existing slice
    const insertFile = `cd329d8f-0ce4-4654-84ab-2f769aae5034-0_1-33-44_${T}.parquet`;
    copyFileSync(join(base, `${FID}_0-13-23_${B1}.parquet`), join(base, insertFile));
    const logName = `.${FID}_${B1}.log.1_0-33-43`;
    const meta = {
      partitionToWriteStats: {
        '': [
          newWriteStat({ fileId: 'cd329d8f-0ce4-4654-84ab-2f769aae5034-0', path: insertFile, prevCommit: 'null', partitionPath: '', numWrites: 1, numInserts: 1, totalWriteBytes: 440982, fileSizeInBytes: 440982 }),
          newWriteStat({ fileId: FID, path: logName, prevCommit: B1, partitionPath: '', numWrites: 1, numUpdateWrites: 1, totalWriteBytes: 11828, fileSizeInBytes: 11828, logVersion: 1, baseFile: `${FID}_0-13-23_${B1}.parquet`, logFiles: [logName] }),
        ],
      },
      compacted: false,
      extraMetadata: {},
      operationType: 'UPSERT',
    };
    writeFileSync(join(h, `${T}.deltacommit.requested`), '');
    writeFileSync(join(h, `${T}.deltacommit.inflight`), '');
    writeFileSync(join(h, `${T}.deltacommit`), encodeCommitMetadataJson(meta));

    const r = await underLock(await openTable(base), { clockSkewMs: 1 }, (t) => rollbackWithMetadataTable(t, undefined, T, { targetFiles: 'delete', rollbackTime: RB, useMarkers: false }));
    expect(r.rollbackInstant).toBe(RB);

    // the plan: Hudi's, with our base path (files to delete without scheme, the log-block key a file: URI)
    const ours = decodeRollbackPlan(readFileSync(join(h, `${RB}.rollback.requested`)), { path: 'ours' });
    expect(ours).toEqual(rebase(hudiPlan, hudiBase, base));
    expect(Object.keys(ours.RollbackRequests![1]!.logBlocksToBeDeleted!)).toEqual([`file:${base}/${logName}`]);
    // the metadata, except the time it took
    const oursMeta = decodeRollbackMetadata(readFileSync(join(h, `${RB}.rollback`)), { path: 'ours' });
    expect(stable(oursMeta)).toEqual(stable(rebase(hudiMeta, hudiBase, base)));
    // the command block: the same file name (next log version, UNKNOWN_WRITE_TOKEN) and the same bytes
    expect(readFileSync(join(base, `.${FID}_${B1}.log.2_1-0-1`)).equals(hudiBlock)).toBe(true);
    // inflight of the rollback empty, the target's instant files and the inserted file gone, log.1 kept
    expect(readFileSync(join(h, `${RB}.rollback.inflight`)).length).toBe(0);
    for (const s of ['deltacommit', 'deltacommit.inflight', 'deltacommit.requested']) expect(existsSync(join(h, `${T}.${s}`))).toBe(false);
    expect(existsSync(join(base, insertFile))).toBe(false);
    expect(existsSync(join(base, logName))).toBe(true);
    expect(existsSync(join(h, '.temp', RB))).toBe(false);
    // the table reads as before the rolled-back commit (the command block voids log.1's block)
    expect(comparable(await snapshotRows(base))).toEqual(expected);
    // show rollbacks / show rollback: as for Hudi's own rollback (other than the base path)
    const norm = (rows: Record<string, unknown>[]) => rows.map((x) => rebase({ ...x, timeTakenInMillis: 0, timeTaken: 0 }, hudiBase, base));
    expect(norm(await runJson(['show', 'rollbacks', '--path', base]))).toEqual(norm(await runJson(['show', 'rollbacks', '--path', orig])));
    expect(norm(await runJson(['show', 'rollback', '--instant', RB, '--path', base]))).toEqual(norm(await runJson(['show', 'rollback', '--instant', RB, '--path', orig])));
  });

  it('v9 MOR with a metadata table (1.x): data and MDT plans as Hudi wrote them, MDT rollback at the same instant completed first', async () => {
    const id = 'sample_table/mor/avro/v9_nonpartitioned_rollback';
    const hudiBase = '/opt/data/warehouse/v9_nonpartitioned_rollback_mor';
    const orig = fixture(id);
    const base = tableFresh(id);
    const tl = join(base, '.hoodie/timeline');
    const mdt = join(base, '.hoodie/metadata');
    const mtl = join(mdt, '.hoodie/timeline');
    const T = '20260403184242950';
    const RB = '20260403184259077';
    const LATER = '20260403184302162';
    const read = (p: string) => readFileSync(join(orig, p));
    const hudiPlan = decodeRollbackPlan(read(`.hoodie/timeline/${RB}.rollback.requested`), { path: 'plan' });
    const hudiMeta = decodeRollbackMetadata(read(`.hoodie/timeline/${RB}_20260403184300219.rollback`), { path: 'meta' });
    const hudiMdtPlan = decodeRollbackPlan(read(`.hoodie/metadata/.hoodie/timeline/${RB}.rollback.requested`), { path: 'plan' });
    const hudiMdtMeta = decodeRollbackMetadata(read(`.hoodie/metadata/.hoodie/timeline/${RB}_20260403184300206.rollback`), { path: 'meta' });

    // back to before the rollback: the rollbacks, the later deltacommit (both tables) and its files go
    for (const d of [tl, mtl]) {
      for (const f of allFiles(d)) if (f.includes(`/${RB}`) || f.includes(`/${LATER}`)) rm(f);
    }
    for (const f of allFiles(base)) if (f.includes(`_${LATER}`) && !f.includes('/.hoodie/timeline/')) rm(f);
    const expected = comparable(await snapshotRows(base));
    // the rolled-back deltacommit: its base file (rows not reproduced: it is only deleted), and the MDT
    // deltacommit of the same time with the log files the MDT plan names (contents of the later MDT
    // commit's files of the same partition: they are only deleted)
    const insertFile = `cefd0149-a1ea-4981-abda-34e0b9d9ef12-0_0-33-86_${T}.parquet`;
    copyFileSync(join(base, `5aa8d873-d341-4a43-aef0-51c33fec06f1-0_0-21-52_20260403184238571.parquet`), join(base, insertFile));
    const meta = (stats: Record<string, ReturnType<typeof newWriteStat>[]>) => ({ partitionToWriteStats: stats, compacted: false, extraMetadata: {}, operationType: 'UPSERT' });
    writeFileSync(join(tl, `${T}.deltacommit.requested`), '');
    writeFileSync(join(tl, `${T}.deltacommit.inflight`), '');
    writeFileSync(
      join(tl, `${T}_20260403184245100.deltacommit`),
      encodeCommitMetadataAvro(meta({ '': [newWriteStat({ fileId: 'cefd0149-a1ea-4981-abda-34e0b9d9ef12-0', path: insertFile, prevCommit: 'null', partitionPath: '', numInserts: 2, numWrites: 2 })] })),
    );
    const mdtStats: Record<string, ReturnType<typeof newWriteStat>[]> = {};
    for (const r of hudiMdtPlan.RollbackRequests!) {
      const name = r.filesToBeDeleted[0]!.split('/').pop()!;
      const src = allFiles(join(orig, '.hoodie/metadata', r.partitionPath)).find((f) => f.includes(`_${LATER}.log.`)) ?? allFiles(join(orig, '.hoodie/metadata/record_index')).find((f) => f.includes(`_${LATER}.log.`))!;
      copyFileSync(src, join(mdt, r.partitionPath, name));
      (mdtStats[r.partitionPath] ??= []).push(newWriteStat({ fileId: name.slice(1).split('_')[0]!, path: `${r.partitionPath}/${name}`, prevCommit: 'null', partitionPath: r.partitionPath }));
    }
    writeFileSync(join(mtl, `${T}.deltacommit.requested`), '');
    writeFileSync(join(mtl, `${T}.deltacommit.inflight`), '');
    writeFileSync(join(mtl, `${T}_20260403184245050.deltacommit`), encodeCommitMetadataAvro(meta(mdtStats)));

    await underLock(await openTable(base), { clockSkewMs: 1 }, async (t0) => {
      const { table: t, mdt: plan } = await metadataTableFor(t0, { clockSkewMs: 1 }, 'rollback');
      expect(plan).toBeDefined();
      return rollbackWithMetadataTable(t, plan, T, { targetFiles: 'delete', rollbackTime: RB, clockSkewMs: 1 });
    });

    const find = (dir: string, suffix: string) => allFiles(dir).find((f) => f.split('/').pop()!.startsWith(RB) && f.endsWith(suffix))!;
    const ours = decodeRollbackPlan(readFileSync(find(tl, '.rollback.requested')), { path: 'ours' });
    expect(ours).toEqual(rebase(hudiPlan, hudiBase, base));
    const oursMdt = decodeRollbackPlan(readFileSync(find(mtl, '.rollback.requested')), { path: 'ours' });
    expect(sortRequests(oursMdt)).toEqual(sortRequests(rebase(hudiMdtPlan, hudiBase, base)));
    const dataDone = find(tl, '.rollback');
    const mdtDone = find(mtl, '.rollback');
    expect(stable(decodeRollbackMetadata(readFileSync(dataDone), { path: 'ours' }))).toEqual(stable(rebase(hudiMeta, hudiBase, base)));
    expect(stable(decodeRollbackMetadata(readFileSync(mdtDone), { path: 'ours' }))).toEqual(stable(rebase(hudiMdtMeta, hudiBase, base)));
    // the MDT rollback completed before the data-table one (completion times in the names)
    const ct = (f: string) => f.split('/').pop()!.split('.')[0]!.split('_')[1]!;
    expect(ct(mdtDone) < ct(dataDone)).toBe(true);
    // the target's instant files are gone in both tables; listing and MDT agree; the snapshot is the one before
    for (const d of [tl, mtl]) expect(allFiles(d).filter((f) => f.split('/').pop()!.startsWith(T))).toEqual([]);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    expect(comparable(await snapshotRows(base))).toEqual(expected);
  });
});
