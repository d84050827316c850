// Test helpers: demo tables in temp dirs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoTable, type DemoSummary } from '../../src/demo/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import type { FileSystemView } from '../../src/fs-view/index.ts';
import { scanTable, type TableScan } from '../../src/triage/index.ts';

export const storage = new LocalStorage();

export async function demoTable(version: 6 | 8, now = new Date()): Promise<{ dir: string; demo: DemoSummary }> {
  const dir = join(mkdtempSync(join(tmpdir(), 'tblcli-triage-')), 'demo_orders');
  const demo = await generateDemoTable(storage, dir, { tableVersion: version, now });
  return { dir, demo };
}

/** The table's file-system view (the scan keeps none: it streams the listing). */
export async function viewOf(dir: string): Promise<FileSystemView> {
  return loadFileSystemView(await openTable(dir));
}

export async function scanOf(dir: string, now = new Date()): Promise<TableScan> {
  return scanTable(await openTable(dir), { now });
}
