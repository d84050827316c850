// The acceptance check of a clean on a table copy: what the independent oracle predicts
// (clean-oracle.ts) is exactly what the clean deletes and what its plan lists; the snapshot as of
// every retained instant is unchanged; the metadata table stays in step.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { decodeCleanerPlan, decodeCleanMetadata } from '../../../src/metadata/index.ts';
import { cleanTable, resolveCleanConfig, type CleanTableResult } from '../../../src/services/index.ts';
import { openTable } from '../../../src/table/index.ts';
import { allFiles } from '../../support/files.ts';
import { runJson } from '../../support/run-cli.ts';
import { snapshotAsOf } from './asof.ts';
import { predictClean, type OracleConfig, type Prediction } from './clean-oracle.ts';

/** Data files of a table (everything outside .hoodie), table-relative. */
export function dataFiles(base: string): Set<string> {
  return new Set(
    allFiles(base)
      .map((f) => relative(base, f))
      .filter((r) => !r.startsWith('.hoodie/') && !r.startsWith('.hoodie')),
  );
}

export async function runClean(base: string, cfg: OracleConfig, extra: Record<string, unknown> = {}): Promise<CleanTableResult> {
  const t = await openTable(base);
  const config = resolveCleanConfig(
    [t.config.props],
    { policy: cfg.policy, commitsRetained: cfg.commitsRetained, fileVersionsRetained: cfg.fileVersionsRetained, hoursRetained: cfg.hoursRetained },
    t.config.version,
  );
  if (cfg.incremental !== undefined) config.incremental = cfg.incremental;
  if (cfg.maxCommits !== undefined) config.maxCommits = cfg.maxCommits;
  return cleanTable(t, { config, clockSkewMs: 1, now: () => cfg.now ?? new Date(), wantBytes: true, ...extra });
}

/** Completed commits (requested times) at or after `from` (all when undefined). */
export async function retainedInstants(base: string, from: string | undefined): Promise<string[]> {
  const tl = await (await openTable(base)).timeline();
  return tl
    .completedCommits()
    .map((i) => i.requestedTime)
    .filter((t) => from === undefined || t >= from);
}

export interface CheckOptions {
  /** read snapshots with our reader (false for tables whose base files it cannot read, e.g. lance) */
  snapshots?: boolean;
  /** at most this many retained instants get a time-travel comparison (spread over the window) */
  maxInstants?: number;
  /** extra instants whose snapshot must survive (savepoints) */
  alsoAsOf?: string[];
}

function spread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  const out: T[] = [];
  for (let k = 0; k < n; k++) out.push(xs[Math.round((k * (xs.length - 1)) / (n - 1))]!);
  return [...new Set(out)];
}

export async function checkClean(base: string, cfg: OracleConfig, o: CheckOptions = {}): Promise<{ prediction: Prediction; result: CleanTableResult; deleted: Set<string> }> {
  const prediction = predictClean(base, cfg);
  const snapshots = o.snapshots ?? true;
  // the instants whose snapshot a clean must keep: COMMITS / BY_HOURS from the earliest commit to retain on, else the latest
  const window = cfg.policy === 'KEEP_LATEST_FILE_VERSIONS' ? [undefined] : [...spread(await retainedInstants(base, prediction.ectr ?? '~'), o.maxInstants ?? 3), undefined];
  const asOf = [...window, ...(o.alsoAsOf ?? [])];
  const before = snapshots ? await Promise.all(asOf.map((t) => snapshotAsOf(base, t))) : [];
  const filesBefore = dataFiles(base);
  const hadMdt = existsSync(join(base, '.hoodie', 'metadata', '.hoodie'));

  const result = await runClean(base, cfg);
  const filesAfter = dataFiles(base);
  const deleted = new Set([...filesBefore].filter((f) => !filesAfter.has(f)));
  const expectedGone = new Set(prediction.files);
  // a deleted partition takes its partition metadata file along
  for (const p of prediction.partitionsDeleted) for (const f of filesBefore) if (f.startsWith(`${p}/.hoodie_partition_metadata`)) expectedGone.add(f);
  expect([...deleted].sort(), `deleted files of ${base}`).toEqual([...expectedGone].sort());

  const done = result.cleans.filter((c) => c.status === 'completed');
  if (prediction.nothing) {
    expect(done, 'no clean instant when nothing is to be deleted').toEqual([]);
  } else {
    expect(done).toHaveLength(1);
    const c = done[0]!;
    const t = await openTable(base);
    const tl = await t.timeline();
    const i = tl.find(c.instant!).find((x) => x.action === 'clean')!;
    expect(i.state).toBe('COMPLETED');
    const plan = decodeCleanerPlan(await tl.read(i, 'REQUESTED'), { path: 'plan' });
    const planned = Object.values(plan.filePathsToBeDeletedPerPartition ?? {}).flatMap((l) => l.map((f) => relative(base, f.filePath!.replace(/^file:/, ''))));
    expect(planned.sort()).toEqual([...prediction.files].sort());
    expect([...(plan.partitionsToBeDeleted ?? [])].sort()).toEqual([...prediction.partitionsDeleted].sort());
    expect(plan.earliestInstantToRetain?.timestamp ?? null).toBe(prediction.ectr ?? null);
    const m = decodeCleanMetadata(await tl.read(i, 'COMPLETED'), { path: 'clean' });
    expect(m.totalFilesDeleted).toBe(prediction.files.size);
    expect(m.earliestCommitToRetain).toBe(prediction.ectr ?? '');
    const names = Object.values(m.partitionMetadata).flatMap((p) => p.successDeleteFiles);
    expect(names.sort()).toEqual([...prediction.files].map((f) => f.slice(f.lastIndexOf('/') + 1)).sort());
  }
  if (snapshots) {
    const after = await Promise.all(asOf.map((t) => snapshotAsOf(base, t)));
    for (let k = 0; k < asOf.length; k++) expect(after[k], `snapshot as of ${asOf[k] ?? 'latest'}`).toEqual(before[k]);
  }
  if (hadMdt) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  return { prediction, result, deleted };
}
