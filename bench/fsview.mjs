// `show fsview latest` / `show fsview all` on a synthetic MOR table of 200,000 zero-byte files (base and
// log files in many partitions, with a matching layout-1 timeline) vs a listing-only floor (bench/fsview-floor.mjs)
// that lists the same directories and stats every entry (what LocalStorage.list does). Reported, never
// asserted; goal ≤ 2× the floor. Run `node scripts/build.mjs` first.
// Usage: node bench/fsview.mjs  (env BENCH_FSVIEW_PARTITIONS=200, BENCH_FSVIEW_GROUPS=250, BENCH_RUNS=5)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const PARTITIONS = Number(process.env.BENCH_FSVIEW_PARTITIONS ?? 200);
const GROUPS = Number(process.env.BENCH_FSVIEW_GROUPS ?? 250); // per partition; 1 base + 3 logs each
const LOGS_PER_GROUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FILES = PARTITIONS * GROUPS * (1 + LOGS_PER_GROUP);
const dir = join(root, '.bench-out', `fsview-${PARTITIONS}x${GROUPS}`);
const pad = (v, w) => String(v).padStart(w, '0');
const partitionName = (p) => `dt=2025-01-${pad((p % 28) + 1, 2)}/bucket=${pad(p, 4)}`;

function generate() {
  rmSync(dir, { recursive: true, force: true });
  const meta = join(dir, '.hoodie');
  mkdirSync(meta, { recursive: true });
  writeFileSync(
    join(meta, 'hoodie.properties'),
    ['hoodie.table.name=bench_fsview', 'hoodie.table.type=MERGE_ON_READ', 'hoodie.table.version=6', 'hoodie.timeline.layout.version=1',
      'hoodie.table.recordkey.fields=id', 'hoodie.table.partition.fields=dt,bucket', ''].join('\n'),
  );
  // one commit writes every base file; three deltacommits append one log version each (layout 1 naming)
  const base = '20250101000000000';
  const deltas = ['20250101010000000', '20250101020000000', '20250101030000000'];
  writeFileSync(join(meta, `${base}.commit.requested`), '');
  writeFileSync(join(meta, `${base}.inflight`), '');
  writeFileSync(join(meta, `${base}.commit`), '{}');
  for (const d of deltas) {
    writeFileSync(join(meta, `${d}.deltacommit.requested`), '');
    writeFileSync(join(meta, `${d}.deltacommit.inflight`), '');
    writeFileSync(join(meta, `${d}.deltacommit`), '{}');
  }
  const empty = new Uint8Array(0);
  for (let p = 0; p < PARTITIONS; p++) {
    const pdir = join(dir, partitionName(p));
    mkdirSync(pdir, { recursive: true });
    writeFileSync(join(pdir, '.hoodie_partition_metadata'), `#partition metadata\ncommitTime=${base}\npartitionDepth=2\n`);
    for (let g = 0; g < GROUPS; g++) {
      const fid = `${pad(p, 8)}-aaaa-bbbb-cccc-${pad(g, 12)}-0`;
      writeFileSync(join(pdir, `${fid}_0-1-0_${base}.parquet`), empty);
      for (let v = 1; v <= LOGS_PER_GROUP; v++) writeFileSync(join(pdir, `.${fid}_${base}.log.${v}_0-${v + 1}-0`), empty);
    }
  }
  writeFileSync(join(dir, '.complete'), '');
}

function time(args, runs = RUNS) {
  const samples = [];
  let out = '';
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    if (i > 0) samples.push(ms); // the first run warms the page cache
    out = r.stdout;
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], out };
}

if (!existsSync(join(root, 'dist', 'tblcli.js'))) throw new Error('run `node scripts/build.mjs` first');
if (!existsSync(join(dir, '.complete'))) {
  const t0 = Date.now();
  console.log(`generating ${FILES} zero-byte files in ${PARTITIONS} partitions under ${dir} …`);
  generate();
  console.log(`  generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
const bin = join(root, 'bin', 'tblcli.js');
const onePartition = partitionName(0);
const parts = Array.from({ length: PARTITIONS }, (_, p) => partitionName(p));
const allDirs = [dir, ...new Set(parts.map((p) => join(dir, p.split('/')[0]))), ...parts.map((p) => join(dir, p))];
const floor = join(root, 'bench', 'fsview-floor.mjs');
const dirsFile = (name, dirs) => {
  const f = join(root, '.bench-out', `fsview-dirs-${name}.json`);
  writeFileSync(f, JSON.stringify(dirs));
  return f;
};
const results = {};

const floorOne = time([floor, dirsFile('one', [join(dir, onePartition)])]);
const latest = time([bin, 'show', 'fsview', 'latest', '--path', dir, '--partitionPath', onePartition, '--json']);
const latestRows = JSON.parse(latest.out).length;
results.latest = { ms: latest.ms, floorMs: floorOne.ms, ratio: latest.ms / floorOne.ms, rows: latestRows, files: GROUPS * (1 + LOGS_PER_GROUP) };
console.log(
  `show fsview latest (1 partition, ${results.latest.files} files → ${latestRows} slices): ${latest.ms.toFixed(0)} ms vs listing floor ${floorOne.ms.toFixed(0)} ms → ${results.latest.ratio.toFixed(2)}× (goal ≤ 2×)`,
);

const floorAll = time([floor, dirsFile('all', allDirs)]);
const all = time([bin, 'show', 'fsview', 'all', '--path', dir, '--json']);
const allRows = JSON.parse(all.out).length;
results.all = { ms: all.ms, floorMs: floorAll.ms, ratio: all.ms / floorAll.ms, rows: allRows, files: FILES, listedByFloor: Number(floorAll.out) };
console.log(
  `show fsview all (${FILES} files in ${PARTITIONS} partitions → ${allRows} slices): ${all.ms.toFixed(0)} ms vs listing floor ${floorAll.ms.toFixed(0)} ms → ${results.all.ratio.toFixed(2)}× (goal ≤ 2×)`,
);
mkdirSync(join(root, '.bench-out'), { recursive: true });
writeFileSync(join(root, '.bench-out', 'fsview.json'), JSON.stringify(results, null, 2));
