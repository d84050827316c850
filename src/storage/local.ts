import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { codeOf, fail } from './local-errors.ts';
import { deleteOrderedLocal, ORDERED_WORKER_MIN, unlinkInOrder } from './local-unlink.ts';
import { tempFileName } from './temp-name.ts';
import type { ContentSummary, DeleteEachOptions, DeleteOptions, DeleteOrderedOptions, FileData, FileStatus, ListOptions, OrderedDelete, Storage } from './types.ts';

export { holdsOpenWellOn } from './local-unlink.ts';

function toStatus(path: string, st: import('node:fs').Stats): FileStatus {
  return {
    path,
    name: nodePath.posix.basename(path),
    isDirectory: st.isDirectory(),
    size: st.isDirectory() ? 0 : st.size,
    mtimeMs: Math.floor(st.mtimeMs),
  };
}

/**
 * A status whose size and mtime are read (stat(2), synchronously, once) on first access: a 60k-file
 * timeline directory lists in milliseconds when only names are needed. A class, not per-entry
 * closures: 60k entries would otherwise cost ~1 KB of heap each; it keeps the two numbers, not the
 * fs.Stats object (Node 20 gives that four Date objects).
 */
class LazyStatus implements FileStatus {
  /** -1 until stat-ed */
  #size = -1;
  #mtimeMs = 0;
  readonly path: string;
  readonly name: string;
  readonly isDirectory: boolean;

  /** `symlink`: decide isDirectory from the link's target (a dangling link is a file). */
  constructor(path: string, name: string, isDirectory: boolean, symlink = false) {
    this.path = path;
    this.name = name;
    this.isDirectory = isDirectory || (symlink && this.#load());
  }

  /** Stats the file once; returns whether it is a directory. */
  #load(): boolean {
    let st: import('node:fs').Stats | undefined;
    try {
      st = statSync(this.path);
    } catch (e) {
      // deleted since the listing (an archiver or cleaner ran): report it as an empty, epoch-old file
      if (codeOf(e) !== 'not-found') throw fail('stat', this.path, e);
      return false;
    }
    this.#size = st.size;
    this.#mtimeMs = Math.floor(st.mtimeMs);
    return st.isDirectory();
  }

