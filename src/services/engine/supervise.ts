// Supervision of one engine process: its output streamed line by line (secrets masked) to the
// caller, the last lines kept for the error report, the YARN application / Flink job / Kubernetes
// submission id picked out of it; SIGINT and SIGTERM forwarded to its process group, --max-duration
// enforced, and on a stop the job cancelled on the cluster too (a signal ends spark-submit or
// `flink run`, not a YARN application in cluster mode); a child that does not exit within the grace
// period is killed.
import { spawn } from 'node:child_process';
import { ownInterrupts } from '../../util/interrupt.ts';
import type { EngineIds } from './command.ts';
import type { Redactor } from './secrets.ts';

export type StopReason = 'max-duration' | 'SIGINT' | 'SIGTERM';

export interface SuperviseOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  maxDurationMs?: number;
  stopGraceMs: number;
  /** receives the engine's output, line by line, secrets masked */
  output: (line: string) => void;
  redactor: Redactor;
  /** the command that stops the job on the cluster for the ids seen so far */
  cancel?: (ids: EngineIds) => string[] | undefined;
  /** handle SIGINT/SIGTERM of this process (the CLI does; tests may send them) */
  signals?: boolean;
  /** lines kept for the error report (default 200) */
  tailLines?: number;
}

export interface EngineOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  ids: EngineIds;
  /** the last lines of output, secrets masked */
  tail: string[];
  stoppedBy?: StopReason;
  /** did not exit within the grace period after the stop signal: killed */
  killed: boolean;
  cancel?: { argv: string[]; exitCode: number | null; error?: string };
  /** the process could not be started */
  spawnError?: string;
}

/** Ids engines print: YARN (`Submitted application application_…`), Flink (`JobID …`), Spark on Kubernetes. */
export function idsFromLine(line: string, ids: EngineIds): void {
  ids.yarnApplicationId ??= /\b(application_\d{10,}_\d{4,})\b/.exec(line)?.[1];
  ids.flinkJobId ??= /\bJob ?ID\s*:?\s*([0-9a-f]{32})\b/i.exec(line)?.[1];
  ids.kubernetesSubmissionId ??= /\bsubmission ID ([\w.-]+:[\w.-]+)/.exec(line)?.[1];
}

/** Lines worth showing when the run failed: errors and exceptions, else the last lines. */
export function errorLines(tail: readonly string[], max = 10): string[] {
  const errs = tail.filter((l) => /\b(ERROR|FATAL|SEVERE)\b|Exception|Error:|Caused by:/.test(l) && !/^\s*at /.test(l));
  return (errs.length > 0 ? errs : tail.filter((l) => l.trim() !== '')).slice(-max);
}

const PRETTY_ERRNO: Record<string, string> = { ENOENT: 'not found', EACCES: 'not executable (permission denied)' };

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Runs a short helper command (the cancel), its output going to the same sink. */
function runHelper(argv: string[], opts: SuperviseOptions, timeoutMs: number): Promise<{ exitCode: number | null; error?: string }> {
  return new Promise((resolve) => {
    const p = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env: opts.env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    const lines = (b: Buffer) => {
      for (const l of b.toString('utf8').split('\n')) if (l !== '') opts.output(opts.redactor.redact(l));
    };
    p.stdout.on('data', lines);
    p.stderr.on('data', lines);
    p.on('error', (e) => {
      clearTimeout(timer);
      resolve({ exitCode: null, error: `${argv[0]}: ${PRETTY_ERRNO[(e as NodeJS.ErrnoException).code ?? ''] ?? e.message}` });
    });
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code });
    });
  });
}

export interface Supervised {
  /** settles when the engine has exited (and a cancel, if any, has finished) */
  done: Promise<EngineOutcome>;
  /** stops the engine as a forwarded signal or --max-duration would */
  stop(reason: StopReason): void;
}

export function superviseEngine(argv: readonly string[], opts: SuperviseOptions): Supervised {
  const started = Date.now();
  const ids: EngineIds = {};
  const tail: string[] = [];
  const keep = opts.tailLines ?? 200;
  const release = opts.signals ? ownInterrupts() : () => undefined;
  let stoppedBy: StopReason | undefined;
  let killed = false;
  let cancelRun: Promise<EngineOutcome['cancel']> | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let spawnError: string | undefined;

  const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env: opts.env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const onLine = (raw: string) => {
    const line = opts.redactor.redact(raw.replace(/\r$/, ''));
    idsFromLine(line, ids);
    tail.push(line);
    if (tail.length > keep) tail.shift();
    opts.output(line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const p of parts) onLine(p);
    });
    stream.on('end', () => {
      if (partial !== '') onLine(partial);
      partial = '';
    });
  }

  const stop = (reason: StopReason) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    if (stoppedBy) {
      // a second signal: do not wait any longer
      killed = true;
      killGroup(child.pid, 'SIGKILL');
      return;
    }
    stoppedBy = reason;
    killGroup(child.pid, reason === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
    const cancel = opts.cancel?.(ids);
    if (cancel) cancelRun = runHelper(cancel, opts, opts.stopGraceMs).then((r) => ({ argv: cancel, ...r }));
    graceTimer = setTimeout(() => {
      killed = true;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    }, opts.stopGraceMs);
    graceTimer.unref();
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  if (opts.signals) {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
  }
  const maxTimer = opts.maxDurationMs !== undefined ? setTimeout(() => stop('max-duration'), opts.maxDurationMs) : undefined;

  const done = new Promise<EngineOutcome>((resolve) => {
    let settled = false;
    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (maxTimer) clearTimeout(maxTimer);
      if (graceTimer) clearTimeout(graceTimer);
      if (opts.signals) {
        process.removeListener('SIGINT', onSigint);
        process.removeListener('SIGTERM', onSigterm);
      }
      release();
      const cancel = cancelRun ? await cancelRun : undefined;
      resolve({ exitCode, signal, durationMs: Date.now() - started, ids, tail, stoppedBy, killed, cancel, spawnError });
    };
    child.on('error', (e) => {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      spawnError = `${argv[0]}: ${PRETTY_ERRNO[code] ?? e.message}`;
      void finish(null, null);
    });
    // 'close' waits for the output pipes; a grandchild holding them open must not hang tblcli
    child.on('exit', (code, signal) => {
      const t = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        void finish(code, signal);
      }, 2000);
      t.unref();
      child.on('close', () => {
        clearTimeout(t);
        void finish(code, signal);
      });
    });
  });
  return { done, stop };
}
