import { StorageError } from '../../errors/index.ts';
import { baseName, parentPath } from '../../util/index.ts';
import { tempFileName } from '../temp-name.ts';
import type { ContentSummary, DeleteOptions, FileData, FileStatus, Storage } from '../types.ts';
import { joinFileData } from '../file-data.ts';
import { OpFailure, type HdfsFileStatus, type WebHdfsClient } from './client.ts';
import { storageError, WORDS } from './errors.ts';

function childPath(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** A server that does not know renameoptions (before rename2) refuses it with this. */
function rejectsRenameOptions(e: OpFailure): boolean {
  const f = e.failure;
  return f.kind === 'remote' && f.remote.exception === 'IllegalArgumentException' && /renameoptions/i.test(f.remote.message ?? '');
}

function toStatus(path: string, s: HdfsFileStatus): FileStatus {
  const dir = s.type === 'DIRECTORY';
  return { path, name: baseName(path), isDirectory: dir, size: dir ? 0 : Number(s.length), mtimeMs: Number(s.modificationTime) };
}

/** Storage over WebHDFS / HttpFS. Paths are absolute HDFS paths. */
export class WebHdfsStorage implements Storage {
  constructor(
    readonly scheme: string,
    /** 'webhdfs://host:port' (or 'hdfs://nameservice'), never with credentials */
    private readonly prefix: string,
    readonly client: WebHdfsClient,
  ) {}

  uri(path: string): string {
    return `${this.prefix}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /**
   * The HDFS path of an `hdfs://`, `webhdfs://` or `swebhdfs://` URI of this file system: its
   * authority is the nameservice this storage was opened with, or one of its NameNode hosts (ports
   * differ between RPC and HTTP, so hosts are compared); `hdfs:/p` has none and means the default FS.
   */
  pathOfUri(uri: string): string | undefined {
    const m = /^(?:s?webhdfs|hdfs):(?:\/\/([^/?#]*))?(\/[^?#]*)$/i.exec(uri);
    if (!m) return undefined;
    const authority = (m[1] ?? '').toLowerCase();
    if (authority !== '') {
      const hostOf = (a: string) => a.replace(/^\[([^\]]*)\].*$/, '$1').replace(/:\d+$/, '').toLowerCase();
      const own = this.prefix.replace(/^[a-z]+:\/\//i, '').toLowerCase();
      const hosts = new Set([...own.split(','), ...this.client.cfg.endpoints.map((e) => new URL(e).host)].map(hostOf));
      if (authority !== own && !hosts.has(hostOf(authority))) return undefined;
    }
    return m[2]!.replace(/\/+/g, '/');
  }

  /** HTTP exchanges sent so far (NameNode + DataNode legs). */
  get requestCount(): number {
    return this.client.requestCount;
  }

  private fail(op: string, path: string, webOp: string, e: unknown): never {
    if (e instanceof OpFailure) {
      throw storageError(op, path, this.uri(path), webOp, e.failure, this.client.cfg.redact, e.attempts);
    }
    throw e;
  }

  private plain(op: string, path: string, code: StorageError['code'], detail: string): StorageError {
    return new StorageError(op, path, code, this.client.cfg.redact(`${op} ${this.uri(path)}: ${WORDS[code]} (${detail})`));
  }

  async list(dir: string): Promise<FileStatus[]> {
    let entries: HdfsFileStatus[];
    try {
      entries = await this.client.listStatus(dir);
    } catch (e) {
      this.fail('list', dir, 'LISTSTATUS_BATCH', e);
    }
    // Listing a file answers the file itself with an empty pathSuffix.
    if (entries.length === 1 && entries[0]!.pathSuffix === '' && entries[0]!.type !== 'DIRECTORY') {
      throw this.plain('list', dir, 'not-a-directory', 'LISTSTATUS on a file');
    }
    return entries
      .filter((e) => e.pathSuffix !== '' && !e.pathSuffix.endsWith('.crc'))
      .map((e) => toStatus(childPath(dir, e.pathSuffix), e));
  }

  async stat(path: string): Promise<FileStatus> {
    try {
      return toStatus(path, await this.client.getFileStatus(path));
    } catch (e) {
      this.fail('stat', path, 'GETFILESTATUS', e);
    }
  }

  async exists(path: string): Promise<boolean> {
    try {
      await this.client.getFileStatus(path);
      return true;
    } catch (e) {
      if (e instanceof OpFailure && e.failure.kind === 'remote' && e.failure.remote.exception === 'FileNotFoundException') return false;
      this.fail('stat', path, 'GETFILESTATUS', e);
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    try {
      return await this.client.open(path);
    } catch (e) {
      this.fail('read', path, 'OPEN', e);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    if (length <= 0) return new Uint8Array(0);
    try {
      return await this.client.open(path, offset, length);
    } catch (e) {
      // Like a local read past the end: empty, not an error.
      if (e instanceof OpFailure && e.failure.kind === 'remote' && e.failure.remote.exception === 'EOFException') {
        return new Uint8Array(0);
      }
      this.fail('read', path, 'OPEN', e);
    }
  }

  /**
   * CREATE (overwrite=false) of a hidden temp name in the same directory, then RENAME onto the
   * target: readers never see a partial file and an existing target is never replaced.
   */
  async writeNew(path: string, data: FileData): Promise<void> {
    const tmp = childPath(parentPath(path), tempFileName());
    // one request body: the parts joined
    await this.createChecked('create', path, tmp, joinFileData(data));
    try {
      await this.renameChecked('create', tmp, path);
    } catch (e) {
      await this.client.delete(tmp, false).catch(() => undefined);
      throw e;
    }
  }

  /**
   * CREATE of a hidden temp name beside the file, then RENAME with renameoptions=OVERWRITE over it
   * (one NameNode operation). HttpFS ignores renameoptions: there the file is deleted first and the
   * temp file renamed in, so a crash between the two leaves the new bytes under the temp name only.
   */
  async replace(path: string, data: Uint8Array): Promise<void> {
    if (!(await this.existsQuiet(path))) throw this.plain('replace', path, 'not-found', 'no such file');
    const tmp = childPath(parentPath(path), tempFileName());
    await this.createChecked('replace', path, tmp, data);
    try {
      await this.renameOver(tmp, path);
    } catch (e) {
      await this.client.delete(tmp, false).catch(() => undefined);
      throw e;
    }
  }

  private async renameOver(tmp: string, path: string): Promise<void> {
    for (let attempt = 0; this.client.rename2Supported; attempt++) {
      try {
        if (await this.client.renameOverwrite(tmp, path)) return;
        break;
      } catch (e) {
        if (!(e instanceof OpFailure)) throw e;
        if (rejectsRenameOptions(e)) {
          this.client.rename2Supported = false;
          break;
        }
        if (!e.outcomeUnknown || attempt >= this.client.cfg.retries) this.fail('replace', path, 'RENAME', e);
        // the temp name is this call's own: gone means it was renamed
        if (!(await this.existsQuiet(tmp))) return;
      }
    }
    if (!(await this.existsQuiet(tmp))) throw this.plain('replace', path, 'io', `the new bytes' temp file ${tmp} is gone`);
    await this.delete(path);
    await this.renameChecked('replace', tmp, path);
  }

  /** CREATE with recovery: after an unknown outcome, look at the (unique) temp file before resending. */
  private async createChecked(op: string, shownPath: string, tmp: string, data: Uint8Array): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.create(tmp, data, false);
        return;
      } catch (e) {
        if (!(e instanceof OpFailure) || !e.outcomeUnknown || attempt >= this.client.cfg.retries) this.fail(op, shownPath, 'CREATE', e);
        const st = await this.client.getFileStatus(tmp).catch(() => undefined);
        if (st && Number(st.length) === data.length) return;
        if (st) await this.client.delete(tmp, false).catch(() => undefined);
      }
    }
  }

  /** Appends; a missing file is created (atomically, like writeNew). */
  async append(path: string, data: Uint8Array): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let before: number;
      try {
        before = Number((await this.client.getFileStatus(path)).length);
      } catch (e) {
        if (!(e instanceof OpFailure && e.failure.kind === 'remote' && e.failure.remote.exception === 'FileNotFoundException')) {
          this.fail('append', path, 'GETFILESTATUS', e);
        }
        try {
          await this.writeNew(path, data);
          return;
        } catch (w) {
          // Someone created it meanwhile: append to theirs.
          if (w instanceof StorageError && w.code === 'already-exists' && attempt < 2) continue;
          throw w;
        }
      }
      try {
        await this.client.append(path, data);
        return;
      } catch (e) {
        if (!(e instanceof OpFailure) || !e.outcomeUnknown || attempt >= this.client.cfg.retries) this.fail('append', path, 'APPEND', e);
        // Outcome unknown: the length tells whether our bytes landed.
        const now = Number((await this.client.getFileStatus(path).catch(() => undefined))?.length ?? -1);
        if (now === before + data.length) return;
        if (now !== before) {
          throw this.plain('append', path, 'io', `APPEND outcome unknown: length went from ${before} to ${now}, expected ${before + data.length}`);
        }
      }
    }
  }

  async rename(from: string, to: string): Promise<void> {
    await this.renameChecked('rename', from, to);
  }

  private async renameChecked(op: string, from: string, to: string): Promise<void> {
    const shown = op === 'create' || op === 'replace' ? to : from;
    for (let attempt = 0; ; attempt++) {
      const rename2 = this.client.rename2Supported;
      // Old rename moves *into* an existing directory and says true: refuse an existing target first.
      if (!rename2 && (await this.existsQuiet(to))) throw this.plain(op, to, 'already-exists', 'RENAME destination exists');
      let ok: boolean;
      try {
        ok = await this.client.rename(from, to, rename2);
      } catch (e) {
        if (!(e instanceof OpFailure)) throw e;
        const f = e.failure;
        if (rename2 && rejectsRenameOptions(e)) {
          this.client.rename2Supported = false;
          continue;
        }
        if (!e.outcomeUnknown || attempt >= this.client.cfg.retries) {
          const target = f.kind === 'remote' && f.remote.exception === 'FileAlreadyExistsException' ? to : shown;
          this.fail(op, target, 'RENAME', e);
        }
        const [src, dst] = await Promise.all([this.existsQuiet(from), this.existsQuiet(to)]);
        if (!src && dst) return;
        if (src && !dst) continue;
        throw this.plain(op, shown, 'io', `RENAME outcome unknown: source ${src ? 'present' : 'absent'}, destination ${dst ? 'present' : 'absent'}`);
      }
      if (ok) return;
      // {"boolean": false}: find out why.
      if (!(await this.existsQuiet(from))) throw this.plain(op, from, 'not-found', 'RENAME source does not exist');
      if (await this.existsQuiet(to)) throw this.plain(op, to, 'already-exists', 'RENAME destination exists');
      if (!(await this.existsQuiet(parentPath(to)))) throw this.plain(op, parentPath(to), 'not-found', 'RENAME destination parent does not exist');
      throw this.plain(op, shown, 'io', 'RENAME returned false');
    }
  }

  private async existsQuiet(path: string): Promise<boolean> {
    try {
      await this.client.getFileStatus(path);
      return true;
    } catch (e) {
      if (e instanceof OpFailure && e.failure.kind === 'remote' && e.failure.remote.exception === 'FileNotFoundException') return false;
      this.fail('stat', path, 'GETFILESTATUS', e);
    }
  }

  async delete(path: string, opts: DeleteOptions = {}): Promise<boolean> {
    try {
      return await this.client.delete(path, opts.recursive === true);
    } catch (e) {
      this.fail('delete', path, 'DELETE', e);
    }
  }

  async mkdirs(path: string): Promise<void> {
    let ok: boolean;
    try {
      ok = await this.client.mkdirs(path);
    } catch (e) {
      this.fail('mkdirs', path, 'MKDIRS', e);
    }
    if (!ok) throw this.plain('mkdirs', path, 'io', 'MKDIRS returned false');
  }

  async contentSummary(path: string): Promise<ContentSummary> {
    try {
      const s = await this.client.contentSummary(path);
      return { length: Number(s.length), fileCount: Number(s.fileCount), directoryCount: Number(s.directoryCount) };
    } catch (e) {
      this.fail('summary', path, 'GETCONTENTSUMMARY', e);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

