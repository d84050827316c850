// Incident triage: collisions, orphans, doctor, metrics (issue 5). Actions load library code lazily.
import { TblError } from '../src/errors/index.ts';
import type { Ctx } from './context.ts';
import type { CommandSpec, Opts } from './spec.ts';
import { parseBool, parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, wantsJson } from './shared.ts';

/** Exit code for `--exit-code` when anything is at warning or above. */
export const EXIT_FINDINGS = 3;

const OLDER_THAN = { flags: '--older-than <duration>', description: 'only files/instants older than this are abandoned (30m, 1h, 2d)', default: '1h', parse: parseDurationOpt };
const BUCKET_INDEX = { flags: '--bucket-index <n>', description: 'the table uses the bucket index with n buckets (default: table config, else inferred from fileIds)', parse: parseIntOpt };
const EXIT_CODE = { flags: '--exit-code [bool]', description: `exit ${EXIT_FINDINGS} when a finding is at warning or above`, default: false, parse: parseBool };

/** `--dir`: table-relative, or an absolute path; one below the base path becomes table-relative. */
function dirOpt(o: Opts, basePath: string): { dir?: string; outside?: string } {
  if (typeof o.dir !== 'string') return {};
  const d = o.dir.length > 1 ? o.dir.replace(/\/+$/, '') : o.dir;
  if (!d.startsWith('/')) return { dir: d };
  if (d === basePath) return { dir: '' };
  if (d.startsWith(`${basePath}/`)) return { dir: d.slice(basePath.length + 1) };
  return { dir: d, outside: d };
}

/** --older-than in ms (commander parsed it; the default '1h' string is parsed here). */
function olderThanMs(o: Opts): number {
  return typeof o.olderThan === 'number' ? o.olderThan : parseDurationOpt(String(o.olderThan ?? '1h'));
}

async function scan(ctx: Ctx, o: Opts) {
  const table = await openFromOpts(ctx, o);
  const t = await import('../src/triage/index.ts');
  const { outside } = dirOpt(o, table.basePath);
  const s = await t.scanTable(table, { now: ctx.now(), concurrency: o.concurrency as number | undefined, ...(outside ? { outsideDirs: [outside] } : {}) });
  for (const w of s.warnings) ctx.out.warn(w);
  return { t, s };
}

function exitFor(o: Opts, severities: string[]): number {
  if (o.exitCode !== true) return 0;
  return severities.some((s) => s === 'warning' || s === 'error') ? EXIT_FINDINGS : 0;
}

