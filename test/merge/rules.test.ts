// Merge semantics on hand-built logs (format-data.md §4–5).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { mergeConfigFromProperties, mergeFileSlice, type MergeConfig } from '../../src/merge/index.ts';
import { baseParquet, dataBlock, deleteBlock, rollbackBlock, type Rec } from './support/log-builder.ts';

const storage = new LocalStorage();
const dir = mkdtempSync(join(tmpdir(), 'tblcli-merge-'));
let n = 0;
function put(bytes: Uint8Array): string { const p = join(dir, `f${n++}`); writeFileSync(p, bytes); return p; }

const V6_OVERWRITE = mergeConfigFromProperties({ 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.table.recordkey.fields': 'k' });
const V6_DEFAULT = mergeConfigFromProperties({ 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.compaction.payload.class': 'org.apache.hudi.common.model.DefaultHoodieRecordPayload' });
const V8_EVENT = mergeConfigFromProperties({ 'hoodie.table.version': '8', 'hoodie.table.precombine.field': 'ts', 'hoodie.record.merge.mode': 'EVENT_TIME_ORDERING' });
const V8_COMMIT = mergeConfigFromProperties({ 'hoodie.table.version': '8', 'hoodie.table.precombine.field': 'ts', 'hoodie.record.merge.mode': 'COMMIT_TIME_ORDERING' });

async function merge(config: MergeConfig, base: Rec[] | undefined, logs: Buffer[][], valid: (t: string) => boolean = () => true) {
  const slice = {
    partition: 'p', fileId: 'f',
    baseFile: base ? { path: put(baseParquet(base)), ext: 'parquet' } : undefined,
    logFiles: logs.map((blocks) => ({ path: put(Buffer.concat(blocks)) })),
  };
  const m = await mergeFileSlice(storage, slice, { config, isValidInstant: valid });
  return { ...m, view: Object.fromEntries(m.rows.map((r) => [r._hoodie_record_key, `${r.v}@${r.ts}`])) };
}

describe('merge rules', () => {
  it('config: v6 default payload is OverwriteWithLatest (event-time among logs, commit-time vs base)', () => {
    expect([V6_OVERWRITE.deltaMerge, V6_OVERWRITE.finalMerge]).toEqual(['event', 'commit']);
    expect([V6_DEFAULT.deltaMerge, V6_DEFAULT.finalMerge]).toEqual(['event', 'event']);
    expect([V8_EVENT.deltaMerge, V8_EVENT.finalMerge]).toEqual(['event', 'event']);
    expect(() => mergeConfigFromProperties({ 'hoodie.table.version': '6', 'hoodie.compaction.payload.class': 'com.x.Custom' })).toThrow(/not supported/);
  });

  it('0.x quirk: among logs the larger ts wins, but the surviving log record overwrites a newer base record', async () => {
    const base = [{ key: 'a', ts: 100, v: 'base' }];
    const logs = [[dataBlock('2', [{ key: 'a', ts: 5, v: 'L1' }]), dataBlock('3', [{ key: 'a', ts: 3, v: 'L2' }])]];
    expect((await merge(V6_OVERWRITE, base, logs)).view).toEqual({ a: 'L1@5' });
    expect((await merge(V6_DEFAULT, base, logs)).view).toEqual({ a: 'base@100' });
    expect((await merge(V8_COMMIT, base, logs)).view).toEqual({ a: 'L2@3' });
  });

  it('event time: ties go to the later record; base kept only when strictly larger', async () => {
    const r = await merge(V8_EVENT, [{ key: 'a', ts: 5, v: 'base' }, { key: 'b', ts: 9, v: 'base' }], [[dataBlock('2', [{ key: 'a', ts: 5, v: 'log' }, { key: 'b', ts: 8, v: 'log' }, { key: 'c', ts: 1, v: 'ins' }])]]);
    expect(r.view).toEqual({ a: 'log@5', b: 'base@9', c: 'ins@1' });
    expect(r.stats).toMatchObject({ totalUpdatedRecordsCompacted: 1, baseRecords: 2, totalLogRecords: 3 });
  });

  it('deletes: natural-order (0) delete always wins; an ordered delete loses to a larger same-class value', async () => {
    const base = [{ key: 'a', ts: 50, v: 'base' }, { key: 'b', ts: 50, v: 'base' }, { key: 'c', ts: 50, v: 'base' }];
    const logs = [[deleteBlock('2', [{ key: 'a', int: 0 }, { key: 'b', long: 10 }, { key: 'c', long: 60 }])]];
    const r = await merge(V8_EVENT, base, logs);
    expect(r.view).toEqual({ b: 'base@50' });
    expect(r.stats.totalDeletedRecords).toBe(2);
    // commit-time ordering: every delete wins
    expect((await merge(V8_COMMIT, base, logs)).view).toEqual({});
  });

  it('_hoodie_is_deleted records delete; 0.x revives a key written after a delete', async () => {
    const logs = [[dataBlock('2', [{ key: 'a', ts: 9, v: 'x', deleted: true }]), dataBlock('3', [{ key: 'a', ts: 1, v: 'again' }])]];
    expect((await merge(V6_OVERWRITE, [{ key: 'a', ts: 5, v: 'base' }], logs)).view).toEqual({ a: 'again@1' });
    expect((await merge(V8_EVENT, [{ key: 'a', ts: 5, v: 'base' }], logs)).view).toEqual({});
  });

  it('rollback command blocks drop earlier blocks of their target; uncommitted instants are skipped', async () => {
    const logs = [
      [dataBlock('2', [{ key: 'a', ts: 1, v: 'ok' }]), dataBlock('3', [{ key: 'a', ts: 2, v: 'failed' }])],
      [rollbackBlock('4', '3'), dataBlock('5', [{ key: 'b', ts: 1, v: 'pending' }])],
    ];
    const r = await merge(V8_COMMIT, undefined, logs, (t) => t !== '5');
    expect(r.view).toEqual({ a: 'ok@1' });
    expect(r.stats).toMatchObject({ totalLogBlocks: 4, totalRollbackBlocks: 1, totalSkippedBlocks: 1, totalLogFilesCompacted: 2, totalLogRecords: 1 });
    expect(r.notes.map((x) => x.note)).toEqual(expect.arrayContaining(['rolled back by 4']));
  });
});
