import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bucketFileIdForNBCC, bucketFileIdPrefix, bucketIdFromFileId, escapePartitionValue, formatBaseFileName, formatLogFileName,
  formatPartitionPath, parseBaseFileName, parseLogFileName, parseLogFileNameByRegex, parsePartitionPath, partitionMetafileFormat, unescapePartitionValue,
  type BaseFileName, type LogFileName,
} from '../../src/fs-view/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable } from '../support/fixtures.ts';

const idChars = fc.stringMatching(/^[a-zA-Z0-9-]{1,40}$/);
const instant = fc.stringMatching(/^\d{14}(\d{3})?$/);
const token = fc.tuple(fc.nat(999), fc.nat(99999), fc.nat(99999)).map(([a, b, c]) => `${a}-${b}-${c}`);

describe('base file names', () => {
  it('parses a real name', () => {
    expect(parseBaseFileName('d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0_0-13-60_20250331030642808.parquet')).toEqual({
      fileId: 'd0304c53-6fd2-4b7a-a9d6-5ff632f79224-0', writeToken: '0-13-60', instant: '20250331030642808', ext: 'parquet',
    });
  });
  it('rejects log files, metadata files and names with extra underscores', () => {
    for (const n of ['.hoodie_partition_metadata', '.abc_123.log.1_0-1-2', 'a_b_c_123.parquet', 'a_b_12x.parquet', 'x.parquet']) {
      expect(parseBaseFileName(n), n).toBeUndefined();
    }
  });
  it('round-trips (property)', () => {
    fc.assert(fc.property(idChars, idChars, instant, fc.constantFrom('parquet', 'orc', 'hfile', 'lance'), (fileId, writeToken, t, ext) => {
      const b: BaseFileName = { fileId, writeToken, instant: t, ext };
      expect(parseBaseFileName(formatBaseFileName(b))).toEqual(b);
    }));
  });
});

describe('log file names', () => {
  it('parses current, legacy and CDC forms', () => {
    expect(parseLogFileName('.ff32ab89-5ad0-4968-83b4-89a34c95d32f-0_20250316025816068.log.1_0-54-122')).toEqual({
      fileId: 'ff32ab89-5ad0-4968-83b4-89a34c95d32f-0', instant: '20250316025816068', ext: 'log', version: 1, writeToken: '0-54-122',
    });
    expect(parseLogFileName('.abc-0_20240101000000.log.3')).toEqual({ fileId: 'abc-0', instant: '20240101000000', ext: 'log', version: 3 });
    expect(parseLogFileName('.abc-0_20240101000000.log.2_1-0-1-cdc')?.cdcSuffix).toBe('-cdc');
    expect(parseLogFileName('.abc-0_20240101000000.log.2_1-0-1.cdc')?.cdcSuffix).toBe('.cdc');
    expect(parseLogFileName('.commits_.archive.1_1-0-1')).toMatchObject({ fileId: 'commits', instant: '', ext: 'archive', version: 1 });
    expect(parseLogFileName('abc-0_20240101000000.log.1_0-1-2')).toBeUndefined();
    expect(parseLogFileName('.abc-0_20240101000000.log.x_0-1-2')).toBeUndefined();
  });
  it('round-trips (property)', () => {
    fc.assert(fc.property(idChars, instant, fc.nat(1000), fc.option(token, { nil: undefined }), fc.constantFrom(undefined, '-cdc' as const, '.cdc' as const), (fileId, t, version, writeToken, cdc) => {
      const l: LogFileName = { fileId, instant: t, ext: 'log', version };
      if (writeToken !== undefined) {
        l.writeToken = writeToken;
        if (cdc) l.cdcSuffix = cdc;
      }
      expect(parseLogFileName(formatLogFileName(l))).toEqual(l);
    }));
  });
  it.skipIf(!HAVE_FIXTURES)('every fixture file name parses to what catalog.json records', () => {
    for (const id of allTableIds()) {
      for (const b of catalogTable(id).base_files as { name: string; file_id: string; write_token: string; instant: string; ext: string }[]) {
        expect(parseBaseFileName(b.name)).toEqual({ fileId: b.file_id, writeToken: b.write_token, instant: b.instant, ext: b.ext });
      }
      for (const l of catalogTable(id).log_files as { name: string; file_id: string; base_instant: string; log_version: number; write_token: string; cdc: boolean }[]) {
        expect(parseLogFileName(l.name)).toEqual({ fileId: l.file_id, instant: l.base_instant, ext: 'log', version: l.log_version, writeToken: l.write_token });
      }
    }
  });
});

