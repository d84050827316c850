import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { TblError } from '../errors/index.ts';
import { LocalStorage } from './local.ts';
import type { Storage } from './types.ts';

/** Options that reach remote storage backends (WebHDFS flags and env). */
export interface StorageOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  namenodeHttp?: string;
  user?: string;
  doAs?: string;
  delegationToken?: string;
  tokenFile?: string;
  caFile?: string;
  httpfs?: boolean;
  retries?: number;
  timeoutMs?: number;
  concurrency?: number;
  /** first retry delay in ms (doubles per retry, with jitter); default 200 */
  retryDelayMs?: number;
  debug?: (msg: string) => void;
}

export interface Location {
  storage: Storage;
  /** absolute path inside the storage */
  path: string;
}

/** Picks the storage backend from a path or URI: bare path, file://, webhdfs://, swebhdfs://, hdfs://. */
export async function resolveLocation(uri: string, opts: StorageOptions = {}): Promise<Location> {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(uri);
  const scheme = m?.[1]?.toLowerCase();
  if (!scheme || scheme === 'file') {
    const p = scheme === 'file' ? fileURLToPath(uri) : nodePath.resolve(opts.cwd ?? process.cwd(), uri);
    const norm = p.length > 1 ? p.replace(/\/+$/, '') : p;
    return { storage: new LocalStorage(), path: norm };
  }
  if (scheme === 'webhdfs' || scheme === 'swebhdfs' || scheme === 'hdfs') {
    const { openWebHdfs } = await import('./webhdfs/index.ts');
    return openWebHdfs(uri, opts);
  }
  throw new TblError('usage', `unsupported storage scheme '${scheme}://' in ${uri}`, {
    path: uri,
    hint: 'use a local path, file://, hdfs://, webhdfs:// or swebhdfs://',
  });
}
