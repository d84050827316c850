// The Trino project's table-version-6 MOR table with a metadata table (Hudi 0.15.0: files, column_stats,
// record_index), shared as ../shared/fixtures/trino/hudi_multi_fg_pt_v6_mor.zip. Extracted once per test
// process into the run's temp directory; tests skip visibly when it is absent.
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { extractZip } from './zip.ts';

export const TRINO_V6_ZIP = resolve(import.meta.dirname, '../../../shared/fixtures/trino/hudi_multi_fg_pt_v6_mor.zip');
export const HAVE_TRINO_V6 = existsSync(TRINO_V6_ZIP);

if (!HAVE_TRINO_V6) console.warn(`[tblcli tests] ${TRINO_V6_ZIP} not found: table-version-6 metadata-table tests are skipped`);

let extracted: string | undefined;

/** Base path of the extracted v6 table (`hudi_multi_fg_pt_v6_mor`). */
export function trinoV6Table(): string {
  if (!extracted) {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-trino-v6-'));
    extractZip(readFileSync(TRINO_V6_ZIP), dir);
    extracted = join(dir, 'hudi_multi_fg_pt_v6_mor');
  }
  return extracted;
}

/** A private writable copy of the Trino table (the extracted one is shared by the test process). */
export function trinoV6Fresh(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
  cpSync(trinoV6Table(), dest, { recursive: true });
  return dest;
}
