// The remediation set (issue 15): commit rollback, rollback failed, savepoint create/delete/rollback,
// marker delete, compaction unscheduleFileId/repair, repair *, table update/delete/recover-configs —
// hudi-cli's spellings and messages, no Spark. Every mutating command has a dry run that lists the
// exact file changes; --json prints the report. Exit codes: 0 done (or nothing to do), 1 failure,
// 3 a dry run found something to change, 4 the table lock is held by another process.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TblError } from '../src/errors/index.ts';
import type { ColumnSpec } from '../src/render/table-model.ts';
import type { Ctx } from './context.ts';
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseBool, parseDurationOpt } from './spec.ts';
import { openFromOpts, outputOptions, wantsJson } from './shared.ts';
import { heartbeatOption, lockOptions, metadataTableOption, serviceOpts } from './service-options.ts';

type Remediation = typeof import('../src/services/remediation/index.ts');
const lib = (): Promise<Remediation> => import('../src/services/remediation/index.ts');

/** Exit code of a dry run that would change something. */
const WOULD_CHANGE = 3;

const LOCK_OPTIONS = lockOptions();
const DRY_RUN: OptionSpec = { flags: '--dry-run', description: 'show exactly what would change, change nothing (exit 3 when something would)' };
const HEARTBEAT = heartbeatOption();
const METADATA_TABLE = metadataTableOption('kept in step, as Hudi does');
/** hudi-cli's Spark launch options: accepted so scripts keep working, nothing is launched. */
const SPARK: OptionSpec[] = [
  { flags: '--sparkProperties <file>', description: 'ignored (hudi-cli compatibility: no Spark job is launched)' },
  { flags: '--sparkMaster <master>', description: 'ignored (hudi-cli compatibility)' },
  { flags: '--sparkMemory <mem>', description: 'ignored (hudi-cli compatibility)' },
];


function required(o: Opts, key: string, flag = key): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw new TblError('usage', `--${flag} is required`);
  return v;
}

interface ChangeRow {
  op: string;
  path: string;
  what: string;
}

const changeColumns: ColumnSpec<ChangeRow>[] = [
  { key: 'op', header: 'Change', value: (r) => r.op },
  { key: 'path', header: 'Path', value: (r) => r.path },
  { key: 'what', header: 'What', value: (r) => r.what },
];

/** Prints a report: JSON as it is, else the message, warnings and the change table. Returns the exit code. */
function report(ctx: Ctx, o: Opts, r: { dryRun?: boolean; changes: ChangeRow[]; warnings?: string[] }, message: string): number {
  for (const w of r.warnings ?? []) ctx.out.warn(w);
  if (wantsJson(o)) ctx.out.json(r);
  else {
    ctx.out.text(message);
    if (r.changes.length > 0) ctx.out.table(changeColumns, r.changes, outputOptions({ ...o, json: undefined }));
  }
  return r.dryRun && r.changes.length > 0 ? WOULD_CHANGE : 0;
}

const renameColumns: ColumnSpec<import('../src/services/remediation/index.ts').RenameOp>[] = [
  { key: 'fileId', header: 'File Id', value: (r) => r.fileId },
  { key: 'sourceFilePath', header: 'Source File Path', value: (r) => r.from },
  { key: 'destinationFilePath', header: 'Destination File Path', value: (r) => r.to },
  { key: 'renameExecuted', header: 'Rename Executed?', value: (r) => r.executed },
  { key: 'renameSucceeded', header: 'Rename Succeeded?', value: (r) => r.succeeded },
  { key: 'error', header: 'Error', value: (r) => r.error },
];

