// `--engine local|spark|flink` and its settings, shared by the table-service commands that can hand
// their execution to Hudi's Spark or Flink utilities (compaction, clean; clustering next).
// Every setting flag is also a key of --engine-conf and a TBLCLI_ENGINE_<KEY> variable.
import { TblError } from '../src/errors/index.ts';
import type { Ctx } from './context.ts';
import type { OptionSpec, Opts } from './spec.ts';
import { wantsJson } from './shared.ts';
import { statusNote } from './service-options.ts';

type Engine = typeof import('../src/services/engine/index.ts');

function collectPair(v: string, prev: unknown): string[] {
  if (!/^[^=\s]+=/.test(v)) throw new Error(`expected key=value, got '${v}'`);
  return [...((prev as string[] | undefined) ?? []), v];
}

export const ENGINE_OPTIONS: OptionSpec[] = [
  { flags: '--engine <engine>', description: "who executes the instant: local (tblcli itself, the default), spark (Hudi's utilities via spark-submit) or flink (flink run); env TBLCLI_ENGINE" },
  { flags: '--engine-conf <file>', description: 'engine settings, YAML or .properties, keyed like these flags without -- (env TBLCLI_ENGINE_CONF)' },
  { flags: '--dry-run', description: 'write nothing: show the plan the run would take (with spark or flink: also check the lock and the heartbeat and print the engine command line)' },
  { flags: '--engine-log <file>', description: "append the engine's output to this file instead of stderr" },
  { flags: '--bundle <jar>', description: 'hudi-utilities-bundle (spark) or hudi-flink bundle jar: a path or URI (env HUDI_UTILITIES_BUNDLE, HUDI_FLINK_BUNDLE)' },
  { flags: '--jars <jars>', description: 'extra jars, comma-separated (spark-submit --jars, flink run -C)' },
  { flags: '--props <file>', description: "Hudi properties file for the utility's --props (local path or DFS URI)" },
  { flags: '--hoodie-conf <key=value>', description: 'Hudi setting for the utility, repeatable (secret keys go to a private --props file, never on the command line)', parse: collectPair },
  { flags: '--retry <n>', description: "the utility's --retry (extra attempts inside the engine)" },
  { flags: '--base-path <uri>', description: 'the table path as the engine sees it (default: the path tblcli opened)' },
  { flags: '--stop-grace <duration>', description: 'after a forwarded signal or --max-duration, kill the engine if it has not exited (default 30s)' },
  { flags: '--yarn <path>', description: 'yarn CLI that kills the YARN application when the run is stopped (default $HADOOP_HOME/bin/yarn, then PATH)' },
  { flags: '--spark-submit <path>', description: 'spark-submit to run (default $SPARK_HOME/bin/spark-submit, then PATH)' },
  { flags: '--spark-home <dir>', description: 'SPARK_HOME' },
  { flags: '--master <url>', description: 'spark-submit --master: yarn, k8s://https://host:port, local[*], spark://…' },
  { flags: '--deploy-mode <mode>', description: 'spark-submit --deploy-mode: client or cluster' },
  { flags: '--queue <queue>', description: 'spark-submit --queue (YARN)' },
  { flags: '--name <name>', description: 'spark-submit --name' },
  { flags: '--driver-memory <mem>', description: 'spark-submit --driver-memory' },
  { flags: '--executor-memory <mem>', description: 'spark-submit --executor-memory' },
  { flags: '--executor-cores <n>', description: 'spark-submit --executor-cores' },
  { flags: '--num-executors <n>', description: 'spark-submit --num-executors' },
  { flags: '--spark-conf <key=value>', description: 'spark-submit --conf, repeatable (secret keys go to a private --properties-file)', parse: collectPair },
  { flags: '--properties-file <file>', description: 'spark-submit --properties-file' },
  { flags: '--principal <principal>', description: 'spark-submit --principal (with --keytab)' },
  { flags: '--keytab <file>', description: 'spark-submit --keytab' },
  { flags: '--flink <path>', description: 'flink CLI to run (default $FLINK_HOME/bin/flink, then PATH)' },
  { flags: '--flink-home <dir>', description: 'FLINK_HOME' },
  { flags: '--target <target>', description: 'flink run -t: yarn-per-job, yarn-application, kubernetes-application, remote, local …' },
  { flags: '--jobmanager <host:port>', description: 'flink run -m' },
  { flags: '--flink-parallelism <n>', description: 'flink run -p' },
  { flags: '--flink-conf <key=value>', description: 'flink run -Dkey=value, repeatable', parse: collectPair },
];

