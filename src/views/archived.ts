// --includeArchivedTimeline: archived completed commits merged after the active ones (newest first).
import type { Table } from '../table/index.ts';
import { loadCommits, type CommitWithMetadata } from '../table/queries.ts';
import type { Instant } from '../timeline/index.ts';

const COMMIT_ACTIONS = new Set(['commit', 'deltacommit', 'replacecommit']);

export async function archivedCommits(table: Table, range: { startTs?: string; endTs?: string } = {}): Promise<CommitWithMetadata[]> {
  const { loadArchive, toCommitMetadata } = await import('./archived-views.ts');
  const archived = await loadArchive(table, { ...range, withMetadata: true });
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
      metadata: toCommitMetadata(a.metadata),
    }))
    .sort((x, y) => (x.instant.requestedTime < y.instant.requestedTime ? 1 : -1));
}

export async function withArchivedCommits(table: Table): Promise<CommitWithMetadata[]> {
  const [active, old] = await Promise.all([loadCommits(table), archivedCommits(table)]);
  const seen = new Set(active.map((c) => c.instant.requestedTime));
  return [...active, ...old.filter((c) => !seen.has(c.instant.requestedTime))];
}