/** hudi-cli's rename table R (CompactionCommand.getRenamesToBePrinted). */
function printRenames(ctx: Ctx, o: Opts, r: import('../src/services/remediation/index.ts').CompactionAdminReport, operation: string): number {
  for (const w of r.warnings) ctx.out.warn(w);
  if (wantsJson(o)) {
    ctx.out.json(r);
  } else if (r.renames.length === 0) {
    ctx.out.text(`No File renames needed to ${operation}. Operation successful.`);
  } else {
    ctx.out.text(`There were some file renames that needed to be done to ${operation}`);
    if (!r.dryRun) ctx.out.text(r.renames.every((x) => x.succeeded) ? `All renames successfully completed to ${operation} done !!` : 'Some renames failed. table could be in inconsistent-state. Try running compaction repair');
    ctx.out.table(renameColumns, r.renames, outputOptions({ ...o, json: undefined }));
  }
  if (!wantsJson(o) && r.changes.length > 0 && (r.dryRun || r.renames.length === 0)) ctx.out.table(changeColumns, r.changes, outputOptions({ ...o, json: undefined }));
  if (r.renames.some((x) => x.executed && !x.succeeded)) return 1;
  return r.dryRun && r.changes.length > 0 ? WOULD_CHANGE : 0;
}

async function localFile(ctx: Ctx, file: string): Promise<{ path: string; bytes: Uint8Array }> {
  const path = resolve(ctx.cwd, file);
  try {
    return { path, bytes: await readFile(path) };
  } catch (e) {
    throw new TblError('usage', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { path, cause: e });
  }
}

const propertyColumns: ColumnSpec<{ property: string; oldValue: string; newValue: string }>[] = [
  { key: 'property', header: 'Property', value: (r) => r.property },
  { key: 'oldValue', header: 'Old Value', value: (r) => r.oldValue },
  { key: 'newValue', header: 'New Value', value: (r) => r.newValue },
];

/** The old/new property table (hudi-cli), then the change list of a dry run. */
function printProps(ctx: Ctx, o: Opts, r: import('../src/services/remediation/index.ts').PropsReport): number {
  for (const w of r.warnings) ctx.out.warn(w);
  if (wantsJson(o)) ctx.out.json(r);
  else {
    ctx.out.table(propertyColumns, r.rows, outputOptions({ ...o, json: undefined }));
    if (r.dryRun) {
      ctx.out.text('Dry run: nothing was written. It would:');
      ctx.out.table(changeColumns, r.changes, outputOptions({ ...o, json: undefined }));
    }
  }
  return r.dryRun && r.rows.some((x) => x.oldValue !== x.newValue) ? WOULD_CHANGE : 0;
}

const failedColumns: ColumnSpec<import('../src/services/remediation/index.ts').FailedWrite & { result?: string }>[] = [
  { key: 'instant', header: 'Instant', value: (r) => r.instant },
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'state', header: 'State', value: (r) => r.state },
  { key: 'ageSeconds', header: 'Age (s)', value: (r) => Math.round(r.ageMs / 1000) },
  { key: 'heartbeat', header: 'Heartbeat', value: (r) => r.heartbeat },
  { key: 'fix', header: 'Fix', value: (r) => r.fix },
  { key: 'result', header: 'Result', value: (r) => r.result ?? '' },
];

