// What every command receives. Kept small (gh's advice): streams, env, clock, and the global flags.
import type { IO, Output } from '../src/io/index.ts';

export interface GlobalFlags {
  path?: string;
  json?: boolean | string[];
  format?: 'table' | 'csv' | 'tsv' | 'json';
  debug?: boolean;
  namenodeHttp?: string;
  user?: string;
  doas?: string;
  delegationToken?: string;
  tokenFile?: string;
  caFile?: string;
  httpfs?: boolean;
  retries?: number;
  timeout?: number;
  concurrency?: number;
}

export interface Ctx {
  io: IO;
  out: Output;
  env: Record<string, string | undefined>;
  cwd: string;
  now: () => Date;
  /** directory for the remembered `connect` path and shell history */
  stateDir: string;
  /** set by the interactive shell: the connected path lives in memory too */
  session?: { path?: string; tableName?: string };
}
