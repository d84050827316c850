export * from './config.ts';
export * from './ordering.ts';
export * from './scan.ts';
export * from './log-map.ts';
export * from './log-index.ts';
