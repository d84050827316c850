// Every real log file in the fixture tables parses end to end with no gaps, and its blocks match catalog.json.
import { describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { parseLogFileName } from '../../src/fs-view/index.ts';
import { readLogFile, type LogBlock } from '../../src/logfile/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table } from '../support/fixtures.ts';

const storage = new LocalStorage();

interface CatBlock {
  offset: number; block_length: number; log_format_version: number; type: string; instant_time: string;
  content_bytes: number; header_keys: string[]; content_version?: number; record_count?: number; target_instant_time?: string;
}
interface CatLog { partition: string; name: string; bytes: number; blocks: CatBlock[] }

function expectNoGaps(blocks: LogBlock[], size: number) {
  let pos = 0;
  for (const b of blocks) {
    expect(b.corrupt, `${b.type} at ${b.offset}: ${b.corrupt?.reason}`).toBeUndefined();
    expect(b.offset).toBe(pos);
    expect(b.size).toBe(b.blockLength + 14);
    pos += b.size;
  }
  expect(pos).toBe(size);
}

function walkLogs(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walkLogs(p, out);
    else if (parseLogFileName(n)?.ext === 'log') out.push(p);
  }
  return out;
}

describe.skipIf(!HAVE_FIXTURES)('log files of every fixture table', () => {
  const ids = HAVE_FIXTURES ? allTableIds().filter((id) => (catalogTable(id).log_files as CatLog[]).length > 0) : [];
  for (const id of ids) {
    it(`${id}: blocks = catalog, decoded, no gaps`, async () => {
      const base = table(id);
      for (const lf of catalogTable(id).log_files as CatLog[]) {
        const path = join(base, lf.partition, lf.name);
        const r = await readLogFile(storage, path, { withRecords: true });
        expect(r.size).toBe(lf.bytes);
        expectNoGaps(r.blocks, lf.bytes);
        expect(r.blocks.map((b) => ({
          offset: b.offset, block_length: b.blockLength, log_format_version: b.version, type: b.type,
          instant_time: b.header.INSTANT_TIME, content_bytes: b.contentLength, header_keys: Object.keys(b.header).sort(),
        }))).toEqual(lf.blocks.map((c) => ({
          offset: c.offset, block_length: c.block_length, log_format_version: c.log_format_version, type: c.type,
          instant_time: c.instant_time, content_bytes: c.content_bytes, header_keys: [...c.header_keys].sort(),
        })));
        lf.blocks.forEach((c, i) => {
          const b = r.blocks[i]!;
          if (c.content_version !== undefined) expect(b.contentVersion).toBe(c.content_version);
          if (c.record_count !== undefined) expect(b.records).toHaveLength(c.record_count);
          if (c.target_instant_time !== undefined) expect(b.header.TARGET_INSTANT_TIME).toBe(c.target_instant_time);
          if (c.type === 'DELETE_BLOCK') expect(b.deletes!.length).toBeGreaterThan(0);
          if (c.type === 'PARQUET_DATA_BLOCK' || c.type === 'AVRO_DATA_BLOCK') expect(b.records!.length).toBeGreaterThan(0);
        });
      }
    });
  }

  const withMdt = HAVE_FIXTURES ? allTableIds().filter((id) => catalogTable(id).metadata_table) : [];
  it(`metadata-table log files of ${withMdt.length} tables parse with no gaps (headers; delete keys decoded)`, async () => {
    let files = 0;
    let blocks = 0;
    for (const id of withMdt) {
      for (const path of walkLogs(join(table(id), '.hoodie/metadata'))) {
        const r = await readLogFile(storage, path);
        expectNoGaps(r.blocks, r.size);
        for (const b of r.blocks) expect(['HFILE_DATA_BLOCK', 'DELETE_BLOCK', 'COMMAND_BLOCK', 'AVRO_DATA_BLOCK']).toContain(b.type);
        const withDeletes = await readLogFile(storage, path, { withRecords: true });
        for (const b of withDeletes.blocks) {
          expect(b.corrupt).toBeUndefined();
          if (b.type === 'DELETE_BLOCK') expect(b.deletes).toBeDefined();
          if (b.type === 'HFILE_DATA_BLOCK') expect(b.unsupported).toMatch(/HFile/);
        }
        files++;
        blocks += r.blocks.length;
      }
    }
    expect(files).toBeGreaterThan(1000);
    expect(blocks).toBeGreaterThan(files - 1);
  });
});
