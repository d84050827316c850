export * from './read.ts';
export * from './write.ts';
export * from './bloom.ts';
export * from './write-incremental.ts';
export * from './packed.ts';
export * from './write-packed.ts';
