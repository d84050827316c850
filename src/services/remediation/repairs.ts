// hudi-cli's RepairsCommand (§1.8) and TableCommand config commands (§1.12) without Spark:
//   repair addpartitionmeta           partition directories (at the table's partition depth) without
//                                     .hoodie_partition_metadata get one (latest commit time, depth)
//   repair overwrite-hoodie-props     hoodie.properties replaced by a local file (initial version kept)
//   repair corrupted clean files      pending cleans whose plan does not decode are deleted
//   repair show empty commit metadata completed instants with empty content (read only)
//   table update-configs / delete-configs / recover-configs
// Every hoodie.properties change goes through the safe update (backup, delete, write, verify, drop
// the backup; checksum recomputed when missing or invalid, written last — format-timeline.md §1.4).
import { TblError } from '../../errors/index.ts';
import { formatProperties, KEYS, parseProperties, toTableConfig } from '../../config/index.ts';
import { listPartitions, PARTITION_METAFILE } from '../../fs-view/index.ts';
import { decodeCleanerPlan } from '../../metadata/index.ts';
import type { Table } from '../../table/index.ts';
import { deleteInstantFile } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { modifyTableProperties, recoveryNeeded, recoverPropertiesIfNeeded, withChecksumLast } from '../../write/table-properties.ts';
import { underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, rel, type Change } from './report.ts';

export interface DryRun extends ServiceOptions {
  dryRun?: boolean;
}

// ---- repair addpartitionmeta ----

export interface PartitionMetaRow {
  partitionPath: string;
  metadataPresent: 'Yes' | 'No';
  action: 'None' | 'Repaired';
}

/** Directories exactly `depth` levels below the base path (hidden ones and .hoodie skipped). */
async function dirsAtDepth(t: Table, depth: number): Promise<string[]> {
  let level = [{ path: t.basePath, rel: '' }];
  for (let d = 0; d < depth; d++) {
    const next: { path: string; rel: string }[] = [];
    for (const dir of level) {
      for (const e of await t.storage.list(dir.path)) {
        if (e.isDirectory && !e.name.startsWith('.')) next.push({ path: e.path, rel: dir.rel === '' ? e.name : `${dir.rel}/${e.name}` });
      }
    }
    level = next;
  }
  return level.map((d) => d.rel).sort();
}

/**
 * The partition depth: that of the partitions that have a metafile (all of them agree in a Hudi
 * table), else hudi-cli's three levels (FSUtils.getAllPartitionFoldersThreeLevelsDown, made for
 * yyyy/MM/dd). hudi-cli always looks three levels down, which puts metafiles into the intermediate
 * directories of deeper tables; tblcli does not.
 */
async function partitionDepth(t: Table): Promise<number> {
  const depths = new Map<number, number>();
  for (const p of await listPartitions(t.storage, t.basePath)) {
    if (p.partition === '' || !p.files.some((f) => METAFILES.includes(f.name))) continue;
    const d = p.partition.split('/').length;
    depths.set(d, (depths.get(d) ?? 0) + 1);
  }
  return [...depths].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 3;
}

const METAFILES = [PARTITION_METAFILE, `${PARTITION_METAFILE}.parquet`, `${PARTITION_METAFILE}.orc`];

