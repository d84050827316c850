// Library entry for bench/clean.mjs (bundled on the fly into .bench-out/): the WebHDFS test server.
export { startWebHdfsServer } from '../test/support/webhdfs-server.ts';
