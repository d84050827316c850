// A version-9 MERGE_ON_READ table, non-partitioned, with one file group, built from given files: the
// hoodie.properties of the closest real v9 table (hudi-rs v9_txns_nonpart_nometa, layout 2) with this
// table's schema, record key and ordering field; one completed deltacommit per file (base file first,
// then each log file), each carrying the schema as Hudi's commits do.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeCommitMetadataAvro, newWriteStat, type CommitMetadata } from '../../../src/metadata/index.ts';
import { formatBaseFileName, formatLogFileName } from '../../../src/fs-view/index.ts';
import { formatInstantFileName } from '../../../src/timeline/index.ts';
import { withHoodieMetaFields, type AvroRecordSchema } from '../../../src/parquet/write.ts';
import { tableFresh } from '../../support/fixtures.ts';

export const FIXTURE_V9 = 'sample_table/mor/avro/v9_txns_nonpart_nometa';
export const FILE_ID = '5f1c2a9e-7b3d-4e8a-9c61-0d2f4a6b8c10-0';

export interface V9Table {
  base: string;
  baseFileName: string;
  /** requested time of each file's deltacommit (base first) */
  instants: string[];
}

/** Java properties escaping of a value (`:` and `=` as hoodie.properties has them). */
function propValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/([:=])/g, '\\$1');
}

/**
 * `baseFile(name)` gives the base file's bytes (written by deltacommit instants[0]); `logs[i](instant)`
 * the blocks' bytes of log file i (deltacommit instants[i + 1]).
 */
export function buildV9Table(opts: {
  schema: AvroRecordSchema;
  recordKey: string;
  ordering: string;
  baseFile: (fileName: string, instant: string) => Uint8Array;
  logs: ((instant: string) => Uint8Array)[];
}): V9Table {
  const base = tableFresh(FIXTURE_V9);
  for (const e of readdirSync(base)) if (e !== '.hoodie') rmSync(join(base, e), { recursive: true });
  const timeline = join(base, '.hoodie', 'timeline');
  rmSync(timeline, { recursive: true });
  mkdirSync(join(timeline, 'history'), { recursive: true });
  const propsPath = join(base, '.hoodie', 'hoodie.properties');
  const props = readFileSync(propsPath, 'utf8')
    .split('\n')
    .map((l) => {
      if (l.startsWith('hoodie.table.create.schema=')) return `hoodie.table.create.schema=${propValue(JSON.stringify(opts.schema))}`;
      if (l.startsWith('hoodie.table.recordkey.fields=')) return `hoodie.table.recordkey.fields=${opts.recordKey}`;
      if (l.startsWith('hoodie.table.ordering.fields=')) return `hoodie.table.ordering.fields=${opts.ordering}`;
      return l;
    });
  writeFileSync(propsPath, props.join('\n'));
  writeFileSync(join(base, '.hoodie_partition_metadata'), '#partition metadata\ncommitTime=20260101000000000\npartitionDepth=0\n');

  const schemaJson = JSON.stringify(withHoodieMetaFields(opts.schema));
  const instants = Array.from({ length: 1 + opts.logs.length }, (_, i) => `20251231${String(10 + i)}0000000`);
  const complete = (i: number, path: string, size: number) => {
    const t = instants[i]!;
    const m: CommitMetadata = {
      partitionToWriteStats: { '': [newWriteStat({ fileId: FILE_ID, path, prevCommit: i === 0 ? 'null' : instants[0]!, partitionPath: '', totalWriteBytes: size, fileSizeInBytes: size })] },
      compacted: false,
      extraMetadata: { schema: schemaJson },
      operationType: 'UPSERT',
      version: 1,
    };
    const ct = `${t.slice(0, 14)}500`;
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action: 'deltacommit', state: 'REQUESTED' }, 2)), new Uint8Array(0));
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action: 'deltacommit', state: 'INFLIGHT' }, 2)), new Uint8Array(0));
    writeFileSync(join(timeline, formatInstantFileName({ requestedTime: t, action: 'deltacommit', state: 'COMPLETED', completionTime: ct }, 2)), encodeCommitMetadataAvro(m));
  };
  const baseFileName = formatBaseFileName({ fileId: FILE_ID, writeToken: '0-1-0', instant: instants[0]!, ext: 'parquet' });
  const bytes = opts.baseFile(baseFileName, instants[0]!);
  writeFileSync(join(base, baseFileName), bytes);
  complete(0, baseFileName, bytes.length);
  opts.logs.forEach((log, i) => {
    const t = instants[i + 1]!;
    const name = formatLogFileName({ fileId: FILE_ID, instant: t, ext: 'log', version: 1, writeToken: `0-${i + 2}-0` });
    const b = log(t);
    writeFileSync(join(base, name), b);
    complete(i + 1, name, b.length);
  });
  return { base, baseFileName, instants };
}