describe('bucket-index file ids', () => {
  it('reads the 8-digit bucket prefix', () => {
    expect(bucketIdFromFileId('00000003-5e7f-4a1b-9c2d-0123456789ab-0')).toBe(3);
    expect(bucketIdFromFileId('d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0')).toBeUndefined();
    expect(bucketFileIdForNBCC(12)).toBe('00000012-0000-0000-0000-000000000000-0');
  });
  it('round-trips (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 99_999_999 }), fc.uuid(), (b, uuid) => {
      expect(bucketIdFromFileId(`${bucketFileIdPrefix(b, uuid)}-0`)).toBe(b);
    }));
  });
});

describe('partition paths', () => {
  it('escapes like Hive escapePathName', () => {
    expect(escapePartitionValue('2024/01/15 10:00')).toBe('2024%2F01%2F15 10%3A00');
    expect(escapePartitionValue('a=b%c')).toBe('a%3Db%25c');
  });
  it('parses hive-style and plain levels', () => {
    expect(parsePartitionPath('byteField=10/shortField=300')).toEqual([{ field: 'byteField', value: '10' }, { field: 'shortField', value: '300' }]);
    expect(parsePartitionPath('2023/04/01/12')).toEqual([{ value: '2023' }, { value: '04' }, { value: '01' }, { value: '12' }]);
    expect(parsePartitionPath('')).toEqual([]);
    expect(parsePartitionPath('d=2024%2F01', { urlEncoded: true })).toEqual([{ field: 'd', value: '2024/01' }]);
  });
  it('escape/unescape and format/parse round-trip (property)', () => {
    fc.assert(fc.property(fc.string(), (v) => {
      expect(unescapePartitionValue(escapePartitionValue(v))).toBe(v);
    }));
    const level = fc.record({ field: fc.option(fc.stringMatching(/^[a-z_]{1,8}$/), { nil: undefined }), value: fc.string({ minLength: 1 }) });
    fc.assert(fc.property(fc.array(level, { minLength: 1, maxLength: 4 }), (levels) => {
      const norm = levels.map((l) => (l.field === undefined ? { value: l.value } : l));
      expect(parsePartitionPath(formatPartitionPath(norm, { urlEncode: true }), { urlEncoded: true })).toEqual(norm);
    }));
  });
  it('recognises partition metadata files', () => {
    expect(partitionMetafileFormat('.hoodie_partition_metadata')).toBe('text');
    expect(partitionMetafileFormat('.hoodie_partition_metadata.parquet')).toBe('parquet');
    expect(partitionMetafileFormat('.hoodie_partition_metadata_0')).toBeUndefined();
  });
});

describe('parseLogFileName without the regex engine', () => {
  const piece = fc.stringMatching(/^[._a-z0-9\-\n]{0,8}$/);
  const pieces = fc.array(fc.oneof(piece, fc.constantFrom('.log.', '.archive.', '_', '.', '-cdc', '.cdc', '_1-2-3', '.log.1', '.log.12_0-1-2', '0', '-')), { maxLength: 8 }).map((a) => a.join(''));
  it('agrees with LOG_RE on random names and on names built like log files', () => {
    fc.assert(
      fc.property(pieces, (tail) => {
        for (const name of [tail, `.${tail}`]) expect(parseLogFileName(name)).toEqual(parseLogFileNameByRegex(name));
      }),
      { numRuns: 20000 },
    );
    const token = fc.option(fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map(([a, b, c]) => `_${a}-${b}-${c}`), { nil: '' });
    fc.assert(
      fc.property(pieces, pieces, fc.constantFrom('log', 'archive'), fc.nat(20), token, fc.constantFrom('', '-cdc', '.cdc'), pieces, (id, instant, ext, v, tok, cdc, junk) => {
        for (const name of [`.${id}_${instant}.${ext}.${v}${tok}${cdc}`, `.${id}_${instant}.${ext}.${v}${tok}${cdc}${junk}`, `.${id}${junk}_${instant}.${ext}.${v}`]) {
          expect(parseLogFileName(name)).toEqual(parseLogFileNameByRegex(name));
        }
      }),
      { numRuns: 20000 },
    );
  });
});
