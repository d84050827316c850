export * from './plan.ts';
export * from './schedule.ts';
export * from './execute.ts';
export * from './rollback.ts';
export * from './manage.ts';
export * from './engine.ts';
