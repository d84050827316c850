export type { Storage, FileStatus, ContentSummary, DeleteEachOptions, DeleteOptions, ListOptions } from './types.ts';
export { LocalStorage, makePrivateTempDir, writePrivateFile } from './local.ts';
export { resolveLocation, type Location, type StorageOptions } from './resolve.ts';
export { mapLimit, readEach, deleteEach, replaceFile } from './parallel.ts';
export { asyncBufferOf, type AsyncBufferLike } from './async-buffer.ts';
export { listOrEmpty } from './list.ts';
export { TEMP_PREFIX } from './temp-name.ts';
