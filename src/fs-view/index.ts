export * from './names.ts';
export * from './view.ts';
export * from './partition-metadata.ts';
