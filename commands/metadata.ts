// metadata list-partitions | list-files | stats | validate-files | timeline show active|incomplete,
// and the writes metadata delete | delete-record-index (under the table lock, --dry-run).
// validate-files exits 0 whatever it finds (hudi-cli prints the differences as a table); each
// difference is also a warning on stderr.
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions, tableAction, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import { timelineSpec, type TimelineShowOptions } from './timeline.ts';
import type { Table } from '../src/table/index.ts';
import { lockOf, lockOptions } from './service-options.ts';


// hudi-cli prints these tables with limit Integer.MAX_VALUE and no sort options
const plain = (o: Record<string, unknown>) => ({ ...outputOptions(o), limit: undefined, sortBy: undefined, desc: false, headerOnly: false });

const mdtTimeline = async (table: Table, opts: TimelineShowOptions) =>
  (await import('../src/views/metadata.ts')).metadataTimelineShow(table, opts);

const DELETE_OPTIONS: OptionSpec[] = [
  { flags: '--backup [bool]', description: 'rename the directory to .hoodie/.metadata_<instant> instead of deleting it (hudi-cli default true; --backup false deletes)', default: true, parse: parseBool },
  { flags: '--dry-run', description: 'report what would be cleared, renamed or deleted; write nothing' },
  ...lockOptions(),
];

async function metadataDelete(ctx: Ctx, o: Opts, target: 'metadata-table' | 'record-index'): Promise<void> {
  const table = await openFromOpts(ctx, o);
  const services = await import('../src/services/index.ts');
  const opts = {
    backup: o.backup !== false,
    dryRun: o.dryRun === true,
    lock: lockOf(o),
    now: ctx.now,
  };
  const r = target === 'metadata-table' ? await services.deleteMetadataTable(table, opts) : await services.deleteRecordIndex(table, opts);
  if (wantsJson(o)) return ctx.out.json(r);
  const what = target === 'metadata-table' ? 'Metadata Table' : 'Record Index';
  for (const c of r.finishedCompactions) ctx.out.info(`finished the metadata-table compaction ${c} a crash had left pending`);
  if (!r.removedPath) {
    ctx.out.text(r.dryRun ? `No ${what} to delete in ${table.uri}` : `No ${what} in ${table.uri}${r.partitionsBefore.join(',') !== r.partitionsAfter.join(',') ? '; hoodie.table.metadata.partitions updated' : ''}`);
    return;
  }
  if (r.dryRun) {
    ctx.out.text(`Would clear hoodie.table.metadata.partitions (${r.partitionsBefore.join(',') || '<empty>'} -> ${r.partitionsAfter.join(',') || '<empty>'}), then ${r.backupPath ? `rename ${r.removedPath} to ${r.backupPath}` : `delete ${r.removedPath}`}`);
    return;
  }
  // hudi-cli's messages
  if (target === 'metadata-table') ctx.out.text(r.backupPath ? `Metadata Table has been deleted and backed up to ${r.backupPath}` : `Metadata Table has been deleted from ${r.removedPath}`);
  else ctx.out.text(r.backupPath ? `Record Index has been deleted from the Metadata Table and backed up to ${r.backupPath}` : 'Record Index has been deleted from the Metadata Table');
}

export const metadataSpecs: CommandSpec[] = [
  {
    name: 'metadata list-partitions',
    summary: 'List all partitions from metadata',
    jsonFields: async () => ['partition'],
    action: tableAction(async (table, o) => (await import('../src/views/metadata.ts')).metadataListPartitions(table), plain),
  },
  {
    name: 'metadata list-files',
    summary: 'Print a list of all files in a partition from the metadata',
    options: [{ flags: '--partition <partition>', description: 'name of the partition to list files ("" for a non-partitioned table)', default: '' }],
    jsonFields: async () => ['filePath'],
    action: tableAction(async (table, o) =>
      (await import('../src/views/metadata.ts')).metadataListFiles(table, (o.partition as string) ?? ''),
      plain,
    ),
  },
  {
    name: 'metadata stats',
    summary: 'Print stats about the metadata',
    jsonFields: async () => ['statKey', 'statValue'],
    action: tableAction(async (table, o) => (await import('../src/views/metadata.ts')).metadataStats(table), plain),
  },
  {
    name: 'metadata validate-files',
    summary: 'Validate all files in all partitions from the metadata',
    options: [{ flags: '--verbose [bool]', description: 'print all files, not only the differences', default: false, parse: parseBool }],
    jsonFields: async () => (await import('../src/views/metadata.ts')).validateColumns.map((c) => c.key),
    action: tableAction(async (table, o) =>
      (await import('../src/views/metadata.ts')).metadataValidateFiles(table, o.verbose === true),
      plain,
    ),
  },
  {
    name: 'metadata delete',
    summary: 'Remove the Metadata Table the Hudi way: hoodie.table.metadata.partitions cleared first, then .hoodie/metadata renamed (backup) or deleted; under the table lock',
    writes: { plan: ['--dry-run'] },
    options: DELETE_OPTIONS,
    jsonFields: async () => ['target', 'dryRun', 'removedPath', 'backupPath', 'partitionsBefore', 'partitionsAfter', 'finishedCompactions'],
    async action(ctx, o) {
      await metadataDelete(ctx, o, 'metadata-table');
    },
  },
  {
    name: 'metadata delete-record-index',
    summary: 'Delete the record index from the Metadata Table the Hudi way: record_index leaves hoodie.table.metadata.partitions first, then its directory is renamed (backup) or deleted; under the table lock',
    writes: { plan: ['--dry-run'] },
    options: DELETE_OPTIONS,
    jsonFields: async () => ['target', 'dryRun', 'removedPath', 'backupPath', 'partitionsBefore', 'partitionsAfter', 'finishedCompactions'],
    async action(ctx, o) {
      await metadataDelete(ctx, o, 'record-index');
    },
  },
  timelineSpec('metadata timeline show active', false, 'List all instants in active timeline of metadata table', mdtTimeline),
  timelineSpec('metadata timeline show incomplete', true, 'List all incomplete instants in active timeline of metadata table', mdtTimeline),
];
