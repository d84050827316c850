export * from './format.ts';
export * from './reader.ts';
export * from './content.ts';
export * from './delete-record.ts';
export * from './writer.ts';
export * from './avro-scan.ts';
