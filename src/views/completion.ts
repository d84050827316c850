// Values shell completion offers from a table: its instants (newest first) and its partitions.
import { listPartitions } from '../fs-view/index.ts';
import type { Table } from '../table/index.ts';

export type CompletionKind = 'instant' | 'partition';

export async function completionValues(table: Table, kind: CompletionKind): Promise<string[]> {
  if (kind === 'partition') return (await listPartitions(table.storage, table.basePath)).map((p) => p.partition).filter((p) => p !== '').sort();
  const tl = await table.timeline();
  return [...new Set(tl.instants.map((i) => i.requestedTime))].reverse();
}
