// A metadata table written by Hudi ≤ 0.10 (table version ≤ 3) holds Kryo delete blocks (content
// version 1), 0.11–0.13 version 2. No fixture has one, so a real table's metadata-table delete blocks
// (version 3) are re-encoded with the same keys as the older writers would have written them
// (test/support/kryo.ts, checked against Hudi's own bytes); doctor must read such a table exactly as
// the original. (v9_timebasedkeygen_epochmillis's metadata table was never compacted, so doctor reads
// the files partition's first log, a delete block: before Kryo was decoded, its metadata-table check
// said "not checked: … delete block content version 1 is Kryo-encoded … and cannot be decoded".)
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { decodeDeleteBlockContent, encodeLogBlock, readLogFile, type DeleteRecord, type HeaderKey } from '../../src/logfile/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { deleteBlockContent, JString, kryoDeleteRecords, kryoHoodieKeys, type JOrdering } from '../support/kryo.ts';

// metadata tables whose delete blocks (record_index, secondary index, files, stats partitions) carry keys
const IDS = ['sample_table/cow/v9_timebasedkeygen_epochmillis', 'sample_table/cow/v9_txns_simple_meta'];
const storage = new LocalStorage();

function logFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) logFiles(p, out);
    else if (/\.log\.\d+/.test(n)) out.push(p);
  }
  return out;
}

function ordering(d: DeleteRecord): JOrdering | null {
  if (d.orderingVal === null) return null;
  if (d.orderingClass === 'Integer') return { cls: 'int', value: d.orderingVal as number };
  if (d.orderingClass === 'Long') return { cls: 'long', value: BigInt(d.orderingVal as number) };
  if (d.orderingClass === 'String') return { cls: 'String', value: new JString(d.orderingVal as string) };
  throw new Error(`no Kryo ordering value for ${d.orderingClass}`);
}

/** Rewrites every DELETE block of the metadata table's log files as content `version`; returns the delete records per block. */
async function reencode(base: string, version: 1 | 2): Promise<DeleteRecord[][]> {
  const seen: DeleteRecord[][] = [];
  for (const path of logFiles(join(base, '.hoodie', 'metadata'))) {
    const bytes = readFileSync(path);
    const { blocks } = await readLogFile(storage, path);
    if (!blocks.some((b) => b.type === 'DELETE_BLOCK')) continue;
    const out = blocks.map((b) => {
      if (b.type !== 'DELETE_BLOCK') return bytes.subarray(b.offset, b.offset + b.size);
      const records = decodeDeleteBlockContent(bytes.subarray(b.contentOffset, b.contentOffset + b.contentLength), path);
      seen.push(records);
      // one String instance per partition path, as a writer sharing it would (Kryo back-references)
      const parts = new Map<string, JString>();
      const part = (p: string | null) => (p === null ? null : parts.get(p) ?? parts.set(p, new JString(p)).get(p)!);
      const keys = records.map((d) => ({ recordKey: d.recordKey === null ? null : new JString(d.recordKey), partitionPath: part(d.partitionPath) }));
      const data = version === 1 ? kryoHoodieKeys(keys) : kryoDeleteRecords(keys.map((key, i) => ({ key, ordering: ordering(records[i]!) })));
      return encodeLogBlock({ type: 'DELETE_BLOCK', header: Object.entries(b.header) as [HeaderKey, string][], content: deleteBlockContent(version, data) });
    });
    writeFileSync(path, Buffer.concat(out));
  }
  return seen;
}

async function doctorJson(base: string): Promise<string> {
  const r = await runCli(['doctor', '--json', '--path', base]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.replaceAll(base, '<base>');
}

describe.skipIf(!HAVE_FIXTURES)('doctor on a metadata table with Kryo delete blocks', () => {
  for (const id of IDS) for (const version of [1, 2] as const) {
    it(`${id}, content version ${version}: the delete blocks read back with their keys; doctor reports what it reports for the original`, async () => {
      const original = tableFresh(id);
      const old = tableFresh(id);
      const written = await reencode(old, version);
      expect(written.length).toBeGreaterThan(10);

      let blocks = 0;
      for (const path of logFiles(join(old, '.hoodie', 'metadata'))) {
        for (const b of (await readLogFile(storage, path, { withRecords: true })).blocks) {
          if (b.type !== 'DELETE_BLOCK') continue;
          expect(b.contentVersion).toBe(version);
          expect(b.unsupported, path).toBeUndefined();
          const want = written[blocks++]!;
          expect(b.deletes!.map((d) => [d.recordKey, d.partitionPath])).toEqual(want.map((d) => [d.recordKey, d.partitionPath]));
          // DeleteRecord.create(key): Integer 0
          if (version === 1) for (const d of b.deletes!) expect([d.orderingVal, d.orderingClass]).toEqual([0, 'Integer']);
          else expect(b.deletes!.map((d) => [d.orderingVal, d.orderingClass])).toEqual(want.map((d) => [d.orderingVal, d.orderingClass]));
        }
      }
      expect(blocks).toBe(written.length);
      expect(written.flat().length).toBeGreaterThan(0);

      const report = await doctorJson(old);
      expect(report).not.toMatch(/Kryo|cannot be decoded|unsupported/i);
      expect(report).toBe(await doctorJson(original));
    });
  }
});
