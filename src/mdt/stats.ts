// `metadata stats`: HoodieMetadataMetrics.getStats(detailed=true) — per MDT partition, sizes and counts of
// the latest file slices, plus the data partition count from the `files` partition.
import type { Storage } from '../storage/index.ts';
import { buildFileSystemView } from '../fs-view/index.ts';
import { mdtViewTimeline, openMetadataTable } from './table.ts';
import { readFilesPartition } from './files.ts';

export interface MetadataPartitionStats {
  partition: string;
  totalBaseFileSizeInBytes: number;
  totalLogFileSizeInBytes: number;
  baseFileCount: number;
  logFileCount: number;
  fileGroupCount: number;
}

export interface MetadataTableStats {
  partitions: MetadataPartitionStats[];
  /** data partitions listed by the `files` partition */
  partitionCount: number;
  /** the key/value pairs hudi-cli prints ("<partition>.<stat>", "partitionCount"), sorted by key */
  entries: [string, string][];
}

export async function metadataTableStats(storage: Storage, basePath: string): Promise<MetadataTableStats> {
  const m = await openMetadataTable(storage, basePath);
  const view = await buildFileSystemView(storage, m.mdt.basePath, await mdtViewTimeline(m));
  const partitions: MetadataPartitionStats[] = view.partitions().map((partition) => {
    const s: MetadataPartitionStats = {
      partition,
      totalBaseFileSizeInBytes: 0,
      totalLogFileSizeInBytes: 0,
      baseFileCount: 0,
      logFileCount: 0,
      fileGroupCount: 0,
    };
    for (const slice of view.latestFileSlices(partition)) {
      s.fileGroupCount++;
      if (slice.baseFile) {
        s.baseFileCount++;
        s.totalBaseFileSizeInBytes += slice.baseFile.size;
      }
      for (const l of slice.logFiles) {
        s.logFileCount++;
        s.totalLogFileSizeInBytes += l.size;
      }
    }
    return s;
  });
  const partitionCount = (await readFilesPartition(m)).partitions.length;
  const entries: [string, string][] = [];
  for (const p of partitions) {
    for (const k of ['totalBaseFileSizeInBytes', 'totalLogFileSizeInBytes', 'baseFileCount', 'logFileCount', 'fileGroupCount'] as const) {
      entries.push([`${p.partition}.${k}`, String(p[k])]);
    }
  }
  entries.push(['partitionCount', String(partitionCount)]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { partitions, partitionCount, entries };
}
