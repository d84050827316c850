// trigger archival — Hudi's timeline archiver without Spark (hudi-cli ArchivedCommitsCommand spelling and
// options). Quiet on success; exit 0 done or nothing to archive, 1 failure, 4 lock held.
import type { CommandSpec, Opts } from './spec.ts';
import { parseBool, parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';

type Archival = typeof import('../src/services/archival/index.ts');
type Result = Awaited<ReturnType<Archival['triggerArchival']>>;

interface VerdictRow {
  instant: string;
  action: string;
  state: string;
  archive: boolean;
  reason: string;
}

const verdictColumns = [
  { key: 'instant', header: 'Instant', value: (r: VerdictRow) => r.instant },
  { key: 'action', header: 'Action', value: (r: VerdictRow) => r.action },
  { key: 'state', header: 'State', value: (r: VerdictRow) => r.state },
  { key: 'archive', header: 'Archive', value: (r: VerdictRow) => r.archive, format: (v: unknown) => (v ? 'yes' : 'no') },
  { key: 'reason', header: 'Reason', value: (r: VerdictRow) => r.reason },
];

function verdictRows(r: Result): VerdictRow[] {
  const row = (i: Result['recovered'][number], archive: boolean, reason: string): VerdictRow => ({ instant: i.requestedTime, action: i.action, state: i.state, archive, reason });
  return [
    ...r.recovered.map((i) => row(i, true, 'already in the archived timeline (an interrupted run): only its active files are deleted')),
    ...r.decision.verdicts.map((v) => row(v.instant, v.archive, v.reason)),
  ].sort((a, b) => (a.instant < b.instant ? -1 : a.instant > b.instant ? 1 : 0));
}

function summary(r: Result) {
  return {
    archived: r.decision.toArchive.length,
    instants: r.decision.toArchive.map((i) => ({ instant: i.requestedTime, action: i.action })),
    recovered: r.recovered.map((i) => ({ instant: i.requestedTime, action: i.action })),
    archiveFiles: r.archiveFiles,
    compactedFiles: r.compactedFiles,
    deletedFiles: r.deletedFiles,
    rules: r.decision.rules,
    minCommits: r.decision.minCommits,
    maxCommits: r.decision.maxCommits,
  };
}

async function run(ctx: Ctx, o: Opts): Promise<void> {
  const table = await openFromOpts(ctx, o);
  const lib = await import('../src/services/archival/index.ts');
  const r = await lib.triggerArchival(table, {
    minCommits: o.minCommits as number,
    maxCommits: o.maxCommits as number,
    commitsRetained: o.commitsRetainedByCleaner as number,
    enableMetadata: o.enableMetadata !== false,
    dryRun: o.dryRun === true,
    lock: { wait: o.wait === true, waitTimeoutMs: o.waitTimeout as number | undefined, expireMs: o.lockExpire as number | undefined },
    now: ctx.now,
  });
  for (const w of r.warnings) ctx.out.warn(w);
  const d = r.decision;
  const line = `${r.dryRun ? 'Would archive' : 'Archived'} ${d.toArchive.length} instant(s)${r.recovered.length ? ` (+${r.recovered.length} left active by an interrupted run)` : ''} by Hudi ${d.rules}'s rules, keeping ${d.minCommits}..${d.maxCommits} commits`;
  if (r.dryRun) {
    if (o.verbose) ctx.io.stderr(`${line}\n`);
    else ctx.out.info(line);
    ctx.out.table(verdictColumns, verdictRows(r), outputOptions(o));
    return;
  }
  if (wantsJson(o)) ctx.out.json(summary(r));
  else if (o.verbose) ctx.io.stderr(`${line}${r.archiveFiles.length ? ` into ${r.archiveFiles.join(', ')}` : ''}; ${r.deletedFiles} timeline file(s) deleted\n`);
}

export const archivalSpecs: CommandSpec[] = [
  {
    name: 'trigger archival',
    summary: "Archive old instants by Hudi's rules (0.14's for table version 6: a new .hoodie/archived log file per run; 1.x's for 8/9: the LSM timeline with manifest, compaction and cleaning), then delete them from the active timeline (pending files first, completed ones oldest first). A run killed midway is finished by the next one, which deletes the active copies of instants already archived instead of archiving them twice; no Spark needed",
    options: [
      { flags: '--minCommits <n>', description: 'hoodie.keep.min.commits: commits kept on the active timeline after archiving', default: 20, parse: parseIntOpt },
      { flags: '--maxCommits <n>', description: 'hoodie.keep.max.commits: archive only when the active timeline holds more commits', default: 30, parse: parseIntOpt },
      { flags: '--commitsRetainedByCleaner <n>', description: 'hoodie.cleaner.commits.retained (KEEP_LATEST_COMMITS); raises minCommits when the cleaner retains more', default: 10, parse: parseIntOpt },
      { flags: '--enableMetadata [bool]', description: "keep instants after the metadata table's last compaction (false: refused on table version 6 as Hudi 0.14 fails; 8/9: the bound is skipped as Hudi 1.x does)", default: true, parse: parseBool },
      { flags: '--dry-run', description: 'show which instants would be archived and why each other one stays (one row per instant: the JSON fields below); writes nothing, takes no lock. Without it, --json prints a summary: archived, instants, recovered, archiveFiles, compactedFiles, deletedFiles, rules, minCommits, maxCommits' },
      { flags: '--wait', description: 'wait for the table lock instead of exiting 4' },
      { flags: '--wait-timeout <duration>', description: 'give up waiting after this long (e.g. 10m)', parse: parseDurationOpt },
      { flags: '--lock-expire <duration>', description: 'FileSystemBasedLockProvider expiry (hoodie.write.lock.filesystem.expire; default 1m, 0 = never)', parse: parseDurationOpt },
      { flags: '--verbose', description: 'report the result on stderr (quiet on success otherwise)' },
      { flags: '--sparkMemory <mem>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
      { flags: '--sparkMaster <master>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
    ],
    table: { limit: -1 },
    jsonFields: async () => verdictColumns.map((c) => c.key),
    action: run,
  },
];
