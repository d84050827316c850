// Each remaining collision case written as a real table (demo table + instants and files from the
// project's writers), asserting the exact finding: kind, severity, partition, fileId, instants, files.
import { describe, expect, it } from 'vitest';
import { findCollisions, type Finding } from '../../src/triage/index.ts';
import { TableBuilder, stat } from './build.ts';
import { demoTable, scanOf, viewOf } from './support.ts';

const X = '3f0c9d2e-7a41-4b8e-9c1d-5e6f7a8b9c0d-0';
const Y = '8a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-0';
const US = 'region=us';
const EU = 'region=eu';

function only(findings: Finding[], kind: Finding['kind']) {
  const f = findings.filter((x) => x.kind === kind);
  expect(f, `${kind}: ${JSON.stringify(findings.map((x) => [x.kind, x.fileId, x.instants]))}`).toHaveLength(1);
  return f[0]!;
}

function pick(f: Finding) {
  return { kind: f.kind, severity: f.severity, partition: f.partition, fileId: f.fileId, instants: f.instants, files: f.files };
}

describe('service-race (create_file_id == delete_file_id)', () => {
  it('layout 2: a clustering replacecommit, started inside the window of the writer that created the fileId, replaces it', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w = b.t(60);
    const c = b.t(50);
    const xBase = await b.base(US, X, w, ['ord-us-0900']);
    await b.start('deltacommit', w, [stat(null, X, US, null)]);
    await b.start('clustering', c, [], b.clusteringPlan([{ partition: US, fileId: X, dataFile: xBase }]));
    await b.complete('deltacommit', 'deltacommit', w, b.t(40), [stat(xBase, X, US, null)]);
    const yBase = await b.base(US, Y, c, ['ord-us-0900']);
    await b.complete('clustering', 'replacecommit', c, b.t(30), [stat(yBase, Y, US, null)], { operationType: 'CLUSTER', replaced: { [US]: [X] } });

    const findings = await findCollisions(await scanOf(dir, now));
    const f = only(findings, 'service-race');
    expect(pick(f)).toEqual({ kind: 'service-race', severity: 'error', partition: US, fileId: X, instants: [w, c], files: [xBase] });
    expect(f.evidence).toContain(`create_file_id == delete_file_id = ${X}`);
    expect(f.nextStep).toContain('Pause async compaction / clustering');
    // the clustering's own new file group is not a second "creator", and nothing else is reported for X or Y
    expect(findings.filter((x) => x.fileId === X || x.fileId === Y).map((x) => x.kind)).toEqual(['service-race']);
  });

  it('layout 2: the same writer and clustering one after the other → no race', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w = b.t(60);
    const c = b.t(50);
    const xBase = await b.base(US, X, w, ['ord-us-0900']);
    await b.commit('deltacommit', w, b.t(55), [stat(xBase, X, US, null)]);
    await b.start('clustering', c, [], b.clusteringPlan([{ partition: US, fileId: X, dataFile: xBase }]));
    const yBase = await b.base(US, Y, c, ['ord-us-0900']);
    await b.complete('clustering', 'replacecommit', c, b.t(30), [stat(yBase, Y, US, null)], { operationType: 'CLUSTER', replaced: { [US]: [X] } });
    expect((await findCollisions(await scanOf(dir, now))).filter((x) => x.fileId === X || x.fileId === Y)).toEqual([]);
  });

  it('layout 1: a pending clustering plan names the fileId an inflight writer is creating', async () => {
    const now = new Date();
    const { dir } = await demoTable(6, now);
    const b = await TableBuilder.open(dir, now);
    const w = b.t(20);
    const c = b.t(10);
    await b.start('deltacommit', w, [stat(null, X, US, null)]);
    b.heartbeat(w);
    const xBase = await b.base(US, X, w, ['ord-us-0900']);
    await b.start('replacecommit', c, [], b.clusteringPlan([{ partition: US, fileId: X, dataFile: xBase }]));

    const findings = await findCollisions(await scanOf(dir, now));
    const f = only(findings, 'service-race');
    // the inflight workload names no paths: the files come from the listing
    expect(pick(f)).toEqual({ kind: 'service-race', severity: 'error', partition: US, fileId: X, instants: [w, c], files: [xBase] });
    expect(f.evidence).toContain(`held by pending clustering plan ${c}`);
  });
});

