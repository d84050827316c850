// Safe hoodie.properties update (HoodieTableConfig.modify, format-timeline.md §1.4) and the
// "writer with the metadata table disabled" procedure (§9): clear hoodie.table.metadata.partitions[.inflight]
// first, so readers stop using the MDT, then delete .hoodie/metadata.
import { TblError } from '../errors/index.ts';
import { formatProperties, KEYS, parseProperties, tableChecksum } from '../config/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';

function propsPaths(metaPath: string) {
  const props = joinPath(metaPath, 'hoodie.properties');
  return { props, backup: `${props}.backup` };
}

/** HoodieTableConfig.validateChecksum: the stored checksum is CRC32("<db>.<name>"). */
export function checksumValid(p: Map<string, string>): boolean {
  const name = p.get(KEYS.name);
  const stored = p.get(KEYS.checksum);
  return name !== undefined && stored !== undefined && stored === tableChecksum(p.get(KEYS.database), name);
}

/** getOrderedPropertiesWithTableChecksum: a missing or invalid checksum is recomputed; it is written last. */
export function withChecksumLast(p: Map<string, string>): Map<string, string> {
  const name = p.get(KEYS.name);
  if (name === undefined) return p;
  const sum = checksumValid(p) ? p.get(KEYS.checksum)! : tableChecksum(p.get(KEYS.database), name);
  p.delete(KEYS.checksum);
  p.set(KEYS.checksum, sum);
  return p;
}

/** What recoverPropertiesIfNeeded would do: nothing, drop the backup, or restore hoodie.properties from it. */
export async function recoveryNeeded(storage: Storage, metaPath: string): Promise<'none' | 'drop-backup' | 'restore'> {
  const { props, backup } = propsPaths(metaPath);
  if (!(await storage.exists(backup))) return 'none';
  if (!(await storage.exists(props))) return 'restore';
  return checksumValid(parseProperties(await storage.readFile(props))) ? 'drop-backup' : 'restore';
}

/**
 * ConfigUtils.recoverIfNeeded: with a backup left by a crashed update, a missing hoodie.properties or
 * one without a valid checksum is replaced by the backup; the backup goes either way.
 */
export async function recoverPropertiesIfNeeded(storage: Storage, metaPath: string): Promise<'none' | 'drop-backup' | 'restore'> {
  const { props, backup } = propsPaths(metaPath);
  const need = await recoveryNeeded(storage, metaPath);
  if (need === 'none') return need;
  if (need === 'restore') {
    await storage.delete(props);
    await storage.writeNew(props, await storage.readFile(backup));
  }
  await storage.delete(backup);
  return need;
}

function sameMaps(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Backup, delete, rewrite, verify, drop the backup. Call with the table lock held. */
export async function modifyTableProperties(
  storage: Storage,
  metaPath: string,
  change: (props: Map<string, string>) => void,
  now: Date = new Date(),
): Promise<Map<string, string>> {
  await recoverPropertiesIfNeeded(storage, metaPath);
  const { props, backup } = propsPaths(metaPath);
  const original = await storage.readFile(props);
  const map = parseProperties(original);
  change(map);
  withChecksumLast(map);
  await storage.writeNew(backup, original);
  await storage.delete(props);
  await storage.writeNew(props, formatProperties(map, `Updated at ${now.toISOString()}`, now));
  const reread = parseProperties(await storage.readFile(props));
  if (!sameMaps(reread, map)) {
    await storage.delete(props);
    throw new TblError('config', `${storage.uri(props)}: re-read properties differ from what was written; ${storage.uri(backup)} kept`, {
      path: storage.uri(props),
    });
  }
  await storage.delete(backup);
  return map;
}

/** HoodieTableMetadataUtil.deleteMetadataTable without backup. Call with the table lock held. */
export async function disableMetadataTable(storage: Storage, metaPath: string, now: Date = new Date()): Promise<void> {
  await modifyTableProperties(
    storage,
    metaPath,
    (p) => {
      if (p.has(KEYS.metadataPartitions)) p.set(KEYS.metadataPartitions, '');
      if (p.has(KEYS.metadataPartitionsInflight)) p.set(KEYS.metadataPartitionsInflight, '');
    },
    now,
  );
  await storage.delete(joinPath(metaPath, 'metadata'), { recursive: true });
}
