// The records one metadata-table deltacommit wrote to one MDT partition (its log files' HFile
// blocks), decoded: what the MDT checks of the compaction and clustering tests compare with DuckDB.
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'vitest';
import { HFileReader } from '../../../src/hfile/index.ts';
import { readLogFile } from '../../../src/logfile/index.ts';
import { decodeCommitMetadata } from '../../../src/metadata/index.ts';
import { decodeMetadataRecord, type MetadataRecord } from '../../../src/mdt/index.ts';
import { LocalStorage } from '../../../src/storage/index.ts';
import { openTableAt } from '../../../src/table/index.ts';

const storage = new LocalStorage();

export async function mdtRecordsOf(base: string, instant: string, partition: string): Promise<MetadataRecord[]> {
  const mdt = await openTableAt(storage, join(base, '.hoodie', 'metadata'));
  const tl = await mdt.timeline();
  const i = tl.find(instant).find((x) => x.action === 'deltacommit' && x.state === 'COMPLETED')!;
  const m = decodeCommitMetadata(await tl.read(i), { path: i.files.COMPLETED!.path });
  const out: MetadataRecord[] = [];
  for (const s of m.partitionToWriteStats[partition] ?? []) {
    const path = join(mdt.basePath, s.path!);
    await readLogFile(storage, path, {
      withRecords: true,
      decodeHFile: async (content, header) => {
        for (const r of await (await HFileReader.fromBytes(content, path)).readAll()) out.push(decodeMetadataRecord(r.key, r.value, header.SCHEMA!, path));
        return [];
      },
    });
  }
  return out;
}

/** The column_stats records of `instant` name exactly `newFiles` (table-relative) and equal DuckDB's statistics of them. */
export async function expectColumnStatsOfNewFiles(base: string, instant: string, newFiles: string[]): Promise<void> {
  const stats = (await mdtRecordsOf(base, instant, 'column_stats')).flatMap((r) => ('columnStats' in r ? [r.columnStats] : []));
  expect(new Set(stats.map((c) => c.fileName))).toEqual(new Set(newFiles.map((p) => p.split('/').pop())));
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    for (const rel of newFiles) {
      const path = join(base, rel);
      const rows = (
        await con.runAndReadAll(`select path_in_schema, stats_min_value, stats_max_value, stats_null_count, num_values, total_compressed_size, total_uncompressed_size from parquet_metadata('${path}')`)
      ).getRowObjectsJS();
      for (const c of stats.filter((x) => x.fileName === rel.split('/').pop())) {
        const chunks = rows.filter((x) => String(x.path_in_schema) === c.columnName);
        expect(chunks.length, `${rel} ${c.columnName}`).toBeGreaterThan(0);
        const sum = (k: string) => chunks.reduce((n, x) => n + Number(x[k]), 0);
        expect([c.nullCount, c.valueCount, c.totalSize, c.totalUncompressedSize], `${rel} ${c.columnName}`).toEqual([
          sum('stats_null_count'),
          sum('num_values'),
          sum('total_compressed_size'),
          sum('total_uncompressed_size'),
        ]);
        const v = c.minValue;
        if (v && (v.type === 'string' || v.type === 'int' || v.type === 'long')) {
          // DuckDB renders timestamp longs as "2024-01-16 09:00:00+00": compare them as micros
          const norm = (x: unknown) => {
            const t = String(x);
            if (v.type === 'string' || /^-?\d+$/.test(t)) return t;
            if (v.type === 'int') return String(Date.parse(`${t}T00:00:00Z`) / 86_400_000); // a date: days
            return String(BigInt(Date.parse(t.replace(' ', 'T').replace(/\+00$/, 'Z'))) * 1000n);
          };
          const mins = chunks.map((x) => x.stats_min_value).filter((x) => x !== null).map(norm);
          const maxs = chunks.map((x) => x.stats_max_value).filter((x) => x !== null).map(norm);
          const order = v.type === 'string' ? (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0) : (a: string, b: string) => Number(BigInt(a) - BigInt(b) > 0n) - Number(BigInt(a) - BigInt(b) < 0n);
          expect(String(c.minValue!.value), `${rel} ${c.columnName} min`).toBe(mins.sort(order)[0]);
          expect(String(c.maxValue!.value), `${rel} ${c.columnName} max`).toBe(maxs.sort(order).at(-1));
        }
      }
    }
  } finally {
    con.closeSync();
  }
}