describe('overlapping-writers', () => {
  it('layout 2: two writers create the same fileId with overlapping inflight windows', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w1 = b.t(60);
    const w2 = b.t(50);
    await b.start('deltacommit', w1, [stat(null, X, EU, null)]);
    await b.start('deltacommit', w2, [stat(null, X, EU, null)]);
    const x1 = await b.base(EU, X, w1, ['ord-eu-0800'], '0-1-1');
    const x2 = await b.base(EU, X, w2, ['ord-eu-0801'], '3-4-5');
    await b.complete('deltacommit', 'deltacommit', w2, b.t(40), [stat(x2, X, EU, null)]);
    await b.complete('deltacommit', 'deltacommit', w1, b.t(30), [stat(x1, X, EU, null)]);

    const findings = await findCollisions(await scanOf(dir, now));
    const f = only(findings.filter((x) => x.fileId === X), 'overlapping-writers');
    expect(pick(f)).toEqual({ kind: 'overlapping-writers', severity: 'error', partition: EU, fileId: X, instants: [w1, w2], files: [x1, x2].sort() });
    expect(f.nextStep).toContain('how many jobs write this table path');
    // overlapping creators are one finding, not also a duplicate-create; the demo's sequential creators stay a duplicate-create
    expect(findings.filter((x) => x.fileId === X)).toHaveLength(1);
    const planted = demo.problems.find((p) => p.kind === 'fileid-collision')!;
    expect(findings.filter((x) => x.fileId === planted.fileId).map((x) => x.kind)).toEqual(['duplicate-create']);
  });

  it('layout 2: an update overlapping the creating writer → error; after it completed → nothing', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w1 = b.t(60);
    const w2 = b.t(50);
    const w3 = b.t(20);
    const x1 = await b.base(EU, X, w1, ['ord-eu-0800']);
    await b.start('deltacommit', w1, [stat(null, X, EU, null)]);
    const l2 = await b.log(EU, X, w2, 1, '1-2-3', w2, ['ord-eu-0800']);
    await b.commit('deltacommit', w2, b.t(45), [stat(l2, X, EU, w1, { logVersion: 1, logOffset: 0 })]);
    await b.complete('deltacommit', 'deltacommit', w1, b.t(40), [stat(x1, X, EU, null)]);
    const l3 = await b.log(EU, X, w3, 1, '1-2-4', w3, ['ord-eu-0800']);
    await b.commit('deltacommit', w3, b.t(15), [stat(l3, X, EU, w1, { logVersion: 1, logOffset: 0 })]);

    const findings = (await findCollisions(await scanOf(dir, now))).filter((x) => x.fileId === X);
    expect(findings.map(pick)).toEqual([{ kind: 'overlapping-writers', severity: 'error', partition: EU, fileId: X, instants: [w1, w2], files: [x1, l2].sort() }]);
  });
});