export const triageSpecs: CommandSpec[] = [
  {
    name: 'collisions',
    aliases: ['show collisions'],
    summary: 'Finds fileId collisions: file groups claimed by two writers or by a writer and a table service',
    table: { limit: -1 },
    options: [BUCKET_INDEX, { flags: '--keys [bool]', description: 'read data: record keys in more than one file group of a partition', default: false, parse: parseBool }, EXIT_CODE],
    jsonFields: async () => (await import('../src/views/triage.ts')).collisionColumns.map((c) => c.key),
    async action(ctx, o) {
      const { t, s } = await scan(ctx, o);
      const findings = await t.findCollisions(s, { bucketIndex: o.bucketIndex as number | undefined, keys: o.keys === true });
      const v = await import('../src/views/triage.ts');
      await ctx.out.view(v.collisionColumns, findings, outputOptions(o));
      if (findings.length === 0) ctx.out.info('no fileId collisions found');
      return exitFor(o, findings.map((f) => f.severity));
    },
  },
  {
    name: 'orphans',
    aliases: ['show orphans'],
    summary: 'Lists orphan files (Flink leftovers, uncommitted data files, marker dirs, stuck instants); --delete --yes quarantines them',
    table: { limit: -1 },
    writes: { tool: 'orphans delete', alsoRead: true, plan: [], execute: ['--delete', '--yes'], fixed: ['--delete', '--purge', '--yes'] },
    options: [
      OLDER_THAN,
      { flags: '--dir <dir>', description: 'only this table-relative directory; an absolute directory outside the table (a Flink file-sink dir next to it) is listed for .inprogress/.pending part files' },
      { flags: '--delete [bool]', description: 'move the deletable orphans to .hoodie/.tblcli-trash/<run>/ (needs --yes)', default: false, parse: parseBool },
      { flags: '--purge [bool]', description: 'with --delete: remove instead of moving to the trash', default: false, parse: parseBool },
      { flags: '--yes [bool]', description: 'confirm --delete', default: false, parse: parseBool },
      EXIT_CODE,
    ],
    jsonFields: async () => (await import('../src/views/triage.ts')).orphanColumns.map((c) => c.key),
    async action(ctx, o) {
      if ((o.delete === true || o.purge === true) && o.yes !== true) {
        throw new TblError('usage', `orphans --${o.purge === true ? 'purge' : 'delete'} needs --yes; nothing was touched`, {
          hint: 'review the list with `tblcli orphans` first, then add --delete --yes',
        });
      }
      if (o.purge === true && o.delete !== true) throw new TblError('usage', '--purge only works together with --delete --yes');
      const ms = olderThanMs(o);
      const { t, s } = await scan(ctx, o);
      const orphans = t.findOrphans(s, { olderThanMs: ms, dir: dirOpt(o, s.table.basePath).dir });
      const v = await import('../src/views/triage.ts');
      if (o.delete === true) {
        const r = await t.deleteOrphans(s, orphans, { purge: o.purge === true, olderThanMs: ms });
        await ctx.out.view(v.deleteColumns, r.results, outputOptions(o));
        const moved = r.results.filter((x) => x.action === 'moved' || x.action === 'purged').length;
        const skipped = r.results.filter((x) => x.action === 'skipped').length;
        if (skipped > 0) ctx.out.warn(`skipped ${skipped} orphan(s) that changed since the scan (see the reason column)`);
        const outside = dirOpt(o, s.table.basePath).outside;
        const trash = outside ? `${outside}/.tblcli-trash/${r.run}` : r.trash;
        ctx.out.info(o.purge === true ? `purged ${moved} orphan(s)` : `moved ${moved} orphan(s) to ${s.table.storage.uri(trash)}`);
        // --exit-code judges what is still there after the quarantine
        const gone = new Set(r.results.filter((x) => x.action === 'moved' || x.action === 'purged').map((x) => x.path));
        return exitFor(o, orphans.filter((x) => !gone.has(x.path)).map((x) => x.severity));
      }
      await ctx.out.view(v.orphanColumns, orphans, outputOptions(o));
      if (orphans.length === 0) ctx.out.info('no orphan files found');
      return exitFor(o, orphans.map((x) => x.severity));
    },
  },
  {
    name: 'doctor',
    summary: 'First-minute incident check: pending/failed instants, compaction backlog, file sizes, collisions, orphans, metadata table',
    options: [OLDER_THAN, BUCKET_INDEX, EXIT_CODE],
    jsonFields: async () => ['table', 'severity', 'checks', 'pending', 'rolledBack', 'backlog', 'collisions', 'orphans'],
    async action(ctx, o) {
      const { t, s } = await scan(ctx, o);
      const report = await t.doctor(s, { olderThanMs: olderThanMs(o), bucketIndex: o.bucketIndex as number | undefined });
      const v = await import('../src/views/triage.ts');
      const opts = outputOptions(o);
      if (wantsJson(o)) ctx.out.json(report);
      else if (opts.format === 'csv' || opts.format === 'tsv') {
        ctx.out.text(v.doctorIntro(report).map((l) => (typeof l === 'string' ? l : l.text)).join('\n'));
        ctx.out.table(v.doctorColumns, report.checks, opts);
      } else await ctx.out.checklist(v.doctorIntro(report), v.doctorChecklist(report.checks));
      return exitFor(o, [report.severity]);
    },
  },
  {
    name: 'metrics',
    summary: 'Table health metrics in Prometheus text format (for node_exporter textfile collector); --explain: each one for a person, with an alerting rule',
    options: [
      { flags: '--format <format>', description: 'prometheus (default) or json', default: 'prometheus', choices: ['prometheus', 'json'] },
      { flags: '--explain', description: 'one row per sample: its value, what it measures, a PromQL alerting condition and whether it holds now (--json: the rows)' },
      OLDER_THAN,
      BUCKET_INDEX,
    ],
    jsonFields: async () => (await import('../src/views/metrics-explain.ts')).explainColumns.map((c) => c.key),
    async action(ctx, o) {
      const format = String(o.format ?? 'prometheus');
      if (format !== 'prometheus' && format !== 'json') throw new TblError('usage', `metrics --format must be prometheus or json, got '${format}'`);
      const { t, s } = await scan(ctx, o);
      const report = await t.doctor(s, { olderThanMs: olderThanMs(o), bucketIndex: o.bucketIndex as number | undefined });
      const m = t.tableMetrics(s, report);
      if (o.explain === true) {
        const v = await import('../src/views/metrics-explain.ts');
        const rows = v.explainMetrics(m, Math.round(olderThanMs(o) / 1000));
        await ctx.out.view(v.explainColumns, rows, outputOptions({ ...o, format: format === 'json' ? 'json' : undefined }));
        ctx.out.info('each row is a gauge of `tblcli metrics` (labels table and path on every one); Alert When is a PromQL condition for an alerting rule, Now whether it holds on this run');
        return 0;
      }
      if (format === 'json' || (o.json !== undefined && o.json !== false)) ctx.out.json(m);
      else ctx.out.text(t.renderPrometheus(m));
    },
  },
];
