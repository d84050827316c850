// A corrupt input met by the packed merge (a base file page, a log record's Avro bytes) fails the
// compaction with a one-line TblError naming the file, as the row path does, and the attempt is given
// back: no new base file, no marker, no inflight instant, the data files as they were.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { readLogFile } from '../../src/logfile/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt } from '../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { runCli } from '../support/run-cli.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { allFiles } from '../support/files.ts';

const OPTS = { clockSkewMs: 1, metadataTable: 'disable' as const };
// Avro data blocks in its logs
const WITH_AVRO_LOGS = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';


/** The demo table (its logs hold deletes only) or a fixture table, with a compaction plan. */
async function demoWithPlan(fixture?: string) {
  let t: string;
  if (fixture) t = tableFresh(fixture);
  else {
    t = join(mkdtempSync(join(tmpdir(), 'tblcli-corrupt-')), 'orders');
    expect((await runCli(['demo', t, '--table-version', '8'])).exitCode).toBe(0);
  }
  const s = await scheduleCompaction(await openTable(t), { ...OPTS, strategy: 'all' });
  const op = s.plan!.operations!.find((o) => o.dataFilePath && (o.deltaFilePaths ?? []).length > 0)!;
  expect(op).toBeDefined();
  const dir = join(t, op.partitionPath ?? '');
  return { t, instant: s.instant!, op, base: join(dir, op.dataFilePath!), logs: op.deltaFilePaths!.map((n) => join(dir, n)) };
}

/** The table is as before the attempt: same data files, no trace of the instant but its plan. */
function expectGivenBack(t: string, instant: string, dataBefore: string[]): void {
  expect(allFiles(t).filter((f) => !f.includes('/.hoodie/')).sort()).toEqual(dataBefore);
  const timeline = readdirSync(join(t, '.hoodie', 'timeline'));
  expect(timeline).toContain(`${instant}.compaction.requested`);
  expect(timeline).not.toContain(`${instant}.compaction.inflight`);
  expect(timeline.some((n) => n.startsWith(instant) && n.endsWith('.commit'))).toBe(false);
  expect(existsSync(join(t, '.hoodie', '.temp', instant))).toBe(false);
}

async function failure(p: Promise<unknown>): Promise<TblError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TblError);
  return e as TblError;
}

describe('compaction: corrupt inputs on the packed path', () => {
  it('a corrupt base file page: TblError parquet naming the base file; the attempt is rolled back', async () => {
    const { t, instant, base } = await demoWithPlan();
    // the packed path takes this table (else the test would not reach the packed reader)
    const probe = await demoWithPlan();
    const merges: string[] = [];
    await runCompaction(await openTable(probe.t), { ...OPTS, instant: probe.instant, fileGroupWorkers: 'never', onProgress: (e) => merges.push(e.merge) });
    expect(merges).toContain('packed');

    // scramble the pages of the first row group's record-key chunk (its page headers and data)
    const b = readFileSync(base);
    const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    const c = md.row_groups[0]!.columns.find((x) => x.meta_data!.path_in_schema[0] === '_hoodie_record_key')!.meta_data!;
    const begin = Number(c.dictionary_page_offset || c.data_page_offset);
    for (let i = 0; i < Number(c.total_compressed_size); i++) b[begin + i] = (i * 37 + 11) & 0xff;
    writeFileSync(base, b);
    const dataBefore = allFiles(t).filter((f) => !f.includes('/.hoodie/')).sort();

    const e = await failure(runCompaction(await openTable(t), { ...OPTS, instant, fileGroupWorkers: 'never' }));
    expect(e.kind).toBe('parquet');
    expect(e.path).toBe(base);
    expect(e.message).toContain(base);
    expect(e.message).not.toContain('\n');
    expectGivenBack(t, instant, dataBefore);
  });

  it.skipIf(!HAVE_FIXTURES)('a log record whose bytes no longer decode when the merge reads them: TblError logfile naming the log file; rolled back', async () => {
    const { t, instant, logs } = await demoWithPlan(WITH_AVRO_LOGS);
    // the packed path takes this table's file groups
    const probe = await demoWithPlan(WITH_AVRO_LOGS);
    const merges: string[] = [];
    await runCompaction(await openTable(probe.t), { ...OPTS, instant: probe.instant, fileGroupWorkers: 'never', onProgress: (e) => merges.push(e.merge) });
    expect(merges).toContain('packed');
    const storage = new LocalStorage();
    // the Avro data blocks' content ranges: the log scan reads each once, checks its records and keeps the bytes
    const ranges = new Set<string>();
    for (const p of logs) for (const blk of (await readLogFile(storage, p)).blocks) if (blk.type === 'AVRO_DATA_BLOCK') ranges.add(`${p}:${blk.contentOffset}:${blk.contentLength}`);
    expect(ranges.size).toBeGreaterThan(0);
    // the kept bytes change after the scan (at the merge's first base-file row-group read), before the merge
    // decodes them: every record's first union branch out of range
    const held: Uint8Array[] = [];
    class Changing extends LocalStorage {
      override async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
        const got = await super.readRange(path, offset, length);
        if (ranges.has(`${path}:${offset}:${length}`)) held.push(got);
        else if (path.endsWith('.parquet')) {
          for (const out of held.splice(0)) {
            const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
            const version = dv.getInt32(0);
            const count = version >= 2 ? dv.getInt32(4) : 0;
            let pos = version >= 2 ? 8 : 4;
            for (let i = 0; i < count; i++) {
              const len = dv.getInt32(pos);
              out[pos + 4] = 0x7e; // zigzag 63
              pos += 4 + len;
            }
          }
        }
        return got;
      }
    }
    const dataBefore = allFiles(t).filter((f) => !f.includes('/.hoodie/')).sort();
    const e = await failure(runCompaction(await openTableAt(new Changing(), t), { ...OPTS, instant, fileGroupWorkers: 'never' }));
    expect(e.kind).toBe('logfile');
    expect(logs).toContain(e.path);
    expect(e.message).toContain(e.path!);
    expect(e.message).toMatch(/cannot decode log record .* union branch/);
    expect(e.message).not.toContain('\n');
    expectGivenBack(t, instant, dataBefore);
  });
});
