// The metadata table's `record_index` partition read back: record key → (data partition, file id,
// instant). Each file group's latest slice merged as a reader does (HFile base, then the log blocks of
// valid instants in order; a rolled-back instant's blocks dropped, deletes remove keys; the newest
// record of a key wins, as HoodieRecordIndexInfo records combine).
import { HFileReader } from '../hfile/index.ts';
import { COMMAND_ROLLBACK, readLogFile, type LogBlock, type LogRecord } from '../logfile/index.ts';
import { buildFileSystemView } from '../fs-view/index.ts';
import type { Storage } from '../storage/index.ts';
import { decodeMetadataRecord, recordIndexFileId, type RecordIndexInfo } from './records.ts';
import { mdtViewTimeline, openMetadataTable } from './table.ts';

export const RECORD_INDEX_PARTITION = 'record_index';

export interface RecordLocation {
  partition: string;
  fileId: string;
  /** the instant as epoch millis (HoodieRecordIndexInfo.instantTime) */
  instantTime: number;
  info: RecordIndexInfo;
}

type Raw = { key: string; value: Uint8Array; schema: string; path: string };

export async function readRecordIndex(storage: Storage, basePath: string): Promise<Map<string, RecordLocation>> {
  const m = await openMetadataTable(storage, basePath);
  const view = await buildFileSystemView(m.mdt.storage, m.mdt.basePath, await mdtViewTimeline(m), { partitions: [RECORD_INDEX_PARTITION] });
  const out = new Map<string, RecordLocation>();
  const put = (r: Raw): void => {
    const rec = decodeMetadataRecord(r.key, r.value, r.schema, r.path);
    if (!('recordIndex' in rec)) return;
    const ri = rec.recordIndex;
    out.set(r.key, { partition: ri.partitionName ?? '', fileId: recordIndexFileId(ri), instantTime: Number(ri.instantTime), info: ri });
  };
  for (const slice of view.latestMergedFileSlices(RECORD_INDEX_PARTITION)) {
    if (slice.baseFile) {
      const reader = await HFileReader.open(m.mdt.storage, slice.baseFile.path, { size: slice.baseFile.size });
      const schema = reader.avroSchemaJson!;
      for (const r of await reader.readAll()) put({ key: r.key, value: r.value, schema, path: slice.baseFile.path });
    }
    const blocks: { block: LogBlock; raw: Raw[] }[] = [];
    for (const lf of slice.logFiles) {
      const contents = await readLogFile(m.mdt.storage, lf.path, {
        size: lf.size,
        withRecords: true,
        decodeHFile: async (content, header) => {
          const recs = await (await HFileReader.fromBytes(content, lf.path)).readAll();
          return recs.map((r) => ({ key: r.key, value: r.value, schema: header.SCHEMA!, path: lf.path })) as unknown as LogRecord[];
        },
      });
      for (const block of contents.blocks) blocks.push({ block, raw: (block.records ?? []) as unknown as Raw[] });
    }
    const rolledBack = new Set<string>();
    for (const { block } of blocks) {
      if (block.type === 'COMMAND_BLOCK' && block.header.COMMAND_BLOCK_TYPE === COMMAND_ROLLBACK && block.header.TARGET_INSTANT_TIME) rolledBack.add(block.header.TARGET_INSTANT_TIME);
    }
    for (const { block, raw } of blocks) {
      const instant = block.header.INSTANT_TIME;
      if (block.type === 'COMMAND_BLOCK' || block.corrupt || !instant || !m.validInstants.has(instant) || rolledBack.has(instant)) continue;
      if (block.type === 'HFILE_DATA_BLOCK') for (const r of raw) put(r);
      else if (block.type === 'DELETE_BLOCK') for (const d of block.deletes ?? []) if (d.recordKey) out.delete(d.recordKey);
    }
  }
  return out;
}
