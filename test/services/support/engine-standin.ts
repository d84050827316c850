// Stand-in `spark-submit`, `flink` and `yarn` executables for the engine tests (no Spark or Flink
// here). Each is a small node script written into a temp dir: it appends its argv, chosen environment
// variables and the content of the --props / --properties-file it was given to calls.jsonl, then does
// what the real one would, as behaviour.json says:
//   complete  take over the instant's heartbeat (HoodieCompactor's heartbeatClient.start replaces the
//             file; here it is removed so the local run can start its own), then execute exactly the
//             instant named by --instant-time / --target-instants with the built tblcli
//             (`compaction run --engine local --instant T --path B`, or `clustering run …
//             --clusteringInstant T` when the main class is a clustering job), exiting with its code
//             (or `exitCode`)
//   exit0     print the utility's "no scheduled compaction/clustering" line and exit 0, doing nothing
//   fail      print `errorLines` and exit `exitCode` (default 1)
//   crash     start the instant and die in the middle (the crash child, SIGKILLed after a base file
//             is written: inflight, markers, a partial file, its heartbeat left), then exit 1
//   hang      print a line and wait forever; SIGINT/SIGTERM are recorded in signals.jsonl
// HoodieCleaner (`--class org.apache.hudi.utilities.HoodieCleaner`, no instant on its command line)
// executes every pending clean as client.clean() does with multiple cleans off: `complete` runs
// `clean run --engine local` (all pending cleans; Hudi's cleaner writes no heartbeat, so the pending
// cleans' heartbeats are removed first), `crash` runs the clean child SIGKILLed after two deletions.
// `print` lines are printed first (application ids, job ids).
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleForTest } from '../../support/bundle.ts';
import { buildCleanChild } from './build-child.ts';
import { buildClusteringChild, buildCompactionChild } from './build-child.ts';

export interface Behaviour {
  mode: 'complete' | 'exit0' | 'fail' | 'crash' | 'hang';
  print?: string[];
  errorLines?: string[];
  exitCode?: number;
  /** the crash child's heartbeat expiry */
  heartbeatExpiryMs?: number;
  /** environment variables to record */
  recordEnv?: string[];
  /** ignore SIGTERM/SIGINT while hanging (a JVM whose shutdown hook hangs) */
  ignoreSignals?: boolean;
}

export interface Call {
  tool: string;
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  files: Record<string, string>;
}

