// metadata list-partitions | list-files | stats | validate-files | timeline show (hudi-cli MetadataCommand,
// TimelineCommand). The metadata table is read without Spark through src/mdt.
import { TblError } from '../errors/index.ts';
import type { ColumnSpec, Raw } from '../render/index.ts';
import { listPartitions } from '../fs-view/index.ts';
import { metadataTablePath, metadataTableStats, openMetadataTable, readFilesPartition } from '../mdt/index.ts';
import type { Table } from '../table/index.ts';
import { openTableAt } from '../table/index.ts';
import { joinPath } from '../util/index.ts';
import { javaHashMapOrder } from './java-map.ts';
import type { TableResult } from './result.ts';
import { timelineShow } from './service-results.ts';

export interface MetadataResult<R = unknown> extends TableResult<R> {
  warnings: string[];
}

async function readFiles(table: Table) {
  const m = await openMetadataTable(table.storage, table.basePath);
  return readFilesPartition(m);
}

function skippedWarnings(files: Awaited<ReturnType<typeof readFiles>>, table: Table): string[] {
  return [
    ...files.warnings,
    ...files.skippedBlocks
      .filter((s) => s.reason.startsWith('corrupt'))
      .map((s) => `${table.storage.uri(s.path)}: block at offset ${s.offset}: ${s.reason}`),
  ];
}

// ---------------------------------------------------------------- list-partitions

export const partitionColumns: ColumnSpec<string>[] = [{ key: 'partition', header: 'partition', value: (p) => p }];

/** Partitions from the `files` partition's __all_partitions__ record, sorted in reverse (hudi-cli). */
export async function metadataListPartitions(table: Table): Promise<MetadataResult<string>> {
  const files = await readFiles(table);
  const rows = [...files.partitions].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return { columns: partitionColumns, rows, warnings: skippedWarnings(files, table) };
}

// ---------------------------------------------------------------- list-files

export interface MetadataFileRow {
  path: string;
  size: number;
}

/** FileSystem default block size: LocalFileSystem 32 MB, HDFS 128 MB. */
function defaultBlockSize(scheme: string): number {
  return scheme === 'file' ? 33554432 : 134217728;
}

/** StoragePathInfo.toString of the entries HoodieMetadataPayload.getFileList builds. */
export function storagePathInfoString(uri: string, size: number, blockSize: number): string {
  return `StoragePathInfo{path=${uri}, length=${size}, isDirectory=false, blockReplication=0, blockSize=${blockSize}, modificationTime=0}`;
}

export async function metadataListFiles(table: Table, partition: string): Promise<MetadataResult<MetadataFileRow>> {
  const files = await readFiles(table);
  const p = partition.replace(/^\/+|\/+$/g, '');
  const inPartition = files.files.get(p);
  if (!inPartition) {
    throw new TblError('not-found', `partition '${p}' is not in the metadata table of ${table.uri}`, {
      path: table.storage.uri(joinPath(table.basePath, p)),
      hint: 'list them with `metadata list-partitions`',
    });
  }
  const dir = p === '' ? table.basePath : joinPath(table.basePath, p);
  // sorted by file name, descending (hudi-cli)
  const rows = [...inPartition]
    .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
    .map(([name, size]) => ({ path: table.storage.uri(joinPath(dir, name)), size }));
  const sizes = new Map(rows.map((r) => [r.path, r.size]));
  const blockSize = defaultBlockSize(table.storage.scheme);
  const columns: ColumnSpec<MetadataFileRow>[] = [
    {
      key: 'filePath',
      header: 'file path',
      value: (r) => r.path,
      format: (raw: Raw) => storagePathInfoString(String(raw), sizes.get(String(raw)) ?? 0, blockSize),
    },
  ];
  return { columns, rows, warnings: skippedWarnings(files, table) };
}

// ---------------------------------------------------------------- stats

export const statsColumns: ColumnSpec<[string, string]>[] = [
  { key: 'statKey', header: 'stat key', value: (r) => r[0] },
  { key: 'statValue', header: 'stat value', value: (r) => r[1] },
];

export async function metadataStats(table: Table): Promise<MetadataResult<[string, string]>> {
  const s = await metadataTableStats(table.storage, table.basePath);
  // HoodieMetadataMetrics.getStats fills a HashMap
  const byKey = new Map(s.entries);
  const rows = javaHashMapOrder([...byKey.keys()], 16).map((k) => [k, byKey.get(k)!] as [string, string]);
  return { columns: statsColumns, rows, warnings: [] };
}

// ---------------------------------------------------------------- validate-files

