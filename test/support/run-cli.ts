// Runs the whole CLI in-process (commands/main.ts) with in-memory IO, a fixed clock and a private state dir.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCtx, runArgv } from '../../commands/main.ts';
import { makeTestIO } from '../../src/io/index.ts';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  tty?: boolean;
  env?: Record<string, string | undefined>;
  now?: Date;
  cwd?: string;
  stateDir?: string;
}

export async function runCli(argv: string[], opts: RunOptions = {}): Promise<CliResult> {
  const t = makeTestIO({ tty: opts.tty ?? false, columns: 100 });
  const ctx = makeCtx({
    io: t.io,
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    now: () => opts.now ?? new Date('2026-01-01T00:00:00Z'),
    stateDir: opts.stateDir ?? mkdtempSync(join(tmpdir(), 'tblcli-state-')),
  });
  const exitCode = await runArgv(argv, ctx);
  return { exitCode, stdout: t.out(), stderr: t.err() };
}

export async function runJson<T = unknown>(argv: string[], opts: RunOptions = {}): Promise<T> {
  const r = await runCli([...argv, '--json'], opts);
  if (r.exitCode !== 0) throw new Error(`tblcli ${argv.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