const SCRIPT = String.raw`#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const cp = require('child_process');
const dir = __dirname;
const tool = path.basename(__filename);
const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'behaviour.json'), 'utf8'));
const argv = process.argv.slice(2);
const valueOf = (flag) => { const i = argv.indexOf(flag); return i >= 0 ? argv[i + 1] : undefined; };
const files = {};
for (const f of ['--props', '--properties-file']) {
  const p = valueOf(f);
  if (p && fs.existsSync(p)) files[p] = fs.readFileSync(p, 'utf8');
}
const env = {};
for (const k of cfg.recordEnv || []) env[k] = process.env[k];
fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify({ tool, argv, env, cwd: process.cwd(), files }) + '\n');
if (tool === 'yarn') { console.log('Killing application ' + argv[argv.length - 1]); process.exit(0); }
if (tool === 'flink' && argv[0] === 'cancel') { console.log('Cancelled job ' + argv[argv.length - 1] + '.'); process.exit(0); }
if (tool === 'spark-submit' && argv.includes('--kill')) { console.log('Killing submission ' + valueOf('--kill')); process.exit(0); }
for (const l of cfg.print || []) console.log(l);
const base = valueOf('--base-path') || valueOf('--path') || valueOf('--target-base-path');
const instant = valueOf('--instant-time') || valueOf('--target-instants');
const takeOverHeartbeat = () => fs.rmSync(path.join(base, '.hoodie', '.heartbeat', instant), { force: true });
if (argv.includes('org.apache.hudi.utilities.HoodieCleaner') && (cfg.mode === 'complete' || cfg.mode === 'crash')) {
  const pendingCleans = [path.join(base, '.hoodie'), path.join(base, '.hoodie', 'timeline')]
    .flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d) : []))
    .map((n) => /^(\d+)\.clean\.(requested|inflight)$/.exec(n))
    .filter(Boolean)
    .map((m) => m[1]);
  for (const t of pendingCleans) fs.rmSync(path.join(base, '.hoodie', '.heartbeat', t), { force: true });
  console.log('INFO HoodieCleaner: Cleaner started');
  if (cfg.mode === 'crash') {
    const r = cp.spawnSync(process.execPath, [cfg.cleanChild, base, JSON.stringify({ policy: 'KEEP_LATEST_COMMITS', crashAt: 'file-deleted', crashAfterFiles: 2, heartbeatExpiryMs: cfg.heartbeatExpiryMs })], { stdio: 'inherit' });
    console.error('ERROR HoodieCleaner: Fail to run cleaning for ' + base + ' (executor lost: ' + r.signal + ')');
    process.exit(1);
  }
  const r = cp.spawnSync(process.execPath, [cfg.cli, 'clean', 'run', '--engine', 'local', '--path', base], { stdio: 'inherit' });
  if (r.status === 0) console.log('INFO HoodieCleaner: Cleaner completed successfully');
  process.exit(cfg.exitCode !== undefined ? cfg.exitCode : r.status === null ? 1 : r.status);
}
const clustering = argv.includes('org.apache.hudi.utilities.HoodieClusteringJob') || argv.includes('org.apache.hudi.sink.clustering.HoodieFlinkClusteringJob');
const utility = clustering ? 'HoodieClusteringJob' : 'HoodieCompactor';
switch (cfg.mode) {
  case 'complete': {
    takeOverHeartbeat();
    const run = clustering ? ['clustering', 'run', '--engine', 'local', '--clusteringInstant', instant] : ['compaction', 'run', '--engine', 'local', '--instant', instant];
    const r = cp.spawnSync(process.execPath, [cfg.cli, ...run, '--path', base], { stdio: 'inherit' });
    process.exit(cfg.exitCode !== undefined ? cfg.exitCode : r.status === null ? 1 : r.status);
  }
  case 'exit0':
    console.log('INFO ' + utility + ': There is no scheduled ' + (clustering ? 'clustering' : 'compaction') + ' in the table.');
    process.exit(0);
  case 'fail':
    for (const l of cfg.errorLines || []) console.error(l);
    process.exit(cfg.exitCode !== undefined ? cfg.exitCode : 1);
  case 'crash': {
    takeOverHeartbeat();
    const r = cp.spawnSync(process.execPath, [clustering ? cfg.clusteringChild : cfg.child, base, JSON.stringify({ crashAt: 'after-base-file', heartbeatExpiryMs: cfg.heartbeatExpiryMs, metadataTable: 'update' })], { stdio: 'inherit' });
    console.error('ERROR ' + utility + ': Fail to run ' + (clustering ? 'clustering' : 'compaction') + ' for ' + base + ' (executor lost: ' + r.signal + ')');
    process.exit(1);
  }
  case 'hang': {
    const record = (s) => fs.appendFileSync(path.join(dir, 'signals.jsonl'), JSON.stringify({ tool, signal: s }) + '\n');
    for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { record(s); if (!cfg.ignoreSignals) process.exit(s === 'SIGINT' ? 130 : 143); });
    console.log('INFO running ' + instant);
    setInterval(() => {}, 1000);
    break;
  }
}
`;

export interface StandIns {
  dir: string;
  sparkSubmit: string;
  flink: string;
  yarn: string;
  behave(b: Behaviour): void;
  calls(): Call[];
  signals(): { tool: string; signal: string }[];
  /** PATH with the stand-ins and node first */
  path: string;
}

let cli: Promise<string> | undefined;
let child: Promise<string> | undefined;
let cleanChild: Promise<string> | undefined;
let clusteringChild: Promise<string> | undefined;

/** The CLI as a standalone script (built once per test process). */
export function builtCli(): Promise<string> {
  cli ??= bundleForTest('test/support/cli-entry.ts', 'tblcli.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
    external: ['ink', 'react', '@duckdb/node-api'],
  }).then((b) => b.path);
  return cli;
}

/** `clean: true` also builds the clean crash child (HoodieCleaner's `crash`). */
export async function makeStandIns(o: { clean?: boolean } = {}): Promise<StandIns> {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-standins-'));
  const [cliPath, childPath, clusteringChildPath, cleanChildPath] = await Promise.all([builtCli(), (child ??= buildCompactionChild()), (clusteringChild ??= buildClusteringChild()), o.clean ? (cleanChild ??= buildCleanChild()) : undefined]);
  for (const tool of ['spark-submit', 'flink', 'yarn']) {
    writeFileSync(join(dir, tool), SCRIPT);
    chmodSync(join(dir, tool), 0o755);
  }
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return {
    dir,
    sparkSubmit: join(dir, 'spark-submit'),
    flink: join(dir, 'flink'),
    yarn: join(dir, 'yarn'),
    behave: (b) => writeFileSync(join(dir, 'behaviour.json'), JSON.stringify({ ...b, cli: cliPath, child: childPath, clusteringChild: clusteringChildPath, cleanChild: cleanChildPath })),
    calls: () => read('calls.jsonl') as Call[],
    signals: () => read('signals.jsonl'),
    path: `${dir}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  };
}
