// What a remediation command changes (or, in a dry run, would change): one list of file operations
// every command prints and returns in --json, so a dry run shows exactly what the real run does.
import type { Table } from '../../table/index.ts';
import { instantFilePath } from '../../timeline/writer.ts';
import type { Action, State } from '../../timeline/index.ts';
import { relativeTo } from '../../util/index.ts';

export interface Change {
  /** create: a new file; delete: a file (or directory) removed; modify: a file rewritten in place */
  op: 'create' | 'delete' | 'modify';
  /** table-relative path */
  path: string;
  what: string;
}

export function rel(t: Table, path: string): string {
  return relativeTo(t.basePath, path) ?? path;
}

export function instantChange(t: Table, op: Change['op'], time: string, action: Action, state: State, what: string, completionTime?: string): Change {
  const path = instantFilePath(t.timelineSource, time, action, state, state === 'COMPLETED' && t.config.layoutVersion === 2 ? completionTime ?? '<completion time>' : undefined);
  return { op, path: rel(t, path), what };
}
