import { describe, expect, it } from 'vitest';
import { mdtFixtures, scanMdtCached } from '../support/mdt-scan.ts';
import {
  ALL_PARTITIONS_KEY,
  bloomFilterKey,
  columnStatsKey,
  decodeMetadataRecord,
  fileGroupFileId,
  fileGroupIndex,
  javaStringHashCode,
  md5Id,
  partitionIdentifier,
  partitionStatsKey,
  xxhashId,
  type ColumnStatsRecord,
} from '../../src/mdt/index.ts';

describe('key functions', () => {
  it('javaStringHashCode is String.hashCode over UTF-16 code units', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('a')).toBe(97);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648); // Integer.MIN_VALUE
    // a supplementary character hashes as its two surrogates, not as one code point or its UTF-8 bytes
    expect(javaStringHashCode('\u{1F600}')).toBe(31 * 0xd83d + 0xde00);
  });

  it('fileGroupIndex: Math.abs(Math.abs(h) % n), Math.abs(Integer.MIN_VALUE) staying negative', () => {
    // the doc's example: stored in record-index-0001-0 of 10
    expect(fileGroupIndex('e96c4396-3fad-413a-a942-4cb36106d721', 10)).toBe(1);
    // MIN_VALUE % 10 = -8 in Java → 8; MIN_VALUE % 2 = 0
    expect(fileGroupIndex('polygenelubricants', 10)).toBe(8);
    expect(fileGroupIndex('polygenelubricants', 2)).toBe(0);
    expect(fileGroupIndex('polygenelubricants', 7)).toBe(Math.abs(-2147483648 % 7));
    // negative hash codes
    const k = 'zzzzzzzz';
    expect(javaStringHashCode(k)).toBeLessThan(0);
    expect(fileGroupIndex(k, 10)).toBe(Math.abs(javaStringHashCode(k)) % 10);
    expect(fileGroupIndex('anything', 1)).toBe(0);
    expect(() => fileGroupIndex('x', 0)).toThrow(/positive/);
  });

  it('hash ids match the values verified against the v8 fixture (sign-extended seed)', () => {
    expect(xxhashId('driver')).toBe('AjpJ7N1gBZc=');
    expect(xxhashId('city=sao_paulo')).toBe('6Hj+sBy+gvM=');
    expect(md5Id('')).toBe('1B2M2Y8AsgTpgAmY7PhCfg==');
    expect(partitionIdentifier('')).toBe('.');
    expect(partitionIdentifier('a=1')).toBe('a=1');
    expect(columnStatsKey('driver', 'city=sao_paulo', 'f.parquet')).toBe(`AjpJ7N1gBZc=6Hj+sBy+gvM=${md5Id('f.parquet')}`);
    expect(bloomFilterKey('', 'f.parquet')).toBe(xxhashId('.') + md5Id('f.parquet'));
    expect(partitionStatsKey('driver', 'city=sao_paulo')).toBe('AjpJ7N1gBZc=6Hj+sBy+gvM=');
    expect(fileGroupFileId('col-stats-', 1)).toBe('col-stats-0001-0');
  });
});

const fixtures = await mdtFixtures();

/** Data partitions a fixture's keys may name: every key of a type-1 record plus every type-2 key. */
function partitionsOf(records: { key: string; type: number; files?: Map<string, unknown> }[]): string[] {
  const out = new Set<string>();
  for (const r of records) {
    if (r.type === 1) for (const p of r.files!.keys()) out.add(p === '.' ? '' : p);
    if (r.type === 2) out.add(r.key === '.' ? '' : r.key);
  }
  return [...out];
}

describe.skipIf(fixtures.length === 0)('every stored key equals the key computed from the record (all fixture MDTs)', () => {
  const covered: Record<string, Record<string, number>> = {};

  for (const f of fixtures) {
    it(`${f.id}: files / column_stats / partition_stats / record_index keys and their file groups`, async () => {
      const scan = await scanMdtCached(f.base);
      const decoded = scan.records.map((r) => ({ raw: r, rec: decodeMetadataRecord(r.key, r.value, r.schema, r.path) }));
      const partitions = partitionsOf(decoded.map((d) => ({ key: d.rec.key, type: d.rec.type, files: 'files' in d.rec ? d.rec.files : undefined })));
      const counts: Record<string, number> = {};
      for (const { raw, rec } of decoded) {
        const where = `${raw.path} ${raw.key}`;
        counts[raw.partition] = (counts[raw.partition] ?? 0) + 1;
        switch (raw.partition) {
          case 'files':
            if (rec.type === 1) expect(rec.key, where).toBe(ALL_PARTITIONS_KEY);
            else {
              expect(rec.type, where).toBe(2);
              expect(partitions.map(partitionIdentifier), where).toContain(rec.key);
            }
            break;
          case 'column_stats': {
            expect(rec.type, where).toBe(3);
            const cs = (rec as ColumnStatsRecord).columnStats;
            const matches = partitions.filter((p) => columnStatsKey(cs.columnName!, p, cs.fileName!) === rec.key);
            expect(matches, where).toHaveLength(1);
            break;
          }
          case 'partition_stats': {
            expect(rec.type, where).toBe(6);
            const cs = (rec as ColumnStatsRecord).columnStats;
            expect(partitionStatsKey(cs.columnName!, cs.fileName!), where).toBe(rec.key);
            break;
          }
          case 'bloom_filters':
            // the record does not name its file: only the type and the file group can be checked
            expect(rec.type, where).toBe(4);
            break;
          case 'record_index':
            expect(rec.type, where).toBe(5);
            break;
          default:
            // secondary_index_*: 1.x maps by the secondary-key part (index version V2), not checked here
            expect(raw.partition.startsWith('secondary_index_'), where).toBe(true);
            continue;
        }
        const groups = scan.fileGroups.get(raw.partition)!;
        expect(groups[fileGroupIndex(rec.key, groups.length)], `${where}: file group`).toBe(raw.fileId);
      }
      for (const d of scan.deletes) {
        if (d.partition.startsWith('secondary_index_')) continue;
        const groups = scan.fileGroups.get(d.partition)!;
        expect(groups[fileGroupIndex(d.key, groups.length)], `${d.path} delete ${d.key}`).toBe(d.fileId);
        counts[`${d.partition} (deletes)`] = (counts[`${d.partition} (deletes)`] ?? 0) + 1;
      }
      covered[f.id] = counts;
      expect(counts.files).toBeGreaterThan(0);
    });
  }

  it('the fixtures cover files, column_stats, partition_stats and record_index keys', () => {
    const seen = new Set(Object.values(covered).flatMap((c) => Object.keys(c)));
    for (const p of ['files', 'column_stats', 'partition_stats', 'record_index']) expect(seen).toContain(p);
  });
});
