#!/usr/bin/env node
// archival benchmark: `trigger archival` of 10,000 instants (30,000 timeline files: requested, inflight,
// completed of each delta commit) of a MERGE_ON_READ table with 10,020 delta commits (gen-timeline.mjs),
// for table version 6 (a .hoodie/archived log file of HoodieArchivedMetaEntry records: each JSON commit
// decoded and re-encoded as Avro) and 8 (an LSM parquet file of the raw bytes, manifest, version).
// Floor, measured in the same run on the same files: a process that lists the timeline, reads those
// 30,000 files and writes their bytes once into one file. Each run archives a fresh copy of the table;
// runs alternate floor / library / CLI. Never asserted.
//
//   node bench/archival.mjs [--instants 10000] [--runs 3] [--layout 1|2]
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = new URL('..', import.meta.url).pathname;
const out = join(repo, 'node_modules/.cache/tblcli-bench-archival');
const lib = join(out, 'lib.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('instants', 10000);
const KEEP = 20;
const RUNS = arg('runs', 3);

if (process.argv[2] === '--child') {
  const { openTable, triggerArchival } = await import(pathToFileURL(lib).href);
  const t0 = performance.now();
  const at = {};
  const onPoint = (p) => {
    at[p] = performance.now() - t0;
  };
  const r = await triggerArchival(await openTable(process.argv[3]), { minCommits: KEEP, maxCommits: KEEP + 10, clockSkewMs: 0, onPoint });
  const ms = performance.now() - t0;
  // the deletes: from the archive being complete to the last completed file gone
  const written = at['after-archive-file'] ?? at['after-lsm-version'];
  process.stdout.write(JSON.stringify({ ms, deleteMs: at['after-delete'] - written, archived: r.decision.toArchive.length, deleted: r.deletedFiles, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

if (process.argv[2] === '--floor') {
  // list the timeline, read the files of the oldest N instants, write their bytes once
  const t0 = performance.now();
  const dir = process.argv[3];
  const n = Number(process.argv[4]);
  const names = readdirSync(dir).filter((f) => /^\d/.test(f)).sort();
  const times = [...new Set(names.map((f) => f.slice(0, 17)))].slice(0, n);
  const wanted = new Set(times);
  const parts = [];
  for (const f of names) if (wanted.has(f.slice(0, 17))) parts.push(readFileSync(join(dir, f)));
  writeFileSync(join(dir, '..', 'floor.out'), Buffer.concat(parts));
  const ms = performance.now() - t0;
  // not part of the floor: deleting the same files in the archiver's order (pending, then completed ascending)
  const mine = names.filter((f) => wanted.has(f.slice(0, 17)));
  const t1 = performance.now();
  for (const f of mine) if (f.endsWith('.requested') || f.endsWith('.inflight')) unlinkSync(join(dir, f));
  for (const f of mine) if (!f.endsWith('.requested') && !f.endsWith('.inflight')) unlinkSync(join(dir, f));
  process.stdout.write(JSON.stringify({ ms, deleteMs: performance.now() - t1, files: parts.length, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

mkdirSync(out, { recursive: true });
const entry = join(out, 'entry.ts');
writeFileSync(entry, `export { openTable } from '${repo}src/table/index.ts';\nexport { triggerArchival } from '${repo}src/services/archival/index.ts';\n`);
await build({ entryPoints: [entry], bundle: true, outfile: lib, format: 'esm', platform: 'node', packages: 'external', logLevel: 'error' });
if (!existsSync(join(repo, 'dist', 'bench-lib.js')) || !existsSync(join(repo, 'dist'))) {
  console.error('run `npm run build` first (bench/gen-timeline.mjs and bin/tblcli.js use dist/)');
  process.exit(1);
}
const { generateTimelineTable } = await import(pathToFileURL(join(repo, 'bench', 'gen-timeline.mjs')).href);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const json = (r) => {
  if (r.status !== 0) throw new Error(`${r.stderr}`);
  return JSON.parse(r.stdout);
};

const LAYOUTS = process.argv.includes('--layout') ? [arg('layout', 1)] : [1, 2];
for (const layout of LAYOUTS) {
  const template = join(out, `table-l${layout}-${N + KEEP}`);
  if (!existsSync(join(template, '.complete'))) {
    rmSync(template, { recursive: true, force: true });
    await generateTimelineTable(template, layout, N + KEEP);
  }
  const tl = (base) => (layout === 2 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie'));
  const floor = [];
  const floorDel = [];
  const libMs = [];
  const libDel = [];
  const cli = [];
  let rss = 0;
  let archived = 0;
  for (let run = 0; run < RUNS; run++) {
    const copy = (name) => {
      const d = join(out, `run-${name}`);
      rmSync(d, { recursive: true, force: true });
      cpSync(template, d, { recursive: true });
      // on disk before the run, as a real timeline is: no run pays for the writeback of an earlier copy
      spawnSync('sync');
      return d;
    };
    const f = json(spawnSync(process.execPath, [import.meta.filename, '--floor', tl(copy('floor')), String(N)], { encoding: 'utf8' }));
    floor.push(f.ms);
    floorDel.push(f.deleteMs);
    const l = json(spawnSync(process.execPath, [import.meta.filename, '--child', copy('lib'), '--instants', String(N)], { encoding: 'utf8' }));
    libMs.push(l.ms);
    libDel.push(l.deleteMs);
    rss = Math.max(rss, l.maxRssMB);
    archived = l.archived;
    const c = copy('cli');
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(repo, 'bin', 'tblcli.js'), 'trigger', 'archival', '--path', c, '--minCommits', String(KEEP), '--maxCommits', String(KEEP + 10)], { encoding: 'utf8' });
    cli.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(r.stderr);
    if (readdirSync(tl(c)).filter((x) => /^\d/.test(x)).length !== 3 * KEEP) throw new Error('the CLI run did not archive');
    if (f.files !== 3 * N) throw new Error(`floor read ${f.files} files`);
  }
  const fm = median(floor);
  const r = (x) => `${median(x).toFixed(0)} ms = ${(median(x) / fm).toFixed(2)}x`;
  console.log(
    `layout ${layout} (table version ${layout === 2 ? 8 : 6}): archived ${archived} instants (${3 * N} files), ${RUNS} runs, medians\n` +
      `  floor (list, read the files, write their bytes once) ${fm.toFixed(0)} ms [runs: ${floor.map((x) => x.toFixed(0)).join(', ')}]\n` +
      `  trigger archival, library ${r(libMs)}; CLI process ${r(cli)} (goal <= 2x) [library runs: ${libMs.map((x) => x.toFixed(0)).join(', ')}]\n` +
      `  of which deleting the archived files ${median(libDel).toFixed(0)} ms; the same unlinks alone, in a plain loop: ${median(floorDel).toFixed(0)} ms; peak RSS ${rss.toFixed(0)} MB`,
  );
}
for (const name of ['floor', 'lib', 'cli']) rmSync(join(out, `run-${name}`), { recursive: true, force: true });
