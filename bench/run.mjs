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

// stdout is read through a pipe, as a script reading the output would, and kept as bytes: decoding
// it into a string (encoding 'utf8') happens in this process after the child exits, and for a
// 20k-row table (15 MB) cost ~40 ms that were counted as the command's
function once(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median wall time of each command, the commands run in turn (a, b, c, a, b, c, …) so a burst of
 * noise from the host lands on all of them rather than on one side of a ratio. The first round
 * warms the page cache and is not counted.
 */
function timeEach(cmds, runs = RUNS) {
  const samples = cmds.map(() => []);
  for (let i = 0; i < runs + 1; i++) {
    cmds.forEach(([cmd, args], k) => {
      const ms = once(cmd, args);
      if (i > 0) samples[k].push(ms);
    });
  }
  return samples.map(median);
}

const results = {};
const bin = join(root, 'bin', 'tblcli.js');
const node = process.execPath;

const [bare, version] = timeEach([[node, ['-e', '0']], [node, [bin, '--version']]], 31);
results.startup = { bareNodeMs: bare, versionMs: version, ratio: version / bare, target: 1.3 };
console.log(`start-up: tblcli --version ${version.toFixed(1)} ms vs node -e 0 ${bare.toFixed(1)} ms → ${(version / bare).toFixed(2)}× (target ≤ 1.3×)`);

for (const layout of [1, 2]) {
  const dir = join(out, `timeline-${N}-L${layout}`);
  if (!existsSync(join(dir, '.complete'))) {
    console.log(`generating ${N} instants, layout ${layout} …`);
    await generateTimelineTable(dir, layout, N);
  }
  const [floor, floorAsync, show, showTable, limit, active] = timeEach([
    [node, [join(root, 'bench', 'floor-read.mjs'), dir, String(layout)]],
    [node, [join(root, 'bench', 'floor-read.mjs'), dir, String(layout), '--async']],
    [node, [bin, 'commits', 'show', '--path', dir, '--format', 'tsv']],
    [node, [bin, 'commits', 'show', '--path', dir]],
    [node, [bin, 'commits', 'show', '--limit', '20', '--path', dir]],
    [node, [bin, 'timeline', 'show', 'active', '--path', dir]],
  ]);
  results[`layout${layout}`] = { instants: N, floorMs: floor, floorAsyncMs: floorAsync, commitsShowTsvMs: show, commitsShowTableMs: showTable, commitsShowLimit20Ms: limit, timelineShowActiveMs: active, ratio: showTable / floor, target: 2 };
  console.log(
    `layout ${layout}, ${N} instants: commits show ${showTable.toFixed(0)} ms (tsv ${show.toFixed(0)} ms) vs floor ${floor.toFixed(0)} ms (sync reads) → ${(showTable / floor).toFixed(2)}× (target ≤ 2×); vs async-read floor ${floorAsync.toFixed(0)} ms → ${(showTable / floorAsync).toFixed(2)}×; --limit 20 ${limit.toFixed(0)} ms; timeline show active ${active.toFixed(0)} ms`,
  );
}
writeFileSync(join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
