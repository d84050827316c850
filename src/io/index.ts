// IO (streams + terminal facts) and the Output facade that picks table / csv / tsv / json once.
export { systemIO, makeTestIO, nodeStream } from './io.ts';
export type { IO, StdStream } from './io.ts';
export { Output } from './output.ts';
export type { OutputFormat, OutputOptions } from './output.ts';
