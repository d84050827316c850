// Table services executed by Spark or Flink with tblcli's planning, lock, heartbeat and verdict.
export * from './settings.ts';
export * from './command.ts';
export * from './secrets.ts';
export * from './supervise.ts';
export * from './run.ts';
export { parseEngineConf, type ConfFile } from './conf-file.ts';
export * from './load.ts';
