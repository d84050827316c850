// Safe hoodie.properties update (HoodieTableConfig.modify, format-timeline.md §1.4) and the
// "writer with the metadata table disabled" procedure (§9): clear hoodie.table.metadata.partitions[.inflight]
// first, so readers stop using the MDT, then delete .hoodie/metadata.
import { TblError } from '../errors/index.ts';
import { formatProperties, KEYS, parseProperties } from '../config/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';

function propsPaths(metaPath: string) {
  const props = joinPath(metaPath, 'hoodie.properties');
  return { props, backup: `${props}.backup` };
}

/** ConfigUtils.recoverIfNeeded: a backup left by a crashed update wins. */
export async function recoverPropertiesIfNeeded(storage: Storage, metaPath: string): Promise<void> {
  const { props, backup } = propsPaths(metaPath);
  if (!(await storage.exists(backup))) return;
  if (!(await storage.exists(props))) await storage.writeNew(props, await storage.readFile(backup));
  await storage.delete(backup);
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
