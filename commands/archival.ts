// trigger archival — Hudi's timeline archiver without Spark (hudi-cli ArchivedCommitsCommand spelling and
// options), for the data table and then its metadata table. Quiet on success; exit 0 done or nothing to
// archive, 1 failure, 4 lock held.
import type { CommandSpec, Opts } from './spec.ts';
import { parseBool, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import { lockOf, lockOptions, VERBOSE } from './service-options.ts';

type Archival = typeof import('../src/services/archival/index.ts');
type Result = Awaited<ReturnType<Archival['triggerArchival']>>;
type TimelineResult = Pick<Result, 'decision' | 'recovered' | 'archiveFiles' | 'compactedFiles' | 'deletedFiles'>;

interface VerdictRow {
  table: 'data' | 'metadata';
  instant: string;
  action: string;
  state: string;
  archive: boolean;
  reason: string;
}

const verdictColumns = [
  { key: 'table', header: 'Table', value: (r: VerdictRow) => r.table },
  { key: 'instant', header: 'Instant', value: (r: VerdictRow) => r.instant },
  { key: 'action', header: 'Action', value: (r: VerdictRow) => r.action },
  { key: 'state', header: 'State', value: (r: VerdictRow) => r.state },
  { key: 'archive', header: 'Archive', value: (r: VerdictRow) => r.archive, format: (v: unknown) => (v ? 'yes' : 'no'), tone: (v: unknown) => (v ? ('good' as const) : undefined) },
  { key: 'reason', header: 'Reason', value: (r: VerdictRow) => r.reason },
];

function verdictRows(r: TimelineResult, table: VerdictRow['table']): VerdictRow[] {
  const row = (i: Result['recovered'][number], archive: boolean, reason: string): VerdictRow => ({ table, instant: i.requestedTime, action: i.action, state: i.state, archive, reason });
  return [
    ...r.recovered.map((i) => row(i, true, 'already in the archived timeline (an interrupted run): only its active files are deleted')),
    ...r.decision.verdicts.map((v) => row(v.instant, v.archive, v.reason)),
  ].sort((a, b) => (a.instant < b.instant ? -1 : a.instant > b.instant ? 1 : 0));
}

function timelineSummary(r: TimelineResult) {
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

function line(r: TimelineResult, dryRun: boolean, what: string): string {
  const d = r.decision;
  return `${what}: ${dryRun ? 'would archive' : 'archived'} ${d.toArchive.length} instant(s)${r.recovered.length ? ` (+${r.recovered.length} left active by an interrupted run)` : ''} by Hudi ${d.rules}'s rules, keeping ${d.minCommits}..${d.maxCommits} commits`;
}

async function run(ctx: Ctx, o: Opts): Promise<void> {
  const table = await openFromOpts(ctx, o);
  const lib = await import('../src/services/archival/index.ts');
  const dryRun = o.dryRun === true;
  // a bar on a terminal's stderr (instants gone from the active timeline), plain lines with --verbose in a pipe
  const progress = dryRun ? undefined : (await import('./progress.ts')).progressFor(ctx, 'archival', { verbose: o.verbose === true, noRecords: true });
  const started = Date.now();
  let r: Result;
  try {
    r = await lib.triggerArchival(table, {
      minCommits: o.minCommits as number,
      maxCommits: o.maxCommits as number,
      commitsRetained: o.commitsRetainedByCleaner as number,
      enableMetadata: o.enableMetadata !== false,
      dryRun,
      lock: lockOf(o),
      now: ctx.now,
      onStart: progress && ((e) => progress.start(e.instants, 'instants', e.table === 'data' ? 'archival' : 'archival (metadata table)')),
      onProgress: progress && ((e) => progress.step(0, e.bytes, undefined, e.instants)),
    });
  } finally {
    progress?.end();
  }
  for (const w of r.warnings) ctx.out.warn(w);
  const lines = [line(r, dryRun, 'data table'), ...(r.metadataTable ? [line(r.metadataTable, dryRun, 'metadata table')] : [])];
  if (dryRun) {
    for (const l of lines) {
      if (o.verbose) ctx.io.stderr(`${l}\n`);
      else ctx.out.info(l);
    }
    const rows = [...verdictRows(r, 'data'), ...(r.metadataTable ? verdictRows(r.metadataTable, 'metadata') : [])];
    await ctx.out.view(verdictColumns, rows, outputOptions(o));
    return;
  }
  if (wantsJson(o)) return ctx.out.json({ ...timelineSummary(r), metadataTable: r.metadataTable ? timelineSummary(r.metadataTable) : null });
  if (!o.verbose) return;
  if (ctx.io.isStderrTTY) {
    // for a person: counts and sizes one reads at a glance, one line per timeline
    const { humanDuration } = await import('../src/render/time-chart.ts');
    const one = (x: TimelineResult, what: string) => {
      const n = x.decision.toArchive.length + x.recovered.length;
      if (n === 0) return `${what}: nothing to archive (--dry-run shows why each instant stays)`;
      const files = x.archiveFiles.map((f) => f.split('/').pop()).join(', ');
      return `${what}: archived ${n} instant(s)${files ? ` into ${files}` : ''}, ${x.deletedFiles} timeline file(s) deleted${x.compactedFiles.length ? `, ${x.compactedFiles.length} LSM file(s) compacted` : ''}`;
    };
    ctx.io.stderr(`${one(r, 'Data table')}\n${r.metadataTable ? `${one(r.metadataTable, 'Metadata table')}\n` : ''}Done in ${humanDuration(Date.now() - started)}\n`);
  } else {
    const one = (x: TimelineResult, l: string) => `${l}${x.archiveFiles.length ? ` into ${x.archiveFiles.join(', ')}` : ''}; ${x.deletedFiles} timeline file(s) deleted\n`;
    ctx.io.stderr(`${one(r, lines[0]!)}${r.metadataTable ? one(r.metadataTable, lines[1]!) : ''}`);
  }
}

export const archivalSpecs: CommandSpec[] = [
  {
    name: 'trigger archival',
    summary:
      "Archive old instants by Hudi's rules (0.14's for table version 6: a new .hoodie/archived log file per run; 1.x's for 8/9: the LSM timeline with manifest, compaction and cleaning), then delete them from the active timeline (each instant's pending files before its completed file, the completed ones oldest first); then the metadata table's timeline, by the rules Hudi's writer archives it with (keep min+1..max+1, nothing the data timeline still has). A run killed midway is finished by the next one, which deletes the active copies of instants already archived instead of archiving them twice; no Spark needed",
    options: [
      { flags: '--minCommits <n>', description: 'hoodie.keep.min.commits: commits kept on the active timeline after archiving', default: 20, parse: parseIntOpt },
      { flags: '--maxCommits <n>', description: 'hoodie.keep.max.commits: archive only when the active timeline holds more commits', default: 30, parse: parseIntOpt },
      { flags: '--commitsRetainedByCleaner <n>', description: 'hoodie.cleaner.commits.retained (KEEP_LATEST_COMMITS); raises minCommits when the cleaner retains more', default: 10, parse: parseIntOpt },
      { flags: '--enableMetadata [bool]', description: "keep instants after the metadata table's last compaction, and archive the metadata table's own timeline (false: refused on table version 6 as Hudi 0.14 fails; 8/9: the bound is skipped as Hudi 1.x does and the metadata table is left alone)", default: true, parse: parseBool },
      { flags: '--dry-run', description: 'show which instants would be archived and why each other one stays (one row per instant of the data table, then of its metadata table: the JSON fields below); writes nothing, takes no lock. Without it, --json prints a summary: archived, instants, recovered, archiveFiles, compactedFiles, deletedFiles, rules, minCommits, maxCommits, and metadataTable (the same for the metadata table, or null)' },
      ...lockOptions(),
      VERBOSE,
      { flags: '--sparkMemory <mem>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
      { flags: '--sparkMaster <master>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
    ],
    table: { limit: -1 },
    // an MCP write tool: the plan is the dry run's rows, the token runs exactly that archival
    writes: { plan: ['--dry-run'] },
    jsonFields: async () => verdictColumns.map((c) => c.key),
    action: run,
  },
];
