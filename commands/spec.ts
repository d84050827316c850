// Declarative command registry: every command is a CommandSpec, so commander wiring, the shell and the
// man page come from one list. Specs import nothing heavy; actions import their library code lazily.
import type { Ctx } from './context.ts';
import { parseDuration } from '../src/util/duration.ts';

export interface OptionSpec {
  flags: string;
  description: string;
  default?: string | boolean | number;
  parse?: (value: string, previous: unknown) => unknown;
  /** JSON key for man page / docs when different from the flag */
  env?: string;
  /** the values the option takes (shell completion offers them) */
  choices?: string[];
}

export type Opts = Record<string, unknown>;

export interface CommandSpec {
  /** hudi-cli spelling, words separated by spaces: 'compactions show all' */
  name: string;
  aliases?: string[];
  summary: string;
  options?: OptionSpec[];
  /** adds hudi-cli's --limit/--sortBy/--desc/--headeronly with this --limit default (-1 = all) */
  table?: { limit: number };
  /** positional arguments in commander syntax, e.g. ['[dir]']; values arrive as opts.args */
  args?: string[];
  /** false for commands that do not open a table (demo, man, version) */
  needsTable?: boolean;
  /** column keys for the man page's JSON FIELDS section */
  jsonFields?: () => Promise<string[]>;
  /**
   * A command that changes the table. It is never an MCP read tool (unless `alsoRead`); with `plan`
   * (the arguments of its dry run) it is an MCP write tool named `tool` (default: the command):
   * the plan call adds `plan`, the execute call adds `execute`; `fixed` flags are the server's.
   */
  writes?: { plan?: string[]; execute?: string[]; fixed?: string[]; tool?: string; alsoRead?: boolean };
  /** false: stdout never goes through the pager (table services, interactive and generated output) */
  pager?: false;
  /** hidden from help and the man page (`__complete`) */
  hidden?: boolean;
  action: (ctx: Ctx, opts: Opts) => Promise<number | void>;
}

/** Spring Shell booleans accept `--flag`, `--flag true` and `--flag false`. */
export function parseBool(v: string | undefined): boolean {
  if (v === undefined) return true;
  const s = v.toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new Error(`expected true or false, got '${v}'`);
}

export function parseIntOpt(v: string): number {
  if (!/^-?\d+$/.test(v.trim())) throw new Error(`expected an integer, got '${v}'`);
  return Number(v);
}

/** `30m`, `1h`, `2d`, `500ms`, or a bare number of seconds → milliseconds (one grammar for every duration flag). */
export function parseDurationOpt(v: string): number {
  return parseDuration(v);
}

export const TABLE_OPTIONS = (limit: number): OptionSpec[] => [
  { flags: '--limit <n>', description: `maximum rows to show (-1: all)`, default: limit, parse: parseIntOpt },
  { flags: '--sortBy <header>', description: 'sort by this column header (exact, case-sensitive)', default: '' },
  { flags: '--desc [bool]', description: 'sort descending', default: false, parse: parseBool },
  { flags: '--headeronly [bool]', description: 'print only the header', default: false, parse: parseBool },
];

/** Options every command takes (storage access and output). */
export const GLOBAL_OPTIONS: OptionSpec[] = [
  { flags: '--path <path>', description: 'table base path (local, file://, hdfs://, webhdfs://, swebhdfs://); default: TBLCLI_PATH, then the connected table' },
  { flags: '--json [fields]', description: 'JSON output with raw values; optionally a comma-separated field list' },
  { flags: '--format <format>', description: 'table (default), csv, tsv or json', choices: ['table', 'csv', 'tsv', 'json'] },
  { flags: '--debug', description: 'show the cause chain and stack on errors' },
  { flags: '--no-pager', description: 'on a terminal, never page the output (default: TBLCLI_PAGER, PAGER, else less -FRSX when it does not fit the screen)' },
  { flags: '--namenode-http <hosts>', description: 'NameNode HTTP address(es) host:port[,host:port] for hdfs:// paths (env TBLCLI_WEBHDFS)' },
  { flags: '--user <name>', description: 'WebHDFS user.name (default HADOOP_USER_NAME, then the OS user)' },
  { flags: '--doas <user>', description: 'WebHDFS doas proxy user' },
  { flags: '--delegation-token <token>', description: 'WebHDFS delegation token (env HADOOP_TOKEN)' },
  { flags: '--token-file <file>', description: 'file holding a WebHDFS delegation token' },
  { flags: '--ca-file <file>', description: 'CA bundle for swebhdfs:// (also NODE_EXTRA_CA_CERTS)' },
  { flags: '--httpfs', description: 'talk HttpFS (single endpoint, data=true) instead of WebHDFS' },
  { flags: '--retries <n>', description: 'retries for idempotent WebHDFS requests (default 3)', parse: parseIntOpt },
  { flags: '--timeout <ms>', description: 'per-request WebHDFS timeout in ms (default 30000)', parse: parseIntOpt },
  { flags: '--concurrency <n>', description: 'requests in flight (default 16)', parse: parseIntOpt },
];
