// Reading archives without our readers, for the archival tests: the v1 log framing parsed here with each
// record decoded by avsc, and the checks of one archived record against the state file it came from
// (0.14 MetadataConversionUtils.createMetaWrapper).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { expect } from 'vitest';
import { decodeCleanMetadata, decodeCleanerPlan, decodeCompactionPlan, decodeRequestedReplaceMetadata, decodeRollbackMetadata } from '../../../src/metadata/index.ts';

export interface StateFile {
  t: string;
  /** action of this state's file */
  action: string;
  state: 'REQUESTED' | 'INFLIGHT' | 'COMPLETED';
  name: string;
  bytes: Buffer;
  ct?: string;
}

/** Hudi log-file framing (format-timeline.md §3.5) and the Avro data-block content, decoded with avsc. */

export const COMPARABLE: Record<string, string> = { compaction: 'commit', logcompaction: 'deltacommit', clustering: 'replacecommit' };

/** Every instant file of the timeline dir, grouped by `<t>|<comparable action>`. */
export function timelineFiles(dir: string, layout: 1 | 2): Map<string, StateFile[]> {
  const re = layout === 1 ? /^(\d+)\.([a-z]+)(?:\.(requested|inflight))?$/ : /^(\d+)(?:_(\d+))?\.([a-z]+)(?:\.(requested|inflight))?$/;
  const out = new Map<string, StateFile[]>();
  for (const name of readdirSync(dir)) {
    const m = re.exec(name);
    if (!m) continue;
    let action = layout === 1 ? m[2]! : m[3]!;
    let st = layout === 1 ? m[3] : m[4];
    if (action === 'properties') continue;
    if (action === 'inflight' && !st) [action, st] = ['commit', 'inflight'];
    const state = st === 'requested' ? 'REQUESTED' : st === 'inflight' ? 'INFLIGHT' : 'COMPLETED';
    const key = `${m[1]}|${COMPARABLE[action] ?? action}`;
    const list = out.get(key) ?? [];
    list.push({ t: m[1]!, action, state, name, bytes: readFileSync(join(dir, name)), ct: layout === 2 && state === 'COMPLETED' ? m[2] : undefined });
    out.set(key, list);
  }
  return out;
}

export const completedOf = (files: StateFile[]) => files.find((f) => f.state === 'COMPLETED');

export function parseArchiveLog(bytes: Buffer): { header: Map<number, string>; records: Record<string, unknown>[] }[] {
  const blocks: { header: Map<number, string>; records: Record<string, unknown>[] }[] = [];
  let p = 0;
  while (p < bytes.length) {
    expect(bytes.subarray(p, p + 6).toString('latin1')).toBe('#HUDI#');
    const blockSize = Number(bytes.readBigInt64BE(p + 6));
    let q = p + 14;
    expect(bytes.readInt32BE(q)).toBe(1); // log format version
    expect(bytes.readInt32BE(q + 4)).toBe(3); // AVRO_DATA_BLOCK
    q += 8;
    const header = new Map<number, string>();
    const n = bytes.readInt32BE(q);
    q += 4;
    for (let i = 0; i < n; i++) {
      const k = bytes.readInt32BE(q);
      const len = bytes.readInt32BE(q + 4);
      header.set(k, bytes.subarray(q + 8, q + 8 + len).toString('utf8'));
      q += 8 + len;
    }
    const contentLen = Number(bytes.readBigInt64BE(q));
    q += 8;
    const content = bytes.subarray(q, q + contentLen);
    q += contentLen;
    expect(bytes.readInt32BE(q)).toBe(0); // empty footer
    q += 4;
    expect(Number(bytes.readBigInt64BE(q))).toBe(blockSize + 6);
    q += 8;
    expect(q).toBe(p + 14 + blockSize);
    p = q;
    const type = avro.Type.forSchema(JSON.parse(header.get(2)!) as avro.Schema);
    expect(content.readInt32BE(0)).toBe(3);
    const count = content.readInt32BE(4);
    const records: Record<string, unknown>[] = [];
    let c = 8;
    for (let i = 0; i < count; i++) {
      const len = content.readInt32BE(c);
      records.push(type.fromBuffer(content.subarray(c + 4, c + 4 + len)) as Record<string, unknown>);
      c += 4 + len;
    }
    expect(c).toBe(content.length);
    blocks.push({ header, records });
  }
  return blocks;
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x))) as unknown;