const camel = (key: string) => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function pairs(list: string[] | undefined): Record<string, string> | undefined {
  if (!list) return undefined;
  return Object.fromEntries(list.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** The engine these options name, and its settings (undefined for local). */
export async function engineFromOpts(ctx: Ctx, o: Opts, engine: Engine): Promise<import('../src/services/engine/index.ts').LoadedEngine> {
  const flags: Record<string, unknown> = {};
  for (const key of engine.SETTING_KEYS) {
    const v = o[camel(key)];
    if (v === undefined) continue;
    flags[key] = engine.SETTINGS[key].kind === 'map' ? pairs(v as string[]) : v;
  }
  const loaded = await engine.loadEngineSettings({ flags, env: ctx.env, cwd: ctx.cwd, confPath: o.engineConf as string | undefined });
  if (loaded.engine === 'local') return loaded; // a local --dry-run shows the plan the run would take
  for (const local of ['codec', 'gzipLevel']) {
    if (o[local] !== undefined) throw new TblError('usage', `--${local === 'gzipLevel' ? 'gzip-level' : local} applies to --engine local`, { hint: 'set hoodie.parquet.compression.codec with --hoodie-conf' });
  }
  if (o.metadataTable !== undefined && o.metadataTable !== 'update') {
    throw new TblError('usage', `--metadata-table ${String(o.metadataTable)} applies to --engine local: Spark and Flink keep the metadata table in step themselves (hoodie.metadata.enable)`);
  }
  return loaded;
}

/** Whole minutes of --lock-expire for hoodie.write.lock.filesystem.expire (the engine takes minutes). */
export function lockExpireMinutes(o: Opts): number {
  const ms = o.lockExpire as number | undefined;
  if (ms === undefined) return 1;
  if (ms % 60_000 !== 0) throw new TblError('usage', '--lock-expire must be whole minutes with --engine spark|flink (hoodie.write.lock.filesystem.expire is in minutes)');
  return ms / 60_000;
}

type RunResult = import('../src/services/engine/index.ts').EngineRunResult;
type Settings = NonNullable<import('../src/services/engine/index.ts').LoadedEngine['settings']>;

/**
 * What every `--engine spark|flink` run takes beyond its service's options: the settings, the
 * metadata table kept by the engine, --max-duration, the dry run, the lock expiry in minutes, the
 * engine's output on stderr, status lines, and signals forwarded to the engine.
 */
export function engineRunOptions(ctx: Ctx, o: Opts, settings: Settings) {
  return {
    metadataTable: 'update' as const,
    settings,
    maxDurationMs: o.maxDuration as number | undefined,
    dryRun: o.dryRun === true,
    lockExpireMinutes: lockExpireMinutes(o),
    output: (line: string) => ctx.io.stderr(`${line}\n`),
    note: (m: string) => statusNote(ctx, o, m),
    cwd: ctx.cwd,
    env: ctx.env,
    signals: true,
  };
}

export function engineSummary(r: RunResult): Record<string, unknown> {
  return {
    status: r.status,
    engine: r.engine,
    instant: r.instant ?? null,
    state: r.state ?? null,
    completionTime: r.completionTime ?? null,
    exitCode: r.exitCode ?? null,
    signal: r.signal ?? null,
    durationMs: r.durationMs,
    yarnApplicationId: r.ids.yarnApplicationId ?? null,
    flinkJobId: r.ids.flinkJobId ?? null,
    kubernetesSubmissionId: r.ids.kubernetesSubmissionId ?? null,
    stoppedBy: r.stoppedBy ?? null,
    killed: r.killed ?? false,
    operations: r.operations ?? null,
    rolledBackFiles: r.rolledBack?.deletedFiles.length ?? 0,
    rollbackInstant: r.rolledBack?.rollbackInstant ?? null,
    wouldRollBack: r.wouldRollBack ?? null,
    command: r.command ?? null,
    files: r.files ?? [],
    errorLines: r.errorLines,
    warnings: r.warnings,
  };
}

/** The printed form of a command line: one option and its value per line, `\` continued. */
export function multiline(display: string): string {
  const words = display.match(/(?:'[^']*'|\\.|[^\s'\\])+/g) ?? [];
  const lines: string[][] = [];
  let optionBefore = false;
  words.forEach((w, i) => {
    const option = w.startsWith('-') && w.length > 1;
    if (i === 1 ? !option : !option && optionBefore) lines[lines.length - 1]!.push(w);
    else lines.push([w]);
    optionBefore = option && !w.startsWith('-D');
  });
  return lines.map((l, i) => `${i === 0 ? '' : '  '}${l.join(' ')}`).join(' \\\n');
}

