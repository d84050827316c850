export * from './config.ts';
export * from './plan.ts';
export * from './schedule.ts';
export * from './execute.ts';
export * from './conflicts.ts';
export { readClusteringPlan } from './inputs.ts';
export * from './engine.ts';
