export { HFileReader, HFileCursor, compareBytes, type HFileRecord, type DataBlockEntry, type SeekResult, type OpenHFileOptions } from './reader.ts';
export { parseTrailer, TRAILER_SIZE, type HFileTrailer, type Codec } from './format.ts';
export { writeHFile, HFileWriter, HOODIE_KV_COMPARATOR, type HFileCell, type HFileWriteOptions } from './writer.ts';
