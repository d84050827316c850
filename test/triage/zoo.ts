// A demo table with many triage findings at once (collisions of every kind the listing and write stats
// show, pending writers with and without heartbeats, a Flink sink dir inside the table), built with the
// project's own writers; every file's mtime is then set to one fixed time so the table is the same on
// every run (layout-1 completion times and orphan ages come from mtimes).
import { copyFileSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TableBuilder, stat } from './build.ts';
import { demoTable } from './support.ts';

const US = 'region=us';
const EU = 'region=eu';
const APAC = 'region=apac';
const id = (n: number) => `${n.toString(16).padStart(8, 'a')}-7a41-4b8e-9c1d-5e6f7a8b9c0d-0`;
const B1a = '00000001-aaaa-4bbb-8ccc-000000000001-0';
const B1b = '00000001-aaaa-4bbb-8ccc-000000000002-0';
const B7 = '00000007-aaaa-4bbb-8ccc-000000000003-0';

/** Sets the mtime of every file and directory below `dir` (and `dir` itself) to `at`. */
export function setAllMtimes(dir: string, at: Date): void {
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) utimesSync(join(e.parentPath, e.name), at, at);
  utimesSync(dir, at, at);
}

export async function zooTable(version: 6 | 8, now: Date): Promise<string> {
  const { dir, demo } = await demoTable(version, now);
  const b = await TableBuilder.open(dir, now);

  // a commit writes a base file into the file group the demo's pending compaction plan holds
  {
    const plan = demo.problems.find((p) => p.kind === 'pending-compaction')!;
    const rt = b.t(61);
    const base = readdirSync(join(dir, plan.partition!)).find((n) => n.startsWith(plan.fileId!) && n.endsWith('.parquet'))!;
    const rel = await b.base(plan.partition!, plan.fileId!, rt, ['ord-eu-0001'], '0-5-5');
    await b.commit('commit', rt, b.t(60), [stat(rel, plan.fileId!, plan.partition!, base.split('_')[2]!.split('.')[0]!)]);
  }

  // service race: a clustering replaces a file group while (layout 2) / before (layout 1) its creator completes
  {
    const X = id(1);
    const w = b.t(100);
    const c = b.t(95);
    const xBase = await b.base(US, X, w, ['ord-us-0900']);
    await b.start('deltacommit', w, [stat(null, X, US, null)]);
    if (version === 8) {
      await b.start('clustering', c, [], b.clusteringPlan([{ partition: US, fileId: X, dataFile: xBase }]));
      await b.complete('deltacommit', 'deltacommit', w, b.t(90), [stat(xBase, X, US, null)]);
      const yBase = await b.base(US, id(2), c, ['ord-us-0900']);
      await b.complete('clustering', 'replacecommit', c, b.t(85), [stat(yBase, id(2), US, null)], { operationType: 'CLUSTER', replaced: { [US]: [X] } });
    } else {
      b.heartbeat(w);
      await b.start('replacecommit', c, [], b.clusteringPlan([{ partition: US, fileId: X, dataFile: xBase }]));
    }
  }

  // two writers create one fileId with overlapping windows
  {
    const X = id(3);
    const w1 = b.t(80);
    const w2 = b.t(78);
    await b.start('deltacommit', w1, [stat(null, X, EU, null)]);
    await b.start('deltacommit', w2, [stat(null, X, EU, null)]);
    const x1 = await b.base(EU, X, w1, ['ord-eu-0800'], '0-1-1');
    const x2 = await b.base(EU, X, w2, ['ord-eu-0801'], '3-4-5');
    await b.complete('deltacommit', 'deltacommit', w2, b.t(76), [stat(x2, X, EU, null)]);
    await b.complete('deltacommit', 'deltacommit', w1, b.t(74), [stat(x1, X, EU, null)]);
  }

  // log appends: layout 2 overlapping windows, layout 1 one log version written twice
  {
    const X = id(4);
    const w0 = b.t(72);
    const x0 = await b.base(EU, X, w0, ['ord-eu-0810', 'ord-eu-0811']);
    await b.commit('deltacommit', w0, b.t(71), [stat(x0, X, EU, null)]);
    const d1 = b.t(70);
    const d2 = b.t(69);
    if (version === 8) {
      await b.start('deltacommit', d1, [stat(null, X, EU, w0)]);
      await b.start('deltacommit', d2, [stat(null, X, EU, w0)]);
      const l1 = await b.log(EU, X, d1, 1, '0-1-1', d1, ['ord-eu-0810']);
      const l2 = await b.log(EU, X, d2, 1, '1-2-3', d2, ['ord-eu-0811']);
      await b.complete('deltacommit', 'deltacommit', d2, b.t(68), [stat(l2, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
      await b.complete('deltacommit', 'deltacommit', d1, b.t(67), [stat(l1, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
    } else {
      const l1 = await b.log(EU, X, w0, 1, '0-7-7', d1, ['ord-eu-0810']);
      const l2 = await b.log(EU, X, w0, 1, '1-8-9', d2, ['ord-eu-0811']);
      await b.commit('deltacommit', d1, b.t(68), [stat(l1, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
      await b.commit('deltacommit', d2, b.t(67), [stat(l2, X, EU, w0, { logVersion: 1, logOffset: 0 })]);
    }
  }

  // bucket-shaped fileIds (findings only with --bucket-index), and a key in two file groups (only with --keys)
  {
    const w = b.t(66);
    const files = {
      [B1a]: await b.base(APAC, B1a, w, ['ord-apac-0901']),
      [B1b]: await b.base(APAC, B1b, w, ['ord-apac-0902'], '1-1-2'),
      [B7]: await b.base(APAC, B7, w, ['ord-apac-0903'], '2-1-3'),
      [id(5)]: await b.base(APAC, id(5), w, ['ord-apac-0001', 'ord-apac-0904'], '3-1-4'),
    };
    await b.commit('deltacommit', w, b.t(65), Object.entries(files).map(([fid, rel]) => stat(rel, fid, APAC, null)));
    // a retried task wrote one base file twice: same instant, another write token
    const [p, name] = files[id(5)]!.split('/') as [string, string];
    copyFileSync(join(dir, p, name), join(dir, p, name.replace('_3-1-4_', '_3-9-9_')));
  }

  // pending writers: one with a live heartbeat, one with none, one removed from the timeline (files left)
  {
    const alive = b.t(64);
    const silent = b.t(63);
    const aBase = await b.base(US, id(6), alive, ['ord-us-0950']);
    await b.start('deltacommit', alive, [stat(null, id(6), US, null)]);
    b.heartbeat(alive);
    await b.base(US, id(7), silent, ['ord-us-0951']);
    await b.start('deltacommit', silent, [stat(null, id(7), US, null)]);
    await b.base(EU, id(8), b.t(62), ['ord-eu-0952']);
    mkdirSync(join(dir, '.hoodie', '.temp', b.t(62), EU), { recursive: true });
    writeFileSync(join(dir, '.hoodie', '.temp', b.t(62), EU, `${aBase.split('/')[1]}.marker.CREATE`), '');
  }

  // a Flink sink dir inside the table: part files, a stray Hudi file, a finished part file
  {
    const sink = join(dir, 'flink_sink', 'dt=2024-01-01');
    mkdirSync(sink, { recursive: true });
    for (const n of ['.part-7c1e2a4b-0-3.inprogress.5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f', 'part-7c1e2a4b-1-2.pending.9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', 'part-7c1e2a4b-0-1']) {
      writeFileSync(join(sink, n), 'PAR1');
    }
    writeFileSync(join(dir, 'flink_sink', '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d-0_0-1-1_20240101000000000.parquet'), 'PAR1');
  }

  setAllMtimes(dir, new Date(now.getTime() - 5_000));
  return dir;
}
