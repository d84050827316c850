// One library call per commits command: read what it needs, return columns + rows.
import type { Table } from '../table/index.ts';
import { TblError } from '../errors/index.ts';
import { findCommit, inflightsOlderThan, loadCommits, loadCommitTotals, type CommitWithMetadata } from '../table/queries.ts';
import {
  commitColumns,
  commitExtraColumns,
  commitFileColumns,
  commitPartitionColumns,
  commitWriteStatsColumns,
  toCommitSummaries,
  toCommitSummariesFromTotals,
  toPartitionRows,
  toWriteStatRows,
  toWriteStatsRow,
} from './commits.ts';
import { inflightColumns } from './timeline.ts';
import { result, type TableResult } from './result.ts';

export async function commitsShow(
  table: Table,
  opts: { extra: boolean; partition?: string; archived: boolean; limitHint?: number },
): Promise<TableResult> {
  if (opts.archived) {
    const { withArchivedCommits } = await import('./archived.ts');
    const rows = await withArchivedCommits(table);
    return opts.extra ? result(commitExtraColumns, toWriteStatRows(rows, opts.partition)) : result(commitColumns, toCommitSummaries(rows));
  }
  if (opts.extra) return result(commitExtraColumns, toWriteStatRows(await loadCommits(table), opts.partition));
  // Without --sortBy the newest `limit` commits are all that is shown: decode only those.
  return result(commitColumns, toCommitSummariesFromTotals(await loadCommitTotals(table, { limit: opts.limitHint })));
}

/** The completed commit with that time, looked up in the archived timeline too when asked. */
async function commitFor(table: Table, instant: string, archived: boolean): Promise<CommitWithMetadata> {
  try {
    return await findCommit(table, instant);
  } catch (e) {
    if (!archived || !(e instanceof TblError) || e.kind !== 'not-found') throw e;
    const { archivedCommits } = await import('./archived.ts');
    const found = (await archivedCommits(table, { startTs: instant, endTs: instant })).find((c) => c.instant.requestedTime === instant);
    if (!found) throw e;
    return found;
  }
}

export async function commitShowPartitions(table: Table, instant: string, archived = false): Promise<TableResult> {
  return result(commitPartitionColumns, toPartitionRows(await commitFor(table, instant, archived)));
}

export async function commitShowFiles(table: Table, instant: string, archived = false): Promise<TableResult> {
  return result(commitFileColumns, toWriteStatRows([await commitFor(table, instant, archived)]));
}

export async function commitShowWriteStats(table: Table, instant: string, archived = false): Promise<TableResult> {
  return result(commitWriteStatsColumns, [toWriteStatsRow(await commitFor(table, instant, archived))]);
}

export async function commitsShowInflights(table: Table, mins: number, now: Date): Promise<TableResult> {
  return result(inflightColumns, await inflightsOlderThan(table, mins, now));
}

export interface CompareResult {
  source: string;
  target: string;
  sourceLatestCommit: string;
  targetLatestCommit: string;
  behind: boolean;
  commitsToCatchUp: string[];
  message: string;
}

/** commits compare: which side is ahead, and by which completed commits. */
export async function commitsCompare(source: Table, target: Table): Promise<CompareResult> {
  const [st, tt] = await Promise.all([source.timeline(), target.timeline()]);
  const s = st.completedCommits();
  const t = tt.completedCommits();
  const sLatest = s[s.length - 1]?.requestedTime ?? '0';
  const tLatest = t[t.length - 1]?.requestedTime ?? '0';
  const behind = tLatest > sLatest;
  const catchUp = (behind ? t.filter((i) => i.requestedTime > sLatest) : s.filter((i) => i.requestedTime > tLatest)).map(
    (i) => i.requestedTime,
  );
  const name = source.config.name;
  const message = `Source ${name} is ${behind ? 'behind' : 'ahead'} by ${catchUp.length} commits. Commits to catch up - [${catchUp.join(', ')}]`;
  return {
    source: source.uri,
    target: target.uri,
    sourceLatestCommit: sLatest,
    targetLatestCommit: tLatest,
    behind,
    commitsToCatchUp: catchUp,
    message,
  };
}
