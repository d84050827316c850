export * from './instant.ts';
export * from './timeline.ts';
