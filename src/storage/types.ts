// The one interface everything above the storage layer uses. Paths are absolute,
// '/'-separated paths in the storage's own namespace (a local path, or an HDFS path).

/** A file's bytes, or its parts in order (a parquet file's row groups and footer, written without joining them first). */
export type FileData = Uint8Array | readonly Uint8Array[];

export interface FileStatus {
  /** absolute path */
  path: string;
  /** last path segment */
  name: string;
  isDirectory: boolean;
  size: number;
  /** modification time, epoch milliseconds */
  mtimeMs: number;
}

export interface ContentSummary {
  length: number;
  fileCount: number;
  directoryCount: number;
}

export interface ListOptions {
  /**
   * The caller mostly needs names: a backend whose listing does not return sizes and times (local
   * readdir) may fill `size`/`mtimeMs` on first access instead of stat-ing every entry up front.
   */
  lazyStatus?: boolean;
}

export interface DeleteEachOptions {
  /**
   * The files hold data and there are many: a backend may release their space after the names are gone
   * and in parallel, as long as the names go in order (local: held open, closed on the thread pool).
   */
  releaseInParallel?: boolean;
}

/** One item of Storage.deleteOrdered: the `first` files (in any order), then `last`. */
export interface OrderedDelete {
  first: readonly string[];
  last: string;
}

export interface DeleteOrderedOptions extends DeleteEachOptions {
  /** awaited every few hundred items with the number of `last` files reached (a lock's keepAlive, progress) */
  onProgress?: (done: number) => Promise<void>;
}

export interface DeleteOptions {
  recursive?: boolean;
}

export interface Storage {
  /** 'file', 'webhdfs', 'swebhdfs', 'hdfs' */
  readonly scheme: string;
  /** Renders a path as the URI users typed (for messages and `desc`). */
  uri(path: string): string;
  /** Entries of a directory (not recursive); `.crc` checksum files are skipped. Throws not-found. */
  list(dir: string, opts?: ListOptions): Promise<FileStatus[]>;
  /** Throws StorageError code 'not-found' when absent. */
  stat(path: string): Promise<FileStatus>;
  exists(path: string): Promise<boolean>;
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Optional batch form of readFile for many small files: each file's bytes go to `fn` as soon as
   * they are read, results keep the order of `paths`. The bytes are valid only during the call (a
   * backend may read every file into one reused buffer), so `fn` must copy what it keeps. Use
   * readEach() from this module, which falls back to readFile.
   */
  readEach?<T>(paths: readonly string[], fn: (bytes: Uint8Array, index: number) => T): Promise<T[]>;
  /**
   * Optional: a cheap guess (one stat) of how many entries a directory holds, before listing it;
   * undefined when the backend cannot tell. Only for deciding how much help a listing is worth.
   */
  entryCountHint?(dir: string): Promise<number | undefined>;
  /** Reads [offset, offset+length); shorter at end of file. */
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Creates a file that must not exist yet, atomically: readers never see a partial file, and an
   * existing file is never overwritten (StorageError code 'already-exists').
   */
  writeNew(path: string, data: FileData): Promise<void>;
  /**
   * Optional: replaces the bytes of an existing file in one step: readers see the old bytes or the new,
   * never a missing or partial file ('not-found' when it is absent). Use replaceFile() from this module,
   * which falls back to delete + writeNew.
   */
  replace?(path: string, data: Uint8Array): Promise<void>;
  /** Appends to an existing file (creates it when absent). */
  append(path: string, data: Uint8Array): Promise<void>;
  /** Renames without overwriting; 'already-exists' if `to` exists, 'not-found' if `from` is absent. */
  rename(from: string, to: string): Promise<void>;
  /** Returns false when nothing was there. A non-empty directory needs `recursive`. */
  delete(path: string, opts?: DeleteOptions): Promise<boolean>;
  /**
   * Optional batch form of delete for many files: one after another in the given order (a caller may
   * rely on the order), false where nothing was there. Use deleteEach() from this module, which falls
   * back to delete.
   */
  deleteEach?(paths: readonly string[], opts?: DeleteEachOptions): Promise<boolean[]>;
  /**
   * Optional: deletes each item's `first` files and then its `last` file, the `last` files one after
   * another in item order. A later item's `first` files may go while earlier `last` files are still
   * there, never a `last` before its own `first` files; a failure stops there, its item's `last` and
   * every later one kept. Returns the number of files deleted. Use deleteOrdered() from this module,
   * which pipelines plain deletes.
   */
  deleteOrdered?(items: readonly OrderedDelete[], opts?: DeleteOrderedOptions): Promise<number>;
  mkdirs(path: string): Promise<void>;
  contentSummary(path: string): Promise<ContentSummary>;
  close(): Promise<void>;
}
