// The command specs run through commander the way commands/main.ts wires them (the registry entry is
// the lead's), plus lock, instant-time, unschedule and validate behaviour.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Command, Option } from 'commander';
import { compactionServiceSpecs } from '../../commands/compaction-services.ts';
import { GLOBAL_OPTIONS, TABLE_OPTIONS, type CommandSpec } from '../../commands/spec.ts';
import { makeCtx } from '../../commands/main.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { exitCodeFor, formatError } from '../../src/errors/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { acquireTableLock } from '../../src/services/index.ts';
import { newInstantTime } from '../../src/timeline/writer.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';

async function cli(argv: string[], tty = false): Promise<{ code: number; out: string; err: string }> {
  const t = makeTestIO({ tty });
  // a private state dir: never the user's ~/.local/state/tblcli (a remembered `connect` there would leak in)
  const ctx = makeCtx({ io: t.io, env: {}, now: () => new Date(), stateDir: mkdtempSync(join(tmpdir(), 'tblcli-state-')) });
  const words = argv.slice(0, 2).join(' ');
  const spec = compactionServiceSpecs.find((s) => s.name === words) as CommandSpec;
  const cmd = new Command(spec.name).exitOverride();
  for (const o of [...(spec.options ?? []), ...(spec.table ? TABLE_OPTIONS(spec.table.limit) : []), ...GLOBAL_OPTIONS]) {
    if (cmd.options.some((x) => x.long === o.flags.split(/[ ,]/)[0])) continue;
    const opt = new Option(o.flags, o.description);
    if (o.parse) opt.argParser(o.parse as (v: string, p: unknown) => unknown);
    if (o.default !== undefined) opt.default(o.default);
    cmd.addOption(opt);
  }
  cmd.parse(argv.slice(2), { from: 'user' });
  try {
    const r = await spec.action(ctx, cmd.opts());
    return { code: typeof r === 'number' ? r : 0, out: t.out(), err: t.err() };
  } catch (e) {
    return { code: exitCodeFor(e), out: t.out(), err: `${t.err()}${formatError(e, false)}\n` };
  }
}

describe('newInstantTime', () => {
  it('is later than every time on the timeline, in the table zone', () => {
    const now = new Date(Date.UTC(2025, 0, 1, 0, 0, 0, 0));
    expect(newInstantTime([], 'UTC', now)).toBe('20250101000000000');
    expect(newInstantTime(['20250101000000000'], 'UTC', now)).toBe('20250101000000001');
    expect(newInstantTime(['20300101000000000001'], 'UTC', now)).toBe('20300101000000001');
    expect(newInstantTime(['20240101000000'], 'UTC', now)).toBe('20250101000000000');
  });
});

describe('FileSystemBasedLockProvider-compatible lock', () => {
  it('second taker fails with lock-held (exit 4), an expired lock is taken over, release deletes it', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lock-')), '.hoodie');
    mkdirSync(join(dir, '.aux'), { recursive: true });
    const s = new LocalStorage();
    const a = await acquireTableLock(s, dir);
    await expect(acquireTableLock(s, dir)).rejects.toMatchObject({ kind: 'lock-held' });
    const err = await acquireTableLock(s, dir).catch((e) => e);
    expect(exitCodeFor(err)).toBe(4);
    await expect(acquireTableLock(s, dir, { wait: true, waitTimeoutMs: 100, retryMs: 10 })).rejects.toMatchObject({ kind: 'lock-held' });
    // expiry: mtime older than expireMs → deleted and re-taken
    const b = await acquireTableLock(s, dir, { expireMs: 1, now: () => Date.now() + 10_000 });
    expect(existsSync(join(dir, '.aux/lock'))).toBe(true);
    await b.release();
    await a.release();
    expect(existsSync(join(dir, '.aux/lock'))).toBe(false);
  });
});