describe('overlapping-log-appends', () => {
  it('layout 2: two deltacommits with overlapping windows append log files to one file group', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w0 = b.t(90);
    const x0 = await b.base(EU, X, w0, ['ord-eu-0800', 'ord-eu-0801']);
    await b.commit('deltacommit', w0, b.t(89), [stat(x0, X, EU, null)]);
    const d1 = b.t(60);
    const d2 = b.t(50);
    await b.start('deltacommit', d1, [stat(null, X, EU, w0)]);
    await b.start('deltacommit', d2, [stat(null, X, EU, w0)]);
    const l1 = await b.log(EU, X, d1, 1, '0-1-1', d1, ['ord-eu-0800']);
    const l2 = await b.log(EU, X, d2, 1, '1-2-3', d2, ['ord-eu-0801']);
    await b.complete('deltacommit', 'deltacommit', d2, b.t(40), [stat(l2, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
    await b.complete('deltacommit', 'deltacommit', d1, b.t(30), [stat(l1, X, EU, w0, { logVersion: 1, logOffset: 0 })]);

    const findings = (await findCollisions(await scanOf(dir, now))).filter((x) => x.fileId === X);
    expect(findings.map(pick)).toEqual([{ kind: 'overlapping-log-appends', severity: 'warning', partition: EU, fileId: X, instants: [d1, d2], files: [l1, l2].sort() }]);
    expect(findings[0]!.evidence).toContain('appended by overlapping instants');
  });

  it('layout 1: two deltacommits each wrote log version 2 of one slice (different write tokens)', async () => {
    const now = new Date();
    const { dir } = await demoTable(6, now);
    const b = await TableBuilder.open(dir, now);
    const w0 = b.t(90);
    const x0 = await b.base(EU, X, w0, ['ord-eu-0800', 'ord-eu-0801']);
    await b.commit('deltacommit', w0, b.t(89), [stat(x0, X, EU, null)]);
    const d0 = b.t(80);
    const l0 = await b.log(EU, X, w0, 1, '0-1-1', d0, ['ord-eu-0800']);
    await b.commit('deltacommit', d0, b.t(79), [stat(l0, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
    const d1 = b.t(60);
    const d2 = b.t(50);
    const l1 = await b.log(EU, X, w0, 2, '0-7-7', d1, ['ord-eu-0800']);
    const l2 = await b.log(EU, X, w0, 2, '1-8-9', d2, ['ord-eu-0801']);
    await b.commit('deltacommit', d1, b.t(59), [stat(l1, X, EU, w0, { logVersion: 2, logOffset: 0 })]);
    await b.commit('deltacommit', d2, b.t(49), [stat(l2, X, EU, w0, { logVersion: 2, logOffset: 0 })]);

    const findings = (await findCollisions(await scanOf(dir, now))).filter((x) => x.fileId === X);
    expect(findings.map(pick)).toEqual([{ kind: 'overlapping-log-appends', severity: 'warning', partition: EU, fileId: X, instants: [d1, d2], files: [l1, l2].sort() }]);
    expect(findings[0]!.evidence).toContain(`log version ${w0}.2 of file group ${X} written by 2 writers (write tokens 0-7-7, 1-8-9)`);
  });
});

describe('bucket index', () => {
  const B1a = '00000001-aaaa-4bbb-8ccc-000000000001-0';
  const B1b = '00000001-aaaa-4bbb-8ccc-000000000002-0';
  const B7 = '00000007-aaaa-4bbb-8ccc-000000000003-0';
  const B2 = '00000002-aaaa-4bbb-8ccc-000000000004-0';

  it('two fileIds with bucket 1 in one partition, and bucket 7 of 4', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w = b.t(30);
    const files = {
      [B1a]: await b.base(US, B1a, w, ['ord-us-0901']),
      [B1b]: await b.base(US, B1b, w, ['ord-us-0902'], '1-1-2'),
      [B7]: await b.base(US, B7, w, ['ord-us-0903'], '2-1-3'),
      [B2]: await b.base(US, B2, w, ['ord-us-0904'], '3-1-4'),
    };
    await b.commit('deltacommit', w, b.t(29), Object.entries(files).map(([id, rel]) => stat(rel, id, US, null)));

    const scan = await scanOf(dir, now);
    const findings = await findCollisions(scan, { bucketIndex: 4 });
    expect(pick(only(findings, 'bucket-duplicate'))).toEqual({
      kind: 'bucket-duplicate',
      severity: 'error',
      partition: US,
      fileId: `${B1a},${B1b}`,
      instants: [w],
      files: [files[B1a], files[B1b]].sort(),
    });
    expect(pick(only(findings, 'bucket-out-of-range'))).toEqual({ kind: 'bucket-out-of-range', severity: 'error', partition: US, fileId: B7, instants: [w], files: [files[B7]] });
    expect(only(findings, 'bucket-out-of-range').evidence).toContain('has bucket 7, but the table has 4 buckets (--bucket-index)');
    // with 8 buckets, 7 is in range; the duplicate stays
    const wide = await findCollisions(scan, { bucketIndex: 8 });
    expect(wide.filter((x) => x.kind === 'bucket-out-of-range')).toEqual([]);
    expect(wide.filter((x) => x.kind === 'bucket-duplicate')).toHaveLength(1);
  });
});

describe('--keys', () => {
  it('a record key in two file groups of one partition', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(8, now);
    const b = await TableBuilder.open(dir, now);
    const w = b.t(30);
    const g = await b.base(EU, X, w, ['ord-eu-0002', 'ord-eu-0700']);
    await b.commit('deltacommit', w, b.t(29), [stat(g, X, EU, null)]);
    // the demo's file group B in region=eu holds ord-eu-0001..0004 (its pending compaction is merged in)
    const fidB = demo.problems.find((p) => p.kind === 'pending-compaction')!.fileId!;
    const scan = await scanOf(dir, now);
    const sliceB = (await viewOf(dir)).latestMergedFileSlices(EU).find((s) => s.fileId === fidB)!;
    const filesB = [sliceB.baseFile!.name, ...sliceB.logFiles.map((l) => l.name)].map((n) => `${EU}/${n}`);
    expect(filesB).toHaveLength(2);

    expect((await findCollisions(scan)).filter((x) => x.kind === 'duplicate-keys')).toEqual([]);
    const findings = await findCollisions(scan, { keys: true });
    const f = only(findings, 'duplicate-keys');
    expect(pick(f)).toEqual({ kind: 'duplicate-keys', severity: 'error', partition: EU, fileId: [fidB, X].sort().join(','), instants: [sliceB.baseInstant, w].sort(), files: [...filesB, g].sort() });
    expect(f.evidence).toMatch(new RegExp(`^1 record key\\(s\\) in more than one file group of '${EU}': ord-eu-0002 in `));
    expect(f.nextStep).toContain('index.bootstrap.enabled=true');
  });
});
