// show fsview all|latest, stats wa, stats filesizes.
import type { CommandSpec, OptionSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions, tableAction } from './shared.ts';

const viewOptions: OptionSpec[] = [
  { flags: '--baseFileOnly [bool]', description: 'only display base files', default: false, parse: parseBool },
  { flags: '--maxInstant <instant>', description: 'file slices up to this instant', default: '' },
  { flags: '--includeMax [bool]', description: 'include the max instant', default: false, parse: parseBool },
  { flags: '--includeInflight [bool]', description: 'include files of inflight instants', default: false, parse: parseBool },
  { flags: '--excludeCompaction [bool]', description: 'exclude compaction instants', default: false, parse: parseBool },
];

const fsOpts = (o: Record<string, unknown>) => ({
  baseFileOnly: o.baseFileOnly === true,
  maxInstant: (o.maxInstant as string) || undefined,
  includeMax: o.includeMax === true,
  includeInflight: o.includeInflight === true,
  excludeCompaction: o.excludeCompaction === true,
});

export const fsviewSpecs: CommandSpec[] = [
  {
    name: 'show fsview all',
    summary: 'Show entire file-system view',
    jsonFields: async () => ['partition', 'fileId', 'baseInstant', 'dataFile', 'dataFileSize', 'numDeltaFiles', 'totalDeltaFileSize', 'deltaFiles'],
    table: { limit: -1 },
    options: [
      { flags: '--pathRegex <glob>', description: 'partition glob (* one level, ** any depth; default: all partitions)', default: '**' },
      ...viewOptions,
    ],
    action: tableAction(async (table, o) =>
      (await import('../src/views/fsview.ts')).showFsViewAll(table, o.pathRegex as string, fsOpts(o)),
    ),
  },
  {
    name: 'show fsview latest',
    summary: 'Show latest file-system view',
    jsonFields: async () => ['partition', 'fileId', 'baseInstant', 'dataFile', 'dataFileSize', 'numDeltaFiles', 'totalDeltaSize', 'deltaSizeScheduled', 'deltaSizeUnscheduled', 'deltaToBaseRatioScheduled', 'deltaToBaseRatioUnscheduled', 'deltaFilesScheduled', 'deltaFilesUnscheduled'],
    table: { limit: -1 },
    options: [
      { flags: '--partitionPath <partition>', description: 'a partition path ("" for non-partitioned tables)', default: '' },
      { flags: '--merge [bool]', description: 'merge file slices across a pending compaction', default: true, parse: parseBool },
      ...viewOptions,
    ],
    action: tableAction(async (table, o) =>
      (await import('../src/views/fsview.ts')).showFsViewLatest(table, o.partitionPath as string, o.merge !== false, fsOpts(o)),
    ),
  },
  {
    name: 'stats wa',
    summary: 'Write Amplification. Ratio of how many records were upserted to how many records were actually written',
    jsonFields: async () => ['commitTime', 'totalUpserted', 'totalWritten', 'writeAmplificationFactor'],
    table: { limit: -1 },
    action: tableAction(async (table, o) => (await import('../src/views/fsview.ts')).statsWa(table)),
  },
  {
    name: 'stats filesizes',
    summary: 'File Sizes. Display summary stats on sizes of files',
    jsonFields: async () => ['commitTime', 'min', 'p10', 'p50', 'avg', 'p95', 'max', 'numFiles', 'stdDev'],
    table: { limit: -1 },
    options: [{ flags: '--partitionPath <glob>', description: 'partition glob (default: all partitions)', default: '**' }],
    action: tableAction(async (table, o) =>
      (await import('../src/views/fsview.ts')).statsFileSizes(table, o.partitionPath as string),
    ),
  },
];