describe.skipIf(!HAVE_FIXTURES)('compaction commands', () => {
  it('schedule (nothing by num-commits, then all) → validate → run; quiet when piped; --json summary', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const none = await cli(['compaction', 'schedule', '--path', base, '--json']);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out)).toMatchObject({ scheduled: false });
    const s = await cli(['compaction', 'schedule', '--path', base, '--strategy', 'all']);
    expect(s.code, s.err).toBe(0);
    // prints the plan as `compaction show` does
    const instant = readdirSync(join(base, '.hoodie')).find((n) => n.endsWith('.compaction.requested'))!.split('.')[0]!;
    const show = await runCli(['compaction', 'show', '--path', base, '--instant', instant]);
    expect(s.out).toBe(show.stdout);
    const v = await cli(['compaction', 'validate', '--path', base, '--instant', instant, '--json']);
    expect(v.code, v.err).toBe(0);
    expect((JSON.parse(v.out) as { valid: boolean }[]).every((r) => r.valid)).toBe(true);
    const run = await cli(['compaction', 'run', '--path', base]);
    expect(run).toEqual({ code: 0, out: '', err: '' });
    const again = await cli(['compaction', 'run', '--path', base, '--json']);
    expect(JSON.parse(again.out)).toMatchObject({ status: 'nothing-to-do' });
    const done = await cli(['compaction', 'run', '--path', base, '--instant', instant, '--json']);
    expect(JSON.parse(done.out)).toMatchObject({ status: 'already-completed', instant });
    const unsched = await cli(['compaction', 'unschedule', '--path', base, '--instant', instant]);
    expect(unsched.code).toBe(1);
    expect(unsched.err).toMatch(/completed; only a plan that has not started/);
  });

  it('--gzip-level out of 1-9 or an unknown --codec → usage error before a plan is written; a valid level compacts', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const before = readdirSync(join(base, '.hoodie')).sort();
    // the whole CLI (option parse errors are wrapped in commands/main.ts)
    const bad = await runCli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--gzip-level', '0']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe("error: option '--gzip-level': expected an integer from 1 to 9, got '0'");
    const codec = await runCli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--codec', 'LZ4']);
    expect(codec.exitCode).toBe(2);
    expect(codec.stderr.trim()).toBe("error: --codec must be GZIP, SNAPPY or UNCOMPRESSED, got 'LZ4'");
    expect(readdirSync(join(base, '.hoodie')).sort()).toEqual(before);
    const ok = await cli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--gzip-level', '1', '--json']);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: 'completed' });
  });

  it('validate flags a missing log file; unschedule removes a plan that has not started', async () => {
    const base = tableFresh('sample_table/mor/parquet/v6_nonpartitioned');
    const s = await cli(['compaction', 'schedule', '--path', base, '--strategy', 'all', '--json']);
    const instant = (JSON.parse(s.out) as { instant: string }).instant;
    const log = readdirSync(base).find((n) => n.includes('.log.'))!;
    rmSync(join(base, log));
    const v = await cli(['compaction', 'validate', '--path', base, '--instant', instant, '--json']);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.out)[0]).toMatchObject({ valid: false, error: `missing: ${log}` });
    const u = await cli(['compaction', 'unschedule', '--path', base, '--instant', instant, '--json']);
    expect(u.code, u.err).toBe(0);
    expect(existsSync(join(base, `.hoodie/${instant}.compaction.requested`))).toBe(false);
  });

  it('--metadata-table refuse refuses a table with a metadata table; disable drops it; lock held → exit 4; update (default) keeps it', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v8_trips_8i3u1d');
    const kept = tableFresh('quickstart_trips_table/mor/avro/v8_trips_8i3u1d');
    const upd = await cli(['compaction', 'scheduleAndExecute', '--path', kept, '--strategy', 'all', '--json']);
    expect(upd.code, upd.err).toBe(0);
    expect(JSON.parse(upd.out)).toMatchObject({ status: 'completed', fileGroups: 1, warnings: [] });
    expect(existsSync(join(kept, '.hoodie/metadata/files'))).toBe(true);
    expect(JSON.parse((await runCli(['metadata', 'validate-files', '--path', kept, '--json'])).stdout)).toEqual([]);
    const r = await cli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--metadata-table', 'refuse']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/metadata table/);
    expect(r.err).toMatch(/--metadata-table disable/);
    mkdirSync(join(base, '.hoodie/.aux'), { recursive: true });
    writeFileSync(join(base, '.hoodie/.aux/lock'), 'held');
    const held = await cli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--metadata-table', 'disable']);
    expect(held.code).toBe(4);
    rmSync(join(base, '.hoodie/.aux/lock'));
    const ok = await cli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--metadata-table', 'disable', '--json']);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: 'completed', fileGroups: 1 });
    expect(existsSync(join(base, '.hoodie/metadata'))).toBe(false);
    expect(existsSync(join(base, '.hoodie/hoodie.properties.backup'))).toBe(false);
    const fsview = await runCli(['commits', 'show', '--path', base]);
    expect(fsview.exitCode).toBe(0);
  });
});
