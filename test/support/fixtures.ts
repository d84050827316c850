// Registry of the real Hudi tables in ../shared/fixtures/hudi-rs. Tables are extracted once per
// zip into a cache dir keyed by zip size+mtime; tableFresh() gives a private copy for tests that write.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { extractZip } from './zip.ts';

export const SHARED_FIXTURES = resolve(import.meta.dirname, '../../../shared/fixtures/hudi-rs');
export const HAVE_FIXTURES = existsSync(join(SHARED_FIXTURES, 'catalog.json'));

if (!HAVE_FIXTURES) {
  // Visible in every run that needs them, so a skipped suite is never silent.
  console.warn(`[tblcli tests] ../shared/fixtures/hudi-rs not found at ${SHARED_FIXTURES}: real-table tests are skipped`);
}

export interface CatalogTable {
  id: string;
  path: string;
  base_path_in_zip: string;
  table_name: string;
  table_type: 'COPY_ON_WRITE' | 'MERGE_ON_READ';
  table_version: number;
  timeline_layout_version: number;
  [k: string]: unknown;
}

export interface Catalog {
  tables: CatalogTable[];
  [k: string]: unknown;
}

let catalogCache: Catalog | undefined;
export function catalog(): Catalog {
  catalogCache ??= JSON.parse(readFileSync(join(SHARED_FIXTURES, 'catalog.json'), 'utf8')) as Catalog;
  return catalogCache;
}

export function catalogTable(id: string): CatalogTable {
  const t = catalog().tables.find((x) => x.id === id);
  if (!t) throw new Error(`no fixture table ${id}`);
  return t;
}

// extracted tables are kept between runs, inside the project (the OS temp dir is per run: global-setup.ts)
const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/tblcli-fixtures');

/** Extracts (once) and returns the table base path of fixture `id` (e.g. 'sample_table/cow/v6_nonpartitioned'). */
export function table(id: string): string {
  const t = catalogTable(id);
  const zip = join(SHARED_FIXTURES, t.path);
  const st = statSync(zip);
  const key = createHash('sha1').update(`${zip}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 12);
  const dir = join(CACHE, `${id.replaceAll('/', '__')}-${key}`);
  const base = join(dir, t.base_path_in_zip);
  if (existsSync(join(dir, '.complete'))) return base.replace(/\/$/, '');
  mkdirSync(CACHE, { recursive: true });
  const tmp = mkdtempSync(join(CACHE, 'x-'));
  extractZip(readFileSync(zip), tmp);
  writeFileSync(join(tmp, '.complete'), '');
  try {
    renameSync(tmp, dir);
  } catch {
    // another worker won the race; its copy is identical
    rmSync(tmp, { recursive: true, force: true });
  }
  return base.replace(/\/$/, '');
}


/** A private writable copy of a fixture table (for compaction, orphan deletion, ...). */
export function tableFresh(id: string): string {
  const src = table(id);
  const dest = mkdtempSync(join(tmpdir(), 'tblcli-fresh-'));
  const base = join(dest, catalogTable(id).base_path_in_zip);
  cpSync(src, base, { recursive: true, preserveTimestamps: true });
  return base.replace(/\/$/, '');
}

export function coreTestData(rel: string): string {
  return join(SHARED_FIXTURES, 'core-test-data', rel);
}

export function allTableIds(): string[] {
  return catalog().tables.map((t) => t.id);
}