export async function addPartitionMeta(table: Table, opts: DryRun = {}): Promise<{ rows: PartitionMetaRow[]; changes: Change[] }> {
  const run = async (t: Table) => {
    const tl = await t.timeline();
    // getCommitAndReplaceTimeline().lastInstant(); a delta-commit-only table falls back to its last commit of any kind
    const latest = tl.completed().filter((i) => i.action === 'commit' || i.action === 'replacecommit').at(-1) ?? tl.completedCommits().at(-1);
    if (!latest) throw new TblError('timeline', `${t.uri} has no completed commit to write into partition metadata`, { path: t.uri });
    const rows: PartitionMetaRow[] = [];
    const changes: Change[] = [];
    const depth = await partitionDepth(t);
    for (const p of await dirsAtDepth(t, depth)) {
      const dir = joinPath(t.basePath, p);
      let present = false;
      for (const m of METAFILES) if (await t.storage.exists(joinPath(dir, m))) present = true;
      const row: PartitionMetaRow = { partitionPath: p, metadataPresent: present ? 'Yes' : 'No', action: 'None' };
      if (!present) {
        const path = joinPath(dir, PARTITION_METAFILE);
        changes.push({ op: 'create', path: rel(t, path), what: `commitTime=${latest.requestedTime}, partitionDepth=${depth}` });
        if (!opts.dryRun) {
          const now = (opts.now ?? (() => new Date()))();
          await t.storage.writeNew(path, formatProperties(new Map([['commitTime', latest.requestedTime], ['partitionDepth', String(depth)]]), 'partition metadata', now));
          row.action = 'Repaired';
        }
      }
      rows.push(row);
    }
    return { rows, changes };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}

// ---- old / new property tables ----

export interface PropertyChangeRow {
  property: string;
  oldValue: string;
  newValue: string;
}

/** The sorted union of keys, a missing value as "null" (hudi-cli's Property / Old Value / New Value). */
export function propertyRows(before: Map<string, string>, after: Map<string, string>): PropertyChangeRow[] {
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  return keys.map((k) => ({ property: k, oldValue: before.get(k) ?? 'null', newValue: after.get(k) ?? 'null' }));
}

export interface PropsReport {
  dryRun: boolean;
  rows: PropertyChangeRow[];
  changes: Change[];
  warnings: string[];
}

const STRUCTURAL = [KEYS.name, KEYS.type, KEYS.version, KEYS.layoutVersion, KEYS.database];

async function readProps(t: Table): Promise<Map<string, string>> {
  return parseProperties(await t.storage.readFile(joinPath(t.metaPath, 'hoodie.properties')));
}

/** The new properties must still describe a table tblcli (and Hudi) can open. */
function checkProps(t: Table, p: Map<string, string>, source: string): void {
  try {
    toTableConfig(p, source);
  } catch (e) {
    throw new TblError('config', `${source}: the resulting hoodie.properties would not open: ${(e as Error).message}; nothing was written`, { path: t.uri, cause: e });
  }
}

async function replaceProps(table: Table, build: (old: Map<string, string>) => Map<string, string>, source: string, opts: DryRun): Promise<PropsReport> {
  const run = async (t: Table): Promise<PropsReport> => {
    const before = await readProps(t);
    const after = withChecksumLast(build(new Map(before)));
    checkProps(t, after, source);
    const warnings = STRUCTURAL.filter((k) => before.get(k) !== after.get(k)).map((k) => `${k} changes from ${before.get(k) ?? 'null'} to ${after.get(k) ?? 'null'}: readers and writers will see another table`);
    const changes: Change[] = [
      { op: 'create', path: '.hoodie/hoodie.properties.backup', what: 'backup of the current properties (removed at the end)' },
      { op: 'modify', path: '.hoodie/hoodie.properties', what: `${propertyRows(before, after).filter((r) => r.oldValue !== r.newValue).length} propert(ies) changed` },
    ];
    if (!opts.dryRun) {
      const now = (opts.now ?? (() => new Date()))();
      await modifyTableProperties(t.storage, t.metaPath, (m) => {
        m.clear();
        for (const [k, v] of after) m.set(k, v);
      }, now);
    }
    return { dryRun: opts.dryRun === true, rows: propertyRows(before, after), changes, warnings };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}

/** repair overwrite-hoodie-props: hoodie.table.initial.version is carried over from the old properties. */
export function overwriteHoodieProps(table: Table, newProps: Uint8Array, source: string, opts: DryRun = {}): Promise<PropsReport> {
  const parsed = parseProperties(newProps);
  return replaceProps(
    table,
    (old) => {
      const p = new Map(parsed);
      const initial = old.get('hoodie.table.initial.version');
      if (initial !== undefined) p.set('hoodie.table.initial.version', initial);
      return p;
    },
    source,
    opts,
  );
}

/** table update-configs: HoodieTableConfig.update (props.putAll(updated)). */
export function updateTableConfigs(table: Table, updates: Uint8Array, source: string, opts: DryRun = {}): Promise<PropsReport> {
  const u = parseProperties(updates);
  return replaceProps(table, (old) => {
    for (const [k, v] of u) old.set(k, v);
    return old;
  }, source, opts);
}

/** table delete-configs: HoodieTableConfig.delete. */
export function deleteTableConfigs(table: Table, keys: string[], opts: DryRun = {}): Promise<PropsReport> {
  return replaceProps(table, (old) => {
    for (const k of keys) old.delete(k);
    return old;
  }, 'delete-configs', opts);
}

/** table recover-configs: HoodieTableConfig.recover (a crashed update's backup restored or dropped). */
export async function recoverTableConfigs(table: Table, opts: DryRun = {}): Promise<{ dryRun: boolean; action: 'none' | 'drop-backup' | 'restore'; changes: Change[] }> {
  const describe = (action: 'none' | 'drop-backup' | 'restore'): Change[] =>
    action === 'none'
      ? []
      : [
          ...(action === 'restore' ? [{ op: 'modify' as const, path: '.hoodie/hoodie.properties', what: 'restored from hoodie.properties.backup (missing or invalid checksum)' }] : []),
          { op: 'delete' as const, path: '.hoodie/hoodie.properties.backup', what: 'the backup of a crashed update' },
        ];
  if (opts.dryRun) {
    const action = await recoveryNeeded(table.storage, table.metaPath);
    return { dryRun: true, action, changes: describe(action) };
  }
  // the table opened (through the backup, if need be); recover under the lock
  return underLock(table, opts, async (t) => {
    const action = await recoverPropertiesIfNeeded(t.storage, t.metaPath);
    return { dryRun: false, action, changes: describe(action) };
  });
}

// ---- repair corrupted clean files ----

export interface CleanRepairRow {
  instant: string;
  state: string;
  problem: string;
  action: 'None' | 'Deleted' | 'Would delete';
}

export async function repairCorruptedCleanFiles(table: Table, opts: DryRun = {}): Promise<{ rows: CleanRepairRow[]; changes: Change[] }> {
  const run = async (t: Table) => {
    const tl = await t.timeline();
    const rows: CleanRepairRow[] = [];
    const changes: Change[] = [];
    for (const i of tl.pending().filter((x) => x.action === 'clean')) {
      let problem = '';
      if (!i.files.REQUESTED) problem = 'no requested plan';
      else {
        try {
          decodeCleanerPlan(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED.path) });
        } catch (e) {
          problem = (e as Error).message.split('\n')[0]!;
        }
      }
      if (!problem) continue;
      for (const s of ['INFLIGHT', 'REQUESTED'] as const) if (i.files[s]) changes.push(instantChange(t, 'delete', i.requestedTime, 'clean', s, 'corrupted clean plan'));
      if (!opts.dryRun) {
        await deleteInstantFile(t.timelineSource, i.requestedTime, 'clean', 'INFLIGHT');
        await deleteInstantFile(t.timelineSource, i.requestedTime, 'clean', 'REQUESTED');
      }
      rows.push({ instant: i.requestedTime, state: i.state, problem, action: opts.dryRun ? 'Would delete' : 'Deleted' });
    }
    return { rows, changes };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}

// ---- repair show empty commit metadata ----

/** Completed instants whose file is empty (HoodieActiveTimeline.isEmpty), as hudi-cli logs them. */
export async function emptyCommitMetadata(table: Table): Promise<{ instant: string; action: string; file: string }[]> {
  const tl = await table.timeline();
  const done = tl.completed();
  // listed sizes may be lazy: the bytes decide
  const empty = await tl.mapRead(done, 'COMPLETED', (b) => b.length === 0);
  return done.filter((_, n) => empty[n]).map((i) => ({ instant: i.requestedTime, action: i.action, file: rel(table, i.files.COMPLETED!.path) }));
}