/**
 * Prints an engine run's outcome; returns the exit code. Not completed: the engine's error lines and
 * the instant's state on stderr, exit 1 (130 when stopped by SIGINT/SIGTERM).
 */
/** The exit code of an engine run: 0 done (or nothing to do, or a dry run), 130 stopped by a signal, else 1. */
export function engineExitCode(r: RunResult): number {
  if (r.status === 'nothing-to-do' || r.status === 'already-completed' || r.status === 'dry-run' || r.status === 'completed') return 0;
  return r.stoppedBy === 'SIGINT' || r.stoppedBy === 'SIGTERM' ? 130 : 1;
}

export function reportEngineRun(ctx: Ctx, o: Opts, label: string, r: RunResult, unit = 'operation(s)'): number {
  for (const w of r.warnings) ctx.out.warn(w);
  if (wantsJson(o)) ctx.out.json(engineSummary(r));
  const note = (m: string) => statusNote(ctx, o, m);
  switch (r.status) {
    case 'nothing-to-do':
      if (!wantsJson(o)) note(`NO PENDING ${label.toUpperCase()} TO RUN`);
      return 0;
    case 'already-completed':
      if (!wantsJson(o)) note(`${cap(label)} ${r.instant} is already completed; nothing to do`);
      return 0;
    case 'dry-run':
      if (!wantsJson(o)) {
        const rb = r.wouldRollBack ? ', after rolling back its failed attempt' : '';
        const ops = r.operations !== undefined ? ` (${r.operations} ${unit})` : '';
        ctx.io.stderr(`Would run ${label} ${r.instant}${ops} on ${r.engine}${rb}:\n`);
        ctx.io.stdout(`${multiline(r.command!)}\n`);
        for (const f of r.files ?? []) for (const line of f.shown) ctx.io.stdout(`# ${f.path}: ${line}\n`);
      }
      return 0;
    case 'completed':
      if (!wantsJson(o) && o.verbose) {
        const id = r.ids.yarnApplicationId ?? r.ids.flinkJobId ?? r.ids.kubernetesSubmissionId;
        ctx.io.stderr(`${cap(label)} successfully completed for ${r.instant} on ${r.engine}${id ? ` (${id})` : ''} in ${r.durationMs} ms\n`);
      }
      return 0;
    default: {
      if (!wantsJson(o)) {
        if (r.errorLines.length > 0) ctx.io.stderr(`${r.engine} error lines:\n${r.errorLines.map((l) => `  ${l}`).join('\n')}\n`);
        const why = r.spawnError ?? (r.stoppedBy === 'max-duration' ? `stopped after --max-duration` : r.stoppedBy ? `stopped by ${r.stoppedBy}` : `${r.engine} exited ${r.exitCode ?? r.signal}`);
        ctx.io.stderr(
          `error: ${label} ${r.instant} did not complete on ${r.engine} (${why}); the instant is ${r.state?.toLowerCase()} (the next run rolls a failed attempt back and relaunches it)\n`,
        );
      }
      return engineExitCode(r);
    }
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
