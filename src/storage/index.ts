export type { Storage, FileData, FileStatus, ContentSummary, DeleteEachOptions, DeleteOptions, DeleteOrderedOptions, OrderedDelete, ListOptions } from './types.ts';
export { LocalStorage, makePrivateTempDir, writePrivateFile } from './local.ts';
export { resolveLocation, type Location, type StorageOptions } from './resolve.ts';
export { mapLimit, readEach, deleteEach, deleteOrdered, replaceFile } from './parallel.ts';
export { asyncBufferOf, type AsyncBufferLike } from './async-buffer.ts';
export { listOrEmpty } from './list.ts';
export { TEMP_PREFIX } from './temp-name.ts';
export { joinFileData } from './file-data.ts';
