export * from './instant.ts';
export * from './timeline.ts';
export * from './writer.ts';