/** What the archiver must have put in the record of one state file (0.14 MetadataConversionUtils). */
export function checkV1Record(rec: Record<string, unknown>, f: StateFile, files: StateFile[]): void {
  expect(rec.commitTime).toBe(f.t);
  expect(rec.actionType).toBe(f.action);
  expect(rec.actionState).toBe(f.state);
  expect(rec.version).toBe(1);
  expect(String(rec.stateTransitionTime)).toMatch(/^\d{17}$/);
  const path = { path: f.name };
  switch (f.action) {
    case 'commit':
    case 'deltacommit':
    case 'replacecommit': {
      if (f.action === 'replacecommit' && f.state === 'REQUESTED') {
        expect(plain(rec.hoodieRequestedReplaceMetadata)).toEqual(plain(decodeRequestedReplaceMetadata(f.bytes, path)));
        break;
      }
      if (f.action === 'replacecommit' && f.state === 'INFLIGHT' && f.bytes.length === 0) {
        expect(rec.HoodieInflightReplaceMetadata).toBeNull();
        break;
      }
      const field = f.action === 'replacecommit' ? (f.state === 'COMPLETED' ? 'hoodieReplaceCommitMetadata' : 'HoodieInflightReplaceMetadata') : 'hoodieCommitMetadata';
      const got = rec[field] as Record<string, unknown>;
      const json = (f.bytes.length ? JSON.parse(f.bytes.toString('utf8')) : {}) as Record<string, unknown>;
      const stats = (json.partitionToWriteStats ?? {}) as Record<string, Record<string, unknown>[]>;
      const gotStats = got.partitionToWriteStats as Record<string, Record<string, unknown>[]>;
      expect(Object.keys(gotStats)).toEqual(Object.keys(stats));
      for (const [p, list] of Object.entries(stats)) {
        expect(gotStats[p]!.map((s) => [s.fileId, s.path, s.prevCommit, s.numWrites, s.numInserts, s.numUpdateWrites, s.numDeletes, s.totalWriteBytes, s.partitionPath])).toEqual(
          list.map((s) => [s.fileId, s.path, s.prevCommit, s.numWrites, s.numInserts, s.numUpdateWrites, s.numDeletes, s.totalWriteBytes, s.partitionPath]),
        );
      }
      expect(got.operationType).toBe(json.compacted === true ? 'COMPACT' : (json.operationType ?? 'UNKNOWN'));
      expect(got.extraMetadata).toEqual({ ...((json.extraMetadata as object) ?? {}), ROLLING_STAT: '' });
      if (f.action === 'replacecommit' && f.state === 'COMPLETED') expect(got.partitionToReplaceFileIds).toEqual(json.partitionToReplaceFileIds);
      break;
    }
    case 'clean':
      if (f.state === 'COMPLETED') expect(plain(rec.hoodieCleanMetadata)).toEqual(plain(decodeCleanMetadata(f.bytes, path)));
      else expect(plain(rec.hoodieCleanerPlan)).toEqual(plain(decodeCleanerPlan(f.bytes, path)));
      break;
    case 'rollback':
      if (f.state === 'COMPLETED') expect(plain(rec.hoodieRollbackMetadata)).toEqual(plain(decodeRollbackMetadata(f.bytes, path)));
      else expect(rec.hoodieRollbackMetadata).toBeNull();
      break;
    case 'compaction': {
      const req = files.find((x) => x.state === 'REQUESTED')!;
      expect(plain(rec.hoodieCompactionPlan)).toEqual(plain(decodeCompactionPlan(req.bytes, path)));
      break;
    }
    default:
      throw new Error(`unexpected archived action ${f.action}`);
  }
}