export const remediationSpecs: CommandSpec[] = [
  {
    name: 'commit rollback',
    summary: 'Roll back a commit (the latest completed one, or a pending write; a pending compaction goes back to requested); no Spark',
    writes: { plan: ['--dry-run'] },
    options: [
      { flags: '--commit <instant>', description: 'instant to roll back (required)' },
      { flags: '--rollbackUsingMarkers [bool]', description: "plan a pending instant from its markers when it has them (default true, Hudi writers' default; hudi-cli's is false)", parse: parseBool },
      { flags: '--force', description: 'roll back although the instant has a live heartbeat (a running writer)' },
      DRY_RUN,
      METADATA_TABLE,
      HEARTBEAT,
      ...LOCK_OPTIONS,
      ...SPARK,
    ],
    async action(ctx, o) {
      const time = required(o, 'commit');
      const table = await openFromOpts(ctx, o);
      const r = await (await lib()).rollbackCommit(table, time, {
        ...serviceOpts(ctx, o),
        useMarkers: o.rollbackUsingMarkers as boolean | undefined,
        force: o.force === true,
        dryRun: o.dryRun === true,
      });
      const what = `${r.action} ${time} (${r.state.toLowerCase()})`;
      const finished = r.state === 'GONE' && r.requests.length === 0 && r.reused;
      const msg = finished
        ? `Commit ${time} rolled back (by rollback ${r.rollbackInstant}${r.changes.length > 0 ? (r.dryRun ? '; its leftovers would be removed:' : '; its leftovers removed') : ''})`
        : r.dryRun
        ? `Dry run: rolling back ${what}${r.reused ? ` finishes the pending rollback ${r.rollbackInstant}` : ''} would:`
        : `Commit ${time} rolled back (rollback ${r.rollbackInstant}${r.reused ? ', a pending rollback finished' : ''}: ${r.deletedFiles.length} file(s) deleted, ${Object.keys(r.rollbackLogFiles).length} rollback block(s))`;
      return report(ctx, o, r, msg);
    },
  },
  {
    name: 'rollback failed',
    summary: 'Roll back every failed write (pending, heartbeat expired or missing, older than --older-than) newest first; dry run unless --yes',
    writes: { plan: [], execute: ['--yes'], fixed: ['--yes'] },
    table: { limit: -1 },
    options: [
      { flags: '--older-than <duration>', description: 'only instants older than this (by instant time) are failed writes', default: '1h', parse: parseDurationOpt },
      { flags: '--yes', description: 'roll them back (default: only list them)' },
      HEARTBEAT,
      METADATA_TABLE,
      ...LOCK_OPTIONS,
    ],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const olderThanMs = typeof o.olderThan === 'number' ? o.olderThan : parseDurationOpt(String(o.olderThan ?? '1h'));
      const r = await (await lib()).rollbackFailedWrites(table, { ...serviceOpts(ctx, o), olderThanMs, dryRun: o.yes !== true });
      if (wantsJson(o)) ctx.out.json(r);
      else {
        const rows = r.candidates.map((c, n) => {
          const res = r.results[n];
          return { ...c, result: !res ? (r.dryRun ? '' : 'not attempted') : !res.ok ? `failed: ${res.error}` : r.dryRun ? 'would be done' : res.rollbackInstant ? `done (rollback ${res.rollbackInstant})` : 'done' };
        });
        if (rows.length === 0) ctx.out.text('No failed writes found.');
        else {
          ctx.out.text(r.dryRun ? `${rows.length} failed write(s); nothing was changed (add --yes to roll them back, newest first):` : `${rows.length} failed write(s):`);
          ctx.out.table(failedColumns, rows, outputOptions({ ...o, json: undefined }));
        }
        for (const s of r.skipped) ctx.out.info(`not touched: ${s.action} ${s.instant} (${s.state.toLowerCase()}): ${s.why}`);
      }
      if (r.results.some((x) => !x.ok)) return r.dryRun ? WOULD_CHANGE : 1;
      if (!r.dryRun && r.results.length < r.candidates.length) return 1;
      return r.dryRun && r.candidates.length > 0 ? WOULD_CHANGE : 0;
    },
  },
  {
    name: 'savepoint create',
    summary: 'Savepoint a completed commit (its files are kept by the cleaner; restore with savepoint rollback)',
    writes: { plan: ['--dry-run'] },
    options: [
      { flags: '--commit <instant>', description: 'completed commit to savepoint (required)' },
      { flags: '--user <name>', description: 'savepointedBy (hudi-cli default "default"); the WebHDFS user comes from HADOOP_USER_NAME here', default: 'default' },
      { flags: '--comments <text>', description: 'comments stored with the savepoint', default: 'default' },
      DRY_RUN,
      ...LOCK_OPTIONS,
      ...SPARK,
    ],
    async action(ctx, o) {
      const time = required(o, 'commit');
      // --user names the savepoint's author here, not the WebHDFS user
      const table = await openFromOpts(ctx, { ...o, user: undefined });
      const r = await (await lib()).createSavepoint(table, time, { ...serviceOpts(ctx, o), user: String(o.user ?? 'default'), comments: String(o.comments ?? 'default'), dryRun: o.dryRun === true });
      return report(ctx, o, r, r.dryRun ? `Dry run: savepointing ${time} would:` : `The commit "${time}" has been savepointed.`);
    },
  },
  {
    name: 'savepoint delete',
    summary: 'Delete a savepoint',
    writes: { plan: ['--dry-run'] },
    options: [{ flags: '--commit <instant>', description: 'savepoint to delete (required)' }, DRY_RUN, ...LOCK_OPTIONS, ...SPARK],
    async action(ctx, o) {
      const time = required(o, 'commit');
      const r = await (await lib()).deleteSavepoint(await openFromOpts(ctx, o), time, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true });
      return report(ctx, o, r, r.dryRun ? `Dry run: deleting savepoint ${time} would:` : `Savepoint "${time}" deleted.`);
    },
  },
  {
    name: 'savepoint rollback',
    summary: 'Restore the table to a savepoint: every later instant rolled back (a restore instant); drops a metadata table first',
    writes: { plan: ['--dry-run'] },
    options: [
      { flags: '--savepoint <instant>', description: 'savepoint to restore to (required)' },
      { flags: '--force', description: 'restore although later instants have live heartbeats' },
      { flags: '--lazyFailedWritesCleanPolicy [bool]', description: 'ignored (hudi-cli compatibility)', parse: parseBool },
      DRY_RUN,
      { flags: '--metadata-table <mode>', description: "'update'/'disable' (default: the metadata table is dropped the Hudi way, with a warning) or 'refuse'", default: 'update' },
      HEARTBEAT,
      ...LOCK_OPTIONS,
      ...SPARK,
    ],
    async action(ctx, o) {
      const sp = required(o, 'savepoint');
      const r = await (await lib()).restoreToSavepoint(await openFromOpts(ctx, o), sp, { ...serviceOpts(ctx, o), force: o.force === true, dryRun: o.dryRun === true });
      const n = r.instantsToRollback.length;
      const msg = r.dryRun
        ? `Dry run: restoring to savepoint ${sp}${r.resumed ? ` resumes restore ${r.restoreInstant}` : ''} rolls back ${n} instant(s) (${r.instantsToRollback.map((e) => `${e.commitTime} ${e.action}`).join(', ') || 'none'}) and would:`
        : `Savepoint "${sp}" rolled back (restore ${r.restoreInstant ?? '-'}${r.resumed ? ', resumed' : ''}: ${r.rolledBack.length} instant(s) rolled back)`;
      return report(ctx, o, r, msg);
    },
  },
  {
    name: 'marker delete',
    summary: "Delete an instant's marker directory (.hoodie/.temp/<instant>)",
    writes: { plan: ['--dry-run'] },
    options: [{ flags: '--commit <instant>', description: 'instant whose markers to delete (required)' }, { flags: '--force', description: 'delete although the instant has a live heartbeat' }, DRY_RUN, HEARTBEAT, ...LOCK_OPTIONS, ...SPARK],
    async action(ctx, o) {
      const time = required(o, 'commit');
      const r = await (await lib()).deleteMarkers(await openFromOpts(ctx, o), time, { ...serviceOpts(ctx, o), force: o.force === true, dryRun: o.dryRun === true });
      const msg = r.dryRun ? `Dry run: deleting the markers of ${time} would:` : r.changes.length > 0 ? `Marker "${time}" deleted.` : `Marker "${time}" deleted. (there was no marker directory)`;
      return report(ctx, o, r, msg);
    },
  },
  {
    name: 'compaction unscheduleFileId',
    summary: 'Take one file group out of its pending compaction plan (v6: its log files renamed back onto the slice before)',
    writes: { plan: ['--dryRun', 'true'], fixed: ['--dryRun'] },
    options: [
      { flags: '--fileId <id>', description: 'file id (required)' },
      { flags: '--partitionPath <path>', description: 'partition of the file group (default: any)' },
      { flags: '--skipValidation [bool]', description: "do not check the operation's files exist", default: false, parse: parseBool },
      { flags: '--dryRun [bool]', description: 'show the renames and plan change, change nothing', default: false, parse: parseBool },
      { flags: '--metadata-table <mode>', description: "renames with a metadata table need 'disable' (drop it first); default 'update' refuses", default: 'update' },
      ...LOCK_OPTIONS,
      ...SPARK,
    ],
    async action(ctx, o) {
      const fileId = required(o, 'fileId');
      const r = await (await lib()).unscheduleCompactionFileId(await openFromOpts(ctx, o), fileId, typeof o.partitionPath === 'string' ? o.partitionPath : undefined, {
        ...serviceOpts(ctx, o),
        skipValidation: o.skipValidation === true,
        dryRun: o.dryRun === true,
      });
      return printRenames(ctx, o, r, 'unschedule file from pending compaction');
    },
  },
  {
    name: 'compaction repair',
    summary: 'Use when compaction unschedule fails partially: align log files with a pending compaction plan (v6 renames)',
    writes: { plan: ['--dryRun', 'true'], fixed: ['--dryRun'] },
    options: [
      { flags: '--instant <instant>', description: 'compaction instant (required)' },
      { flags: '--dryRun [bool]', description: 'show the renames, change nothing', default: false, parse: parseBool },
      { flags: '--metadata-table <mode>', description: "renames with a metadata table need 'disable'", default: 'update' },
      ...LOCK_OPTIONS,
      ...SPARK,
    ],
    async action(ctx, o) {
      const instant = required(o, 'instant');
      const r = await (await lib()).repairCompaction(await openFromOpts(ctx, o), instant, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true });
      return printRenames(ctx, o, r, 'repair compaction');
    },
  },
  {
    name: 'repair addpartitionmeta',
    summary: 'Add .hoodie_partition_metadata to partition directories (at the table\'s partition depth) that lack it; dry run unless --dryrun false',
    writes: { plan: ['--dryrun', 'true'], execute: ['--dryrun', 'false'], fixed: ['--dryrun'] },
    table: { limit: -1 },
    options: [{ flags: '--dryrun [bool]', description: 'only report (hudi-cli default true)', default: true, parse: parseBool }, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const dryRun = o.dryrun !== false;
      const r = await (await lib()).addPartitionMeta(await openFromOpts(ctx, o), { ...serviceOpts(ctx, o), dryRun });
      if (wantsJson(o)) ctx.out.json({ dryRun, ...r });
      else
        ctx.out.table(
          [
            { key: 'partitionPath', header: 'Partition Path', value: (x: (typeof r.rows)[number]) => x.partitionPath },
            { key: 'metadataPresent', header: 'Metadata Present?', value: (x) => x.metadataPresent },
            { key: 'action', header: 'Action', value: (x) => x.action },
          ],
          r.rows,
          outputOptions(o),
        );
      return dryRun && r.changes.length > 0 ? WOULD_CHANGE : 0;
    },
  },
  {
    name: 'repair overwrite-hoodie-props',
    summary: 'Overwrite hoodie.properties with a local file (safe update; checksum recomputed)',
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    options: [{ flags: '--new-props-file <file>', description: 'local properties file (required)' }, DRY_RUN, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const f = await localFile(ctx, required(o, 'newPropsFile', 'new-props-file'));
      return printProps(ctx, o, await (await lib()).overwriteHoodieProps(await openFromOpts(ctx, o), f.bytes, f.path, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true }));
    },
  },
  {
    name: 'repair corrupted clean files',
    summary: 'Delete pending clean instants whose plan cannot be read',
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    options: [DRY_RUN, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const r = await (await lib()).repairCorruptedCleanFiles(await openFromOpts(ctx, o), { ...serviceOpts(ctx, o), dryRun: o.dryRun === true });
      if (wantsJson(o)) ctx.out.json({ dryRun: o.dryRun === true, ...r });
      else if (r.rows.length === 0) ctx.out.text('No corrupted clean files found.');
      else
        ctx.out.table(
          [
            { key: 'instant', header: 'Instant', value: (x: (typeof r.rows)[number]) => x.instant },
            { key: 'state', header: 'State', value: (x) => x.state },
            { key: 'problem', header: 'Problem', value: (x) => x.problem },
            { key: 'action', header: 'Action', value: (x) => x.action },
          ],
          r.rows,
          outputOptions(o),
        );
      return o.dryRun === true && r.changes.length > 0 ? WOULD_CHANGE : 0;
    },
  },
  {
    name: 'repair show empty commit metadata',
    summary: 'List completed instants whose metadata file is empty',
    options: [{ flags: '--exit-code [bool]', description: 'exit 3 when one is found', default: false, parse: parseBool }],
    async action(ctx, o) {
      const r = await (await lib()).emptyCommitMetadata(await openFromOpts(ctx, o));
      if (wantsJson(o)) ctx.out.json(r);
      else if (r.length === 0) ctx.out.text('No empty commit metadata found.');
      else for (const x of r) ctx.out.text(`Empty Commit: [${x.instant}__${x.action}__COMPLETED] (${x.file})`);
      return o.exitCode === true && r.length > 0 ? WOULD_CHANGE : 0;
    },
  },
  {
    name: 'table update-configs',
    summary: 'Update hoodie.properties from a local properties file (safe update with backup and checksum)',
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    options: [{ flags: '--props-file <file>', description: 'local properties file with the keys to set (required)' }, DRY_RUN, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const f = await localFile(ctx, required(o, 'propsFile', 'props-file'));
      return printProps(ctx, o, await (await lib()).updateTableConfigs(await openFromOpts(ctx, o), f.bytes, f.path, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true }));
    },
  },
  {
    name: 'table delete-configs',
    summary: 'Delete keys from hoodie.properties (safe update with backup and checksum)',
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    options: [{ flags: '--comma-separated-configs <keys>', description: 'keys to delete, comma-separated (required)' }, DRY_RUN, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const keys = required(o, 'commaSeparatedConfigs', 'comma-separated-configs').split(',').map((k) => k.trim()).filter(Boolean);
      return printProps(ctx, o, await (await lib()).deleteTableConfigs(await openFromOpts(ctx, o), keys, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true }));
    },
  },
  {
    name: 'table recover-configs',
    summary: 'Recover hoodie.properties after a crashed update (from hoodie.properties.backup), then describe the table',
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    options: [DRY_RUN, ...LOCK_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await lib()).recoverTableConfigs(table, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true });
      if (wantsJson(o)) ctx.out.json(r);
      else {
        ctx.out.info(r.action === 'none' ? 'hoodie.properties needs no recovery (no backup file)' : r.action === 'restore' ? 'hoodie.properties restored from hoodie.properties.backup' : 'hoodie.properties is valid; the stale backup was removed');
        if (r.dryRun && r.changes.length > 0) {
          ctx.out.text('Dry run: nothing was written. It would:');
          ctx.out.table(changeColumns, r.changes, outputOptions({ ...o, json: undefined }));
        } else {
          const { openTableAt } = await import('../src/table/index.ts');
          const v = await import('../src/views/service-results.ts');
          const d = v.describe(await openTableAt(table.storage, table.basePath, table.uri));
          ctx.out.table(d.columns, d.rows, outputOptions(o));
        }
      }
      return r.dryRun && r.changes.length > 0 ? WOULD_CHANGE : 0;
    },
  },
];
