// --includeArchivedTimeline: archived completed commits merged after the active ones (newest first).
import type { Table } from '../table/index.ts';
import { loadCommits, type CommitWithMetadata } from '../table/queries.ts';
import type { Instant } from '../timeline/index.ts';
import { commitMetadataFromRecord } from '../metadata/index.ts';

const COMMIT_ACTIONS = new Set(['commit', 'deltacommit', 'replacecommit']);

export async function archivedCommits(table: Table, range: { startTs?: string; endTs?: string } = {}): Promise<CommitWithMetadata[]> {
  const { loadArchivedTimeline } = await import('../archive/index.ts');
  const archived = await loadArchivedTimeline(table.storage, table.basePath, {
    layout: table.config.layoutVersion,
    archiveDir:
      table.config.layoutVersion === 1
        ? `${table.metaPath}/${table.config.archiveFolder}`
        : `${table.metaPath}/${table.config.timelinePath}/${table.config.historyPath}`,
    ...range,
  });
  return archived
    .filter((a) => COMMIT_ACTIONS.has(a.action) && a.state === 'COMPLETED' && a.metadata && typeof a.metadata === 'object')
    .map((a) => ({
      instant: {
        requestedTime: a.requestedTime,
        action: a.action as Instant['action'],
        state: 'COMPLETED' as const,
        completionTime: a.completionTime,
        effectiveAction: a.action as Instant['action'],
        files: {},
        stateActions: {},
      },
      metadata: commitMetadataFromRecord(a.metadata as Record<string, unknown>),
    }))
    .sort((x, y) => (x.instant.requestedTime < y.instant.requestedTime ? 1 : -1));
}

export async function withArchivedCommits(table: Table): Promise<CommitWithMetadata[]> {
  const [active, old] = await Promise.all([loadCommits(table), archivedCommits(table)]);
  const seen = new Set(active.map((c) => c.instant.requestedTime));
  return [...active, ...old.filter((c) => !seen.has(c.instant.requestedTime))];
}
