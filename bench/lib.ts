// Library entry for the benchmark scripts (bundled to dist/bench-lib.js by scripts/build.mjs).
export { encodeCommitMetadataJson, encodeCommitMetadataAvro } from '../src/metadata/index.ts';
