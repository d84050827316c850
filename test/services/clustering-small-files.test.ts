// Clustering generated tables of many small files (COW and MOR with updates, deletes and inserts in
// logs; v6 and v9): file counts drop as the plan says (groups cut at max.bytes.per.group, outputs at
// target.file.max.bytes with rollover), every acceptance check, all three layouts; and the packed
// rewrite path writes the same bytes as the row path (the reference), as compaction's does.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { clusterGroup, type ClusterJob } from '../../src/services/rewrite/cluster-op.ts';
import { hilbertKey, javaIntHashMapOrder, sortPermutation, type SortColumn } from '../../src/services/rewrite/sort-order.ts';
import { joinFileData, LocalStorage } from '../../src/storage/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import { generateSmallFilesTable } from '../support/small-files.ts';
import { captureBefore, checkAfter, clusterJobOf } from './support/clustering-check.ts';

const OPTS = { clockSkewMs: 1 };

function fresh(o: Parameters<typeof generateSmallFilesTable>[1]): string {
  const base = join(mkdtempSync(join(tmpdir(), 'tblcli-small-')), 'events');
  generateSmallFilesTable(base, o);
  return base;
}

describe('clustering tables of many small files', () => {
  it.each([
    [9, 'COPY_ON_WRITE', ['city', 'ts'], 'linear'],
    [9, 'MERGE_ON_READ', ['qty', 'amount'], 'z-order'],
    [6, 'MERGE_ON_READ', ['ts', 'city', 'flag'], 'hilbert'],
    [6, 'COPY_ON_WRITE', ['amount'], 'linear'],
  ] as const)('v%s %s sorted by %j (%s)', async (version, type, sortColumns, layout) => {
    const base = fresh({ version, type, partitions: ['2025/01/01', '2025/01/02'], filesPerPartition: 6, rowsPerFile: 700, logUpdates: 40 });
    const before = await captureBefore(base);
    expect(before.slices).toBe(12);
    const s = await scheduleClustering(await openTable(base), { ...OPTS, sortColumns: [...sortColumns], layout });
    expect(s.plan!.inputGroups).toHaveLength(2);
    const merges: string[] = [];
    const r = await runClustering(await openTable(base), { ...OPTS, rowGroupSize: 1000, onProgress: (e) => merges.push(e.merge) });
    expect(r.files).toBe(2);
    // flat schema, every slice with a base file: the packed rewrite path
    expect(merges).toEqual(['packed', 'packed']);
    await checkAfter(base, before, s, r, [...sortColumns], layout);
    expect((await loadFileSystemView(await openTable(base))).latestFileSlices()).toHaveLength(2);
  });

  it('groups close at max.bytes.per.group, max.num.groups caps them, outputs roll over at target.file.max.bytes', async () => {
    const base = fresh({ version: 9, type: 'COPY_ON_WRITE', partitions: ['a'], filesPerPartition: 8, rowsPerFile: 500 });
    const before = await captureBefore(base);
    const size = (await loadFileSystemView(await openTable(base))).latestFileSlices()[0]!.baseFile!.size;
    const s = await scheduleClustering(await openTable(base), { ...OPTS, maxBytesPerGroup: Math.floor(size * 3.5), maxNumGroups: 2, targetFileMaxBytes: Math.floor(size * 1.2), sortColumns: ['id'] });
    const groups = s.plan!.inputGroups!;
    expect(groups.map((g) => g.slices!.length)).toEqual([3, 3]);
    expect(groups.map((g) => g.numOutputFileGroups)).toEqual([3, 3]);
    const r = await runClustering(await openTable(base), { ...OPTS, props: new Map([['hoodie.clustering.plan.strategy.target.file.max.bytes', String(Math.floor(size * 1.2))]]) });
    // 1500 records per group in 3 range partitions of 500, each under the target: 6 files, ids -0
    expect(r.files).toBe(6);
    expect(r.writeStats.every((w) => w.fileId.endsWith('-0'))).toBe(true);
    await checkAfter(base, before, s, r, ['id']);
    // a smaller target rolls a partition over into <uuid>-1, …
    const base2 = fresh({ version: 9, type: 'COPY_ON_WRITE', partitions: ['a'], filesPerPartition: 4, rowsPerFile: 500, seed: 2 });
    const before2 = await captureBefore(base2);
    const s2 = await scheduleClustering(await openTable(base2), { ...OPTS, sortColumns: ['ts'] });
    const r2 = await runClustering(await openTable(base2), { ...OPTS, props: new Map([['hoodie.clustering.plan.strategy.target.file.max.bytes', String(Math.floor(size / 2))]]) });
    expect(r2.files).toBeGreaterThanOrEqual(7);
    expect(new Set(r2.writeStats.map((w) => w.fileId.slice(0, 36))).size).toBe(1);
    expect(r2.writeStats.some((w) => w.fileId.endsWith('-1'))).toBe(true);
    await checkAfter(base2, before2, s2, r2, ['ts']);
  });

  const jobOf = (base: string, partition: string, o: Partial<ClusterJob>) => clusterJobOf(base, partition, { rowGroupSize: 300, sortColumns: ['city', 'qty'], ...o });

  const sameAsRows = async (job: ClusterJob): Promise<void> => {
    const storage = new LocalStorage();
    const packed = await clusterGroup(storage, job);
    const rows = await clusterGroup(storage, { ...job, mergePath: 'rows' });
    expect(packed.path).toBe('packed');
    expect(rows.path).toBe('rows');
    expect(packed.records).toBe(rows.records);
    expect(packed.stats).toEqual(rows.stats);
    expect(packed.files.map((f) => f.fileName)).toEqual(rows.files.map((f) => f.fileName));
    expect(packed.files.map((f) => f.keys)).toEqual(rows.files.map((f) => f.keys));
    for (const [i, f] of packed.files.entries()) expect(Buffer.from(joinFileData(f.parts)).equals(Buffer.from(joinFileData(rows.files[i]!.parts))), f.fileName).toBe(true);
  };

  it.each(['linear', 'z-order', 'hilbert'] as const)('the packed path writes the bytes of the row path (%s, MOR with logs)', async (layout) => {
    const base = fresh({ version: 9, type: 'MERGE_ON_READ', partitions: ['p'], filesPerPartition: 3, rowsPerFile: 400, logUpdates: 25 });
    await sameAsRows(await jobOf(base, 'p', { layout }));
  });

  // base files only: no merge, each field decoded for all rows when it is written (cluster-base.ts)
  it.each([
    ['linear', ['city', 'qty']],
    ['linear', ['part', 'id']],
    ['linear', ['flag', 'amount', 'ts']],
    ['z-order', ['qty', 'amount']],
    ['hilbert', ['ts', 'city']],
  ] as const)('base files only: the bytes of the row path (%s by %j; input row groups of 150, two outputs, rollover)', async (layout, sortColumns) => {
    const base = fresh({ version: 6, type: 'COPY_ON_WRITE', partitions: ['p'], filesPerPartition: 4, rowsPerFile: 400, rowGroupSize: 150, seed: 3 });
    await sameAsRows(await jobOf(base, 'p', { layout, sortColumns: [...sortColumns] }));
    // a target size that rolls each output over into several files
    await sameAsRows(await jobOf(base, 'p', { layout, sortColumns: [...sortColumns], targetFileMaxBytes: 20_000 }));
  });
});