export interface ValidateRow {
  partition: string;
  fileName: string;
  presentInFs: boolean;
  presentInMetadata: boolean;
  fsSize: number;
  metadataSize: number;
}

export const validateColumns: ColumnSpec<ValidateRow>[] = [
  { key: 'partition', header: 'Partition', value: (r) => r.partition },
  { key: 'fileName', header: 'File Name', value: (r) => r.fileName },
  { key: 'presentInFs', header: ' Is Present in FS ', value: (r) => r.presentInFs },
  { key: 'presentInMetadata', header: ' Is Present in Metadata', value: (r) => r.presentInMetadata },
  { key: 'fsSize', header: ' FS size', value: (r) => r.fsSize },
  { key: 'metadataSize', header: ' Metadata size', value: (r) => r.metadataSize },
];

const DATA_EXTENSIONS = new Set(['.parquet', '.log', '.hfile', '.orc', '.lance']);

/** FSUtils.getAllDataFilesInPartition: base-file extensions, or any name containing ".log". */
export function isDataFileName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 && DATA_EXTENSIONS.has(name.slice(dot))) || name.includes('.log');
}

export interface ValidateResult extends MetadataResult<ValidateRow> {
  /** mismatching files (the rows when not verbose) */
  mismatches: number;
  fsPartitions: string[];
  metadataPartitions: string[];
}

/** Listing (FileSystemBackedTableMetadata) vs the metadata table, file by file. */
export async function metadataValidateFiles(table: Table, verbose: boolean): Promise<ValidateResult> {
  const [files, listed] = await Promise.all([readFiles(table), listPartitions(table.storage, table.basePath)]);
  const warnings = skippedWarnings(files, table);
  const fsPartitions = listed.map((l) => l.partition).sort();
  const metadataPartitions = [...files.partitions].sort();
  if (fsPartitions.join('\u0000') !== metadataPartitions.join('\u0000')) {
    warnings.push(
      `FS partition listing is not matching with metadata partition listing! FS: [${fsPartitions.join(', ')}] metadata: [${metadataPartitions.join(', ')}]`,
    );
  }
  const fsByPartition = new Map(
    listed.map((l) => [l.partition, new Map(l.files.filter((f) => !f.isDirectory && isDataFileName(f.name)).map((f) => [f.name, f.size]))]),
  );
  const rows: ValidateRow[] = [];
  let mismatches = 0;
  // hudi-cli walks HashSets: partitions, then the file names of each partition
  for (const partition of javaHashMapOrder([...new Set([...fsPartitions, ...metadataPartitions])], 16)) {
    const fs = fsByPartition.get(partition) ?? new Map<string, number>();
    const md = files.files.get(partition) ?? new Map<string, number>();
    for (const name of javaHashMapOrder([...new Set([...fs.keys(), ...md.keys()])], 16)) {
      const row: ValidateRow = {
        partition,
        fileName: name,
        presentInFs: fs.has(name),
        presentInMetadata: md.has(name),
        fsSize: fs.get(name) ?? 0,
        metadataSize: md.get(name) ?? 0,
      };
      const bad = row.presentInFs !== row.presentInMetadata || row.fsSize !== row.metadataSize;
      if (bad) {
        mismatches++;
        if (!row.presentInMetadata) warnings.push(`FS file not found in metadata: ${partition === '' ? '' : `${partition}/`}${name}`);
        else if (!row.presentInFs) warnings.push(`Metadata file not found in FS: ${partition === '' ? '' : `${partition}/`}${name}`);
        else warnings.push(`file size mismatch: ${partition === '' ? '' : `${partition}/`}${name}: FS size ${row.fsSize}, metadata size ${row.metadataSize}`);
      }
      if (verbose || bad) rows.push(row);
    }
  }
  return { columns: validateColumns, rows, warnings, mismatches, fsPartitions, metadataPartitions };
}

// ---------------------------------------------------------------- timeline

/** The metadata table (`<base>/.hoodie/metadata`) as a Table, for `metadata timeline show`. */
export async function openMetadataTableAsTable(table: Table): Promise<Table> {
  const path = metadataTablePath(table.basePath);
  if (!(await table.storage.exists(joinPath(path, '.hoodie', 'hoodie.properties')))) {
    throw new TblError('not-found', `Metadata Table not enabled/initialized: ${table.storage.uri(path)} does not exist`, {
      path: table.storage.uri(path),
    });
  }
  return openTableAt(table.storage, path);
}

export async function metadataTimelineShow(
  table: Table,
  opts: { incomplete: boolean; rollbackInfo: boolean; seconds: boolean },
): Promise<TableResult> {
  return timelineShow(await openMetadataTableAsTable(table), opts);
}
