export * from './instant-time.ts';
export * from './bytes.ts';
export * from './paths.ts';
export * from './duration.ts';
export * from './glob.ts';
export * from './java-hash.ts';
export * from './byte-arena.ts';