describe('space-filling curves as Hudi builds them', () => {
  it('hilbert: the cells of a small cube are one contiguous run of the curve, each step to a neighbour', () => {
    for (const dims of [2, 3]) {
      const side = 4;
      const pts: bigint[][] = [];
      const rec = (p: bigint[]) => {
        if (p.length === dims) return void pts.push(p);
        for (let v = 0; v < side; v++) rec([...p, BigInt(v)]);
      };
      rec([]);
      const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
      const sorted = pts.map((p) => ({ p, k: hex(hilbertKey(p)) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
      expect(new Set(sorted.map((x) => x.k)).size).toBe(pts.length);
      expect(sorted[0]!.p.every((v) => v === 0n)).toBe(true);
      for (let i = 1; i < sorted.length; i++) {
        const d = sorted[i]!.p.reduce((n, v, j) => n + Math.abs(Number(v - sorted[i - 1]!.p[j]!)), 0);
        expect(d, `${sorted[i - 1]!.p} → ${sorted[i]!.p}`).toBe(1);
      }
      // the cube's cells come before any cell outside it
      const outside = hex(hilbertKey([BigInt(side), ...Array.from({ length: dims - 1 }, () => 0n)]));
      expect(sorted.at(-1)!.k < outside).toBe(true);
    }
  });

  it('z-order: Morton order of non-negative longs, first dimension most significant', () => {
    const cols: SortColumn[] = [{ name: 'x', index: 5, kind: 'long' }, { name: 'y', index: 6, kind: 'long' }];
    const pts: [number, number][] = [];
    for (let x = 0; x < 8; x++) for (let y = 0; y < 8; y++) pts.push([x, y]);
    const perm = sortPermutation(pts.length, cols, 'z-order', (c, i) => BigInt(pts[i]![c]!));
    const morton = (x: number, y: number) => {
      let z = 0;
      for (let b = 2; b >= 0; b--) z = (z << 2) | (((x >> b) & 1) << 1) | ((y >> b) & 1);
      return z;
    };
    expect([...perm].map((i) => morton(...pts[i]!))).toEqual(pts.map((_, i) => i));
  });

  it("dimension order follows Java's HashMap<Integer, …> over the schema positions", () => {
    expect(javaIntHashMapOrder([7, 2, 5])).toEqual([2, 5, 7]);
    expect(javaIntHashMapOrder([17, 2])).toEqual([17, 2]); // buckets 1 and 2 of a 16-slot table
  });
});
