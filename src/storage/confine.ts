// No path named by table metadata may leave the table. Plans, commit metadata, rollback and clean
// plans and markers name files by relative paths, absolute paths or URIs (Hadoop Path strings), and a
// corrupt or hostile entry (`../../etc/x`, `/etc/x`, `hdfs://other-cluster/…`, `%2e%2e`, a symlink out
// of the table) must never make a command read, write or delete outside the base path.
//
// Two layers: resolveTableEntry turns one metadata entry into a storage path or fails with a one-line
// error naming the instant and the entry (services call it while validating, before anything is
// written); confineStorage wraps the storage a write goes through so that every mutation outside the
// root fails even where a caller forgot to resolve.
import { TblError } from '../errors/index.ts';
import { joinPath, relativeTo } from '../util/index.ts';
import type { ContentSummary, DeleteOptions, FileData, FileStatus, ListOptions, Storage } from './types.ts';

export interface EntryContext {
  /** the instant whose metadata names the entry */
  instant?: string;
  /** what names it, for the message: 'compaction plan', 'rollback plan', 'marker', … */
  source: string;
  /** directory a relative entry is relative to (default the base path) */
  relativeTo?: string;
}

/** Optional storage capabilities the confinement uses (LocalStorage, WebHdfsStorage implement them). */
export interface ConfinableStorage extends Storage {
  /** Whether a URI with a scheme (file:, hdfs:, webhdfs: …) names this storage's file system; returns its path. */
  pathOfUri?(uri: string): string | undefined;
  /** Canonical path of an existing path (symlinks resolved); undefined where the storage has no links. */
  realPath?(path: string): Promise<string | undefined>;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

function escapeError(entry: string, ctx: EntryContext, why: string, basePath: string): TblError {
  const where = ctx.instant ? `instant ${ctx.instant}: ` : '';
  return new TblError('metadata', `${where}${ctx.source} entry ${JSON.stringify(entry)} ${why}; it must name a file inside the table ${basePath}`, {
    instant: ctx.instant,
    key: entry,
    hint: 'nothing was changed; the table metadata naming it is corrupt or was written for another location',
  });
}

/** Why a '/'-separated path is unsafe as written (a `..` segment, raw or percent-encoded; a NUL), or undefined. */
export function unsafeSegment(path: string): string | undefined {
  // the common case, checked without splitting (every storage call of a write goes through here)
  if (!path.includes('..') && !path.includes('%') && !path.includes('\0')) return undefined;
  for (const seg of path.split('/')) {
    let decoded = seg;
    if (seg.includes('%')) {
      try {
        decoded = decodeURIComponent(seg);
      } catch {
        return `has a malformed percent-escape in ${JSON.stringify(seg)}`;
      }
    }
    if (seg === '..' || decoded === '..' || decoded.split('/').includes('..')) return 'climbs out with ".."';
    if (decoded.includes('\0')) return 'contains a NUL character';
  }
  return undefined;
}

/**
 * The storage path of a file named by table metadata: a path relative to `ctx.relativeTo` (default
 * the base path), an absolute path or a URI of this storage's file system, below `basePath`.
 */
export function resolveTableEntry(storage: Storage, basePath: string, entry: string, ctx: EntryContext): string {
  if (entry === '') throw escapeError(entry, ctx, 'is empty', storage.uri(basePath));
  const bad = unsafeSegment(entry);
  if (bad) throw escapeError(entry, ctx, bad, storage.uri(basePath));
  let path: string;
  if (SCHEME.test(entry)) {
    const p = (storage as ConfinableStorage).pathOfUri?.(entry);
    if (p === undefined) throw escapeError(entry, ctx, `is a URI of another file system than ${storage.uri(basePath)}`, storage.uri(basePath));
    path = p;
  } else if (entry.startsWith('/')) {
    path = joinPath(entry);
  } else {
    path = joinPath(ctx.relativeTo ?? basePath, entry);
  }
  if (relativeTo(basePath, path) === undefined || path === basePath) throw escapeError(entry, ctx, 'is outside the table', storage.uri(basePath));
  return path;
}

/**
 * The storage with every mutation (and every read) confined to `root`: a path outside it, with a
 * `..` segment, or (where the storage has symlinks) reaching outside through a link is refused with
 * TblError('metadata') before the storage is touched. Listing and reading stay allowed below root only.
 */
export function confineStorage(storage: Storage, root: string): Storage {
  const s = storage as ConfinableStorage;
  let realRoot: Promise<string | undefined> | undefined;
  const realDirs = new Map<string, Promise<boolean>>();

  const lexical = (op: string, path: string) => {
    const bad = unsafeSegment(path);
    if (bad || (path !== root && relativeTo(root, path) === undefined)) {
      throw new TblError('metadata', `refused to ${op} ${storage.uri(path)}: ${bad ?? 'outside the table'} ${storage.uri(root)}`, { path: storage.uri(path) });
    }
  };
  /** The nearest existing ancestor of `path` (itself included) resolves below the real root. */
  const physicallyInside = (path: string): Promise<boolean> => {
    if (!s.realPath) return Promise.resolve(true);
    let p = realDirs.get(path);
    if (!p) {
      p = (async () => {
        realRoot ??= s.realPath!(root);
        const rr = await realRoot;
        if (rr === undefined) return true;
        for (let cur = path; ; cur = cur.slice(0, Math.max(cur.lastIndexOf('/'), 1))) {
          const real = await s.realPath!(cur);
          if (real !== undefined) return real === rr || relativeTo(rr, real) !== undefined;
          if (cur === root || cur === '/' || cur === '') return true;
        }
      })();
      realDirs.set(path, p);
    }
    return p;
  };
  const parentOf = (p: string) => p.slice(0, Math.max(p.lastIndexOf('/'), 1));
  const check = async (op: string, path: string, physical: string = parentOf(path)) => {
    lexical(op, path);
    if (!(await physicallyInside(physical))) {
      throw new TblError('metadata', `refused to ${op} ${storage.uri(path)}: it reaches outside the table ${storage.uri(root)} through a symbolic link`, {
        path: storage.uri(path),
      });
    }
  };

  /** check() for a batch: every path lexically, each distinct parent directory once (archival passes 30,000 paths of one directory). */
  const checkEach = async (op: string, paths: readonly string[]) => {
    const firstIn = new Map<string, string>();
    for (const p of paths) {
      lexical(op, p);
      const d = parentOf(p);
      if (!firstIn.has(d)) firstIn.set(d, p);
    }
    for (const p of firstIn.values()) await check(op, p);
  };

  const refuseRoot = (path: string): void => {
    if (path === root) throw new TblError('bug', `refused to delete the table root ${storage.uri(root)}`);
  };
  /** what the batch deletes check before touching any file */
  const checkDeletes = async (paths: readonly string[]) => {
    for (const p of paths) refuseRoot(p);
    await checkEach('delete', paths);
  };

  const confined: Storage = {
    scheme: storage.scheme,
    uri: (p) => storage.uri(p),
    async list(dir: string, opts?: ListOptions): Promise<FileStatus[]> {
      await check('list', dir, dir);
      return storage.list(dir, opts);
    },
    async stat(path: string) {
      await check('stat', path);
      return storage.stat(path);
    },
    async exists(path: string) {
      await check('stat', path);
      return storage.exists(path);
    },
    async readFile(path: string) {
      await check('read', path);
      return storage.readFile(path);
    },
    async readRange(path: string, offset: number, length: number) {
      await check('read', path);
      return storage.readRange(path, offset, length);
    },
    async writeNew(path: string, data: FileData) {
      await check('create', path);
      return storage.writeNew(path, data);
    },
    async append(path: string, data: Uint8Array) {
      await check('append', path);
      return storage.append(path, data);
    },
    async rename(from: string, to: string) {
      await check('rename', from);
      await check('rename', to);
      return storage.rename(from, to);
    },
    async delete(path: string, opts?: DeleteOptions) {
      refuseRoot(path);
      await check('delete', path);
      return storage.delete(path, opts);
    },
    async mkdirs(path: string) {
      await check('create', path, path);
      return storage.mkdirs(path);
    },
    async contentSummary(path: string): Promise<ContentSummary> {
      await check('read', path, path);
      return storage.contentSummary(path);
    },
    close: () => storage.close(),
  };
  if (storage.readEach) {
    confined.readEach = async (paths, fn) => {
      await checkEach('read', paths);
      return storage.readEach!(paths, fn);
    };
  }
  if (storage.replace) {
    confined.replace = async (path, data) => {
      await check('replace', path);
      return storage.replace!(path, data);
    };
  }
  if (storage.deleteEach) {
    confined.deleteEach = async (paths, opts) => {
      await checkDeletes(paths);
      return storage.deleteEach!(paths, opts);
    };
  }
  if (storage.deleteOrdered) {
    confined.deleteOrdered = async (items, opts) => {
      await checkDeletes(items.flatMap((it) => [...it.first, it.last]));
      return storage.deleteOrdered!(items, opts);
    };
  }
  if (s.pathOfUri) (confined as ConfinableStorage).pathOfUri = (u) => s.pathOfUri!(u);
  return confined;
}
