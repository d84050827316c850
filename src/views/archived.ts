// --includeArchivedTimeline: archived completed commits merged before the active ones (newest first).
import type { Table } from '../table/index.ts';
import { loadCommits, type CommitWithMetadata } from '../table/queries.ts';
import type { Instant } from '../timeline/index.ts';
import type { CommitMetadata } from '../metadata/index.ts';

const COMMIT_ACTIONS = new Set(['commit', 'deltacommit', 'replacecommit']);

export async function withArchivedCommits(table: Table): Promise<CommitWithMetadata[]> {
  const { loadArchivedTimeline } = await import('../archive/index.ts');
  const [active, archived] = await Promise.all([
    loadCommits(table),
    loadArchivedTimeline(table.storage, table.basePath, { config: table.config }),
  ]);
  const seen = new Set(active.map((c) => c.instant.requestedTime));
  const old: CommitWithMetadata[] = archived
    .filter((a) => COMMIT_ACTIONS.has(a.action) && a.state === 'COMPLETED' && !seen.has(a.requestedTime) && a.commitMetadata)
    .map((a) => ({
      instant: {
        requestedTime: a.requestedTime,
        action: a.action as Instant['action'],
        state: 'COMPLETED',
        completionTime: a.completionTime,
        effectiveAction: a.action as Instant['action'],
        files: {},
        stateActions: {},
      },
      metadata: a.commitMetadata as CommitMetadata,
    }));
  old.sort((x, y) => (x.instant.requestedTime < y.instant.requestedTime ? 1 : -1));
  return [...active, ...old];
}