  get size(): number {
    if (this.isDirectory) return 0;
    if (this.#size < 0) this.#load();
    return Math.max(0, this.#size);
  }

  get mtimeMs(): number {
    if (this.#size < 0) this.#load();
    return this.#mtimeMs;
  }

  toJSON(): FileStatus {
    return { path: this.path, name: this.name, isDirectory: this.isDirectory, size: this.size, mtimeMs: this.mtimeMs };
  }
}

function lazyStatuses(dir: string, entries: import('node:fs').Dirent[]): FileStatus[] {
  const out: FileStatus[] = [];
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  for (const d of entries) {
    if (d.name.endsWith('.crc')) continue;
    const path = prefix + d.name;
    out.push(new LazyStatus(path, d.name, d.isDirectory(), d.isSymbolicLink()));
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/** One growable read buffer; the bytes it returns are valid until the next read. */
class ReuseBuffer {
  busy = false;
  private buf = Buffer.allocUnsafeSlow(1 << 16);

  read(path: string): Uint8Array {
    let fd: number | undefined;
    try {
      fd = openSync(path, 'r');
      let n = 0;
      for (;;) {
        if (n === this.buf.length) {
          const bigger = Buffer.allocUnsafeSlow(this.buf.length * 2);
          this.buf.copy(bigger, 0, 0, n);
          this.buf = bigger;
        }
        const got = readSync(fd, this.buf, n, this.buf.length - n, null);
        if (got === 0) break;
        n += got;
      }
      return this.buf.subarray(0, n);
    } catch (e) {
      throw fail('read', path, e);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  release(): void {
    this.busy = false;
    if (this.buf.length > 1 << 22) this.buf = Buffer.allocUnsafeSlow(1 << 16); // do not pin one huge file
  }
}

const shared = new ReuseBuffer();

/** Local file system (also NFS mounts). */
export class LocalStorage implements Storage {
  readonly scheme = 'file';

  uri(path: string): string {
    return path;
  }

  async list(dir: string, opts: ListOptions = {}): Promise<FileStatus[]> {
    let names: import('node:fs').Dirent[];
    try {
      // lazy listings are the timeline's: one directory the caller waits for, so no thread-pool hop
      names = opts.lazyStatus ? readdirSync(dir, { withFileTypes: true }) : await fs.readdir(dir, { withFileTypes: true });
    } catch (e) {
      throw fail('list', dir, e);
    }
    if (opts.lazyStatus) return lazyStatuses(dir, names);
    const out: FileStatus[] = [];
    await Promise.all(
      names.map(async (d) => {
        if (d.name.endsWith('.crc')) return;
        const p = dir.endsWith('/') ? dir + d.name : `${dir}/${d.name}`;
        try {
          out.push(toStatus(p, await fs.stat(p)));
        } catch (e) {
          // A file deleted between readdir and stat is simply gone.
          if (codeOf(e) !== 'not-found') throw fail('stat', p, e);
        }
      }),
    );
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }

  async stat(path: string): Promise<FileStatus> {
    try {
      return toStatus(path, await fs.stat(path));
    } catch (e) {
      throw fail('stat', path, e);
    }
  }

  async exists(path: string): Promise<boolean> {
    try {
      await fs.stat(path);
      return true;
    } catch (e) {
      if (codeOf(e) === 'not-found') return false;
      throw fail('stat', path, e);
    }
  }

  /**
   * Synchronous on purpose: whole-file reads are timeline and plan files of a few KB, and a
   * synchronous read is ~4× faster than a thread-pool round trip per file (20k instant files:
   * 0.18 s vs 0.7 s). Large files are read by range.
   */
  async readFile(path: string): Promise<Uint8Array> {
    try {
      return readFileSync(path);
    } catch (e) {
      throw fail('read', path, e);
    }
  }

  /**
   * Reads every file synchronously into one reused buffer: no buffer is allocated per file, which
   * on a 20k-instant timeline saves the allocations, the fstat calls and most of the GC work.
   */
  async readEach<T>(paths: readonly string[], fn: (bytes: Uint8Array, index: number) => T): Promise<T[]> {
    const out = new Array<T>(paths.length);
    const reader = shared.busy ? new ReuseBuffer() : shared; // a nested readEach gets its own buffer
    reader.busy = true;
    try {
      for (let i = 0; i < paths.length; i++) out[i] = fn(reader.read(paths[i]!), i);
    } finally {
      reader.release();
    }
    return out;
  }

  /** ext4 and xfs grow a directory's size with its entries (~65 bytes each for timeline names). */
  async entryCountHint(dir: string): Promise<number | undefined> {
    try {
      const st = statSync(dir);
      return st.isDirectory() && st.size > 4096 ? Math.floor(st.size / 64) : undefined;
    } catch {
      return undefined; // the listing that follows reports the problem
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    let fh: fs.FileHandle | undefined;
    try {
      fh = await fs.open(path, 'r');
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === length ? buf : buf.subarray(0, got);
    } catch (e) {
      throw fail('read', path, e);
    } finally {
      await fh?.close();
    }
  }

  async writeNew(path: string, data: FileData): Promise<void> {
    // Write a hidden temp file beside the target, then link(2) it into place: link fails with
    // EEXIST instead of overwriting, and readers never see a partial file.
    const dir = nodePath.posix.dirname(path);
    const tmp = `${dir}/${tempFileName()}`;
    try {
      // (parts are written one after another: fs.writeFile takes an iterable of views)
      await fs.writeFile(tmp, data, { flag: 'wx' });
    } catch (e) {
      throw fail('create', path, e);
    }
    try {
      await fs.link(tmp, path);
    } catch (e) {
      throw fail('create', path, e);
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  async replace(path: string, data: Uint8Array): Promise<void> {
    // the new bytes in a hidden temp file beside it, then rename(2) over it: one step
    let st: import('node:fs').Stats;
    try {
      st = await fs.stat(path);
    } catch (e) {
      throw fail('replace', path, e);
    }
    if (st.isDirectory()) throw fail('replace', path, Object.assign(new Error(), { code: 'EISDIR' }));
    const tmp = `${nodePath.posix.dirname(path)}/${tempFileName()}`;
    try {
      await fs.writeFile(tmp, data, { flag: 'wx' });
      await fs.rename(tmp, path);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw fail('replace', path, e);
    }
  }

  async append(path: string, data: Uint8Array): Promise<void> {
    try {
      await fs.appendFile(path, data);
    } catch (e) {
      throw fail('append', path, e);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    // link + unlink gives rename-without-overwrite for files; directories use a checked rename.
    let st: import('node:fs').Stats;
    try {
      st = await fs.stat(from);
    } catch (e) {
      throw fail('rename', from, e);
    }
    if (st.isDirectory()) {
      if (await this.exists(to)) throw fail('rename', to, Object.assign(new Error(), { code: 'EEXIST' }));
      try {
        await fs.rename(from, to);
      } catch (e) {
        throw fail('rename', from, e);
      }
      return;
    }
    try {
      await fs.link(from, to);
    } catch (e) {
      throw fail('rename', codeOf(e) === 'already-exists' ? to : from, e);
    }
    await fs.unlink(from);
  }

  async delete(path: string, opts: DeleteOptions = {}): Promise<boolean> {
    // a file is the common case: one unlink, no stat first
    try {
      await fs.unlink(path);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === 'ENOENT') return false;
      if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EACCES') throw fail('delete', path, e);
    }
    let st: import('node:fs').Stats;
    try {
      st = await fs.lstat(path);
    } catch (e) {
      if (codeOf(e) === 'not-found') return false;
      throw fail('delete', path, e);
    }
    try {
      if (st.isDirectory()) {
        if (opts.recursive) await fs.rm(path, { recursive: true });
        else await fs.rmdir(path);
      } else {
        await fs.unlink(path);
      }
      return true;
    } catch (e) {
      throw fail('delete', path, e);
    }
  }

  /**
   * Synchronous unlinks, in order: no thread-pool hop per file (archival deletes 30,000 timeline files).
   * With `releaseInParallel` (and on ext4, XFS or Btrfs) each file is opened first and closed after its unlink, on the thread pool:
   * the names still go one by one in order (what a crash can observe), while the inode's block freeing —
   * most of an unlink's cost for a file with data on ext4 — runs in parallel at the close.
   */
  deleteEach(paths: readonly string[], opts: DeleteEachOptions = {}): Promise<boolean[]> {
    return unlinkInOrder(paths, { releaseInParallel: opts.releaseInParallel, slow: (p) => this.delete(p) });
  }

  /** The `first` files on a worker thread, the `last` ones on this one behind it (local-unlink.ts). */
  async deleteOrdered(items: readonly OrderedDelete[], opts: DeleteOrderedOptions = {}): Promise<number> {
    if (items.length === 0) return 0;
    return deleteOrderedLocal(items, { ...opts, slow: (p) => this.delete(p), worker: items.length >= ORDERED_WORKER_MIN });
  }

  async mkdirs(path: string): Promise<void> {
    try {
      await fs.mkdir(path, { recursive: true });
    } catch (e) {
      throw fail('mkdirs', path, e);
    }
  }

  async contentSummary(path: string): Promise<ContentSummary> {
    const sum: ContentSummary = { length: 0, fileCount: 0, directoryCount: 0 };
    const walk = async (p: string): Promise<void> => {
      const st = await this.stat(p);
      if (!st.isDirectory) {
        sum.length += st.size;
        sum.fileCount += 1;
        return;
      }
      sum.directoryCount += 1;
      for (const c of await this.list(p)) await walk(c.path);
    };
    await walk(path);
    return sum;
  }

  /** `file:/p`, `file:///p`, `file://localhost/p` (Hadoop writes the first form, unescaped). */
  pathOfUri(uri: string): string | undefined {
    const m = /^file:(?:\/\/(?:localhost)?)?(\/[^?#]*)$/i.exec(uri);
    return m ? m[1]!.replace(/\/+/g, '/') : undefined;
  }

  async realPath(path: string): Promise<string | undefined> {
    try {
      return await fs.realpath(path);
    } catch (e) {
      if (codeOf(e) === 'not-found') return undefined;
      throw fail('stat', path, e);
    }
  }

  async close(): Promise<void> {}
}

/**
 * A new directory under the OS temp dir that only this user can enter (0700): for files that hold
 * secrets a child process reads (engine properties files).
 */
export async function makePrivateTempDir(prefix: string): Promise<string> {
  const { tmpdir } = await import('node:os');
  try {
    return await fs.mkdtemp(nodePath.join(tmpdir(), prefix));
  } catch (e) {
    throw fail('mkdtemp', nodePath.join(tmpdir(), prefix), e);
  }
}

/** Creates `path` readable and writable by this user only (0600); fails if it exists. */
export async function writePrivateFile(path: string, data: Uint8Array): Promise<void> {
  try {
    await fs.writeFile(path, data, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    throw fail('create', path, e);
  }
}
