// metadata list-partitions | list-files | stats | validate-files | timeline show active|incomplete.
// validate-files exits 0 whatever it finds (hudi-cli prints the differences as a table); each
// difference is also a warning on stderr.
import type { CommandSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { outputOptions, tableAction } from './shared.ts';
import { timelineSpec, type TimelineShowOptions } from './timeline.ts';
import type { Table } from '../src/table/index.ts';


// hudi-cli prints these tables with limit Integer.MAX_VALUE and no sort options
const plain = (o: Record<string, unknown>) => ({ ...outputOptions(o), limit: undefined, sortBy: undefined, desc: false, headerOnly: false });

const mdtTimeline = async (table: Table, opts: TimelineShowOptions) =>
  (await import('../src/views/metadata.ts')).metadataTimelineShow(table, opts);

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
  timelineSpec('metadata timeline show active', false, 'List all instants in active timeline of metadata table', mdtTimeline),
  timelineSpec('metadata timeline show incomplete', true, 'List all incomplete instants in active timeline of metadata table', mdtTimeline),
];
