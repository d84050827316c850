// Every raw record stored in a fixture metadata table: HFile base files and the HFILE_DATA / DELETE
// blocks of MDT log files, with the file group they sit in and the writer schema they were written with.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HFileReader } from '../../src/hfile/index.ts';
import { readLogFile, type LogRecord } from '../../src/logfile/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';

export interface RawMdtRecord {
  /** MDT partition directory (files, column_stats, record_index, …) */
  partition: string;
  /** file id of the file group (`col-stats-0001-0`) */
  fileId: string;
  /** the file the record was read from */
  path: string;
  /** 'base' for an HFile base file, else the log block's instant */
  source: 'base' | 'log';
  instant?: string;
  schema: string;
  key: string;
  value: Uint8Array;
}

export interface RawMdtDelete {
  partition: string;
  fileId: string;
  path: string;
  key: string;
}

export interface MdtScan {
  records: RawMdtRecord[];
  deletes: RawMdtDelete[];
  /** partition → sorted file ids (file groups) */
  fileGroups: Map<string, string[]>;
}

const storage = new LocalStorage();

/** `.col-stats-0001-0_<instant>.log.1_…` / `col-stats-0001-0_<token>_<instant>.hfile` → `col-stats-0001-0` */
function fileIdOf(name: string): string {
  const n = name.startsWith('.') ? name.slice(1) : name;
  return n.slice(0, n.indexOf('_'));
}

export async function scanMdt(basePath: string): Promise<MdtScan> {
  const mdt = join(basePath, '.hoodie', 'metadata');
  const records: RawMdtRecord[] = [];
  const deletes: RawMdtDelete[] = [];
  const fileGroups = new Map<string, string[]>();
  for (const partition of readdirSync(mdt).filter((d) => d !== '.hoodie' && statSync(join(mdt, d)).isDirectory()).sort()) {
    const dir = join(mdt, partition);
    const ids = new Set<string>();
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (name.endsWith('.hfile')) {
        ids.add(fileIdOf(name));
        const r = await HFileReader.open(storage, path);
        const schema = r.avroSchemaJson!;
        for (const rec of await r.readAll()) {
          records.push({ partition, fileId: fileIdOf(name), path, source: 'base', schema, key: rec.key, value: rec.value });
        }
      } else if (name.includes('.log.')) {
        ids.add(fileIdOf(name));
        const contents = await readLogFile(storage, path, {
          withRecords: true,
          decodeHFile: async (content) => (await (await HFileReader.fromBytes(content, path)).readAll()) as unknown as LogRecord[],
        });
        for (const b of contents.blocks) {
          if (b.type === 'HFILE_DATA_BLOCK') {
            for (const rec of (b.records ?? []) as unknown as { key: string; value: Uint8Array }[]) {
              records.push({
                partition, fileId: fileIdOf(name), path, source: 'log', instant: b.header.INSTANT_TIME, schema: b.header.SCHEMA!, key: rec.key, value: rec.value,
              });
            }
          } else if (b.type === 'DELETE_BLOCK') {
            for (const d of b.deletes ?? []) deletes.push({ partition, fileId: fileIdOf(name), path, key: d.recordKey ?? '' });
          }
        }
      }
    }
    fileGroups.set(partition, [...ids].sort());
  }
  return { records, deletes, fileGroups };
}

export interface MdtFixture {
  id: string;
  base: string;
  tableVersion: number;
}

/** Every fixture table with a metadata table: the hudi-rs ones and the Trino v6 table. */
export async function mdtFixtures(): Promise<MdtFixture[]> {
  const out: MdtFixture[] = [];
  const { HAVE_FIXTURES, allTableIds, catalogTable, table } = await import('./fixtures.ts');
  if (HAVE_FIXTURES) {
    for (const id of allTableIds()) {
      const t = catalogTable(id);
      if (t.metadata_table_exists === true) out.push({ id, base: table(id), tableVersion: t.table_version });
    }
  }
  const { HAVE_TRINO_V6, trinoV6Table } = await import('./trino.ts');
  if (HAVE_TRINO_V6) out.push({ id: 'trino/hudi_multi_fg_pt_v6_mor', base: trinoV6Table(), tableVersion: 6 });
  return out;
}

const scans = new Map<string, Promise<MdtScan>>();

/** scanMdt, once per table per test process. */
export function scanMdtCached(base: string): Promise<MdtScan> {
  let s = scans.get(base);
  if (!s) scans.set(base, (s = scanMdt(base)));
  return s;
}
