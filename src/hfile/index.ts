export { HFileReader, HFileCursor, compareBytes, type HFileRecord, type DataBlockEntry, type SeekResult, type OpenHFileOptions } from './reader.ts';
export { parseTrailer, TRAILER_SIZE, type HFileTrailer, type Codec } from './format.ts';
