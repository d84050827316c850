// Library entry for bench/clustering.mjs (bundled on the fly into .bench-out/).
export { generateSmallFilesTable } from '../test/support/small-files.ts';
export { openTable } from '../src/table/index.ts';
export { scheduleClustering, runClustering } from '../src/services/index.ts';
