import { StorageError, TblError } from '../errors/index.ts';
import { resolveLocation, type FileStatus, type Storage, type StorageOptions } from '../storage/index.ts';
import { parseProperties, toTableConfig, type TableConfig } from '../config/index.ts';
import { loadActiveTimeline, type Timeline, type TimelineSource } from '../timeline/index.ts';
import { joinPath } from '../util/index.ts';

export interface Table {
  /** what the user typed (for messages) */
  uri: string;
  storage: Storage;
  basePath: string;
  metaPath: string;
  config: TableConfig;
  warnings: string[];
  timelineSource: TimelineSource;
  /**
   * Loaded once and cached; `refresh` builds a new Table. `onListed` sees the listing before it is
   * grouped when this call is the one that loads it.
   */
  timeline(onListed?: (files: FileStatus[]) => void): Promise<Timeline>;
}

export interface OpenOptions extends StorageOptions {
  concurrency?: number;
}

/** Opens a Hudi table: resolves storage, reads and validates hoodie.properties. The timeline loads lazily. */
export async function openTable(uri: string, opts: OpenOptions = {}): Promise<Table> {
  const { storage, path: basePath } = await resolveLocation(uri, opts);
  return openTableAt(storage, basePath, uri, opts);
}

export async function openTableAt(storage: Storage, basePath: string, uri = storage.uri(basePath), opts: OpenOptions = {}): Promise<Table> {
  const metaPath = joinPath(basePath, '.hoodie');
  const propsPath = joinPath(metaPath, 'hoodie.properties');
  const warnings: string[] = [];
  let bytes: Uint8Array;
  let usedPath = propsPath;
  try {
    bytes = await storage.readFile(propsPath);
  } catch (e) {
    if (!(e instanceof StorageError) || e.code !== 'not-found') throw e;
    // HoodieTableConfig falls back to the backup left by an interrupted properties update.
    const backup = `${propsPath}.backup`;
    if (await storage.exists(backup)) {
      bytes = await storage.readFile(backup);
      usedPath = backup;
      warnings.push(`${storage.uri(propsPath)} is missing; read ${storage.uri(backup)} (an interrupted properties update?)`);
    } else {
      if (!(await storage.exists(basePath))) {
        throw new TblError('not-found', `${uri}: no such file or directory`, { path: uri });
      }
      throw new TblError('not-found', `${uri} is not a Hudi table: ${storage.uri(propsPath)} not found`, {
        path: uri,
        hint: 'pass the table base path, the directory that contains .hoodie/',
      });
    }
  }
  let props: Map<string, string>;
  try {
    props = parseProperties(bytes);
  } catch (e) {
    throw new TblError('config', `${storage.uri(usedPath)}: unreadable properties file: ${(e as Error).message}`, {
      path: storage.uri(usedPath),
      cause: e,
    });
  }
  const config = toTableConfig(props, storage.uri(usedPath));
  if (config.checksumMismatch) {
    warnings.push(
      `${storage.uri(usedPath)}: hoodie.table.checksum ${config.checksumMismatch.stored} does not match ${config.checksumMismatch.expected} (CRC32 of database.table name)`,
    );
  }
  const timelineDir = config.layoutVersion === 2 ? joinPath(metaPath, config.timelinePath) : metaPath;
  const timelineSource: TimelineSource = {
    storage,
    metaPath,
    layout: config.layoutVersion,
    timelineDir,
    timezone: config.timezone,
    concurrency: opts.concurrency,
  };
  let cached: Promise<Timeline> | undefined;
  return {
    uri,
    storage,
    basePath,
    metaPath,
    config,
    warnings,
    timelineSource,
    timeline(onListed) {
      cached ??= loadActiveTimeline(timelineSource, onListed);
      return cached;
    },
  };
}
