// npm run bench: start-up and timeline benchmarks, reported as ratios against floors measured in
// the same run (never asserted in tests). Writes bench results to .bench-out/results.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTimelineTable } from './gen-timeline.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.bench-out');
mkdirSync(out, { recursive: true });
const N = Number(process.env.BENCH_INSTANTS ?? 20000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

function time(cmd, args, runs = RUNS) {
  const samples = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    if (i > 0) samples.push(ms); // first run warms the page cache
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const results = {};
const bin = join(root, 'bin', 'tblcli.js');
const node = process.execPath;

const bare = time(node, ['-e', '0'], 31);
const version = time(node, [bin, '--version'], 31);
results.startup = { bareNodeMs: bare, versionMs: version, ratio: version / bare, target: 1.3 };
console.log(`start-up: tblcli --version ${version.toFixed(1)} ms vs node -e 0 ${bare.toFixed(1)} ms → ${(version / bare).toFixed(2)}× (target ≤ 1.3×)`);

for (const layout of [1, 2]) {
  const dir = join(out, `timeline-${N}-L${layout}`);
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating ${N} instants, layout ${layout} …`);
    await generateTimelineTable(dir, layout, N);
  }
  const floor = time(node, [join(root, 'bench', 'floor-read.mjs'), dir, String(layout)]);
  const floorAsync = time(node, [join(root, 'bench', 'floor-read.mjs'), dir, String(layout), '--async']);
  const show = time(node, [bin, 'commits', 'show', '--path', dir, '--format', 'tsv']);
  const showTable = time(node, [bin, 'commits', 'show', '--path', dir]);
  const limit = time(node, [bin, 'commits', 'show', '--limit', '20', '--path', dir]);
  const active = time(node, [bin, 'timeline', 'show', 'active', '--path', dir]);
  results[`layout${layout}`] = { instants: N, floorMs: floor, floorAsyncMs: floorAsync, commitsShowTsvMs: show, commitsShowTableMs: showTable, commitsShowLimit20Ms: limit, timelineShowActiveMs: active, ratio: showTable / floor, target: 2 };
  console.log(
    `layout ${layout}, ${N} instants: commits show ${showTable.toFixed(0)} ms (tsv ${show.toFixed(0)} ms) vs floor ${floor.toFixed(0)} ms (sync reads) → ${(showTable / floor).toFixed(2)}× (target ≤ 2×); vs async-read floor ${floorAsync.toFixed(0)} ms → ${(showTable / floorAsync).toFixed(2)}×; --limit 20 ${limit.toFixed(0)} ms; timeline show active ${active.toFixed(0)} ms`,
  );
}
writeFileSync(join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
