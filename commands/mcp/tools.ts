// MCP tools generated from the command specs (never written twice): each read command becomes a tool
// whose input schema comes from the command's options and whose result is exactly what the command
// prints with --json, run in-process through the same command line the CLI parses. Large results are
// paged with limit/cursor instead of truncated.
import type { CommandSpec, OptionSpec } from '../spec.ts';
import { parseIntOpt, TABLE_OPTIONS } from '../spec.ts';

/** Commands that are not table reads: they change things, open no table, or only make sense at a terminal. */
const NOT_TOOLS = new Set(['connect', 'refresh', 'demo', 'man', 'mcp', 'completion', 'browse']);
/** Flags a tool never takes: output shaping is the server's, storage access is fixed at start. */
const SERVER_FLAGS = new Set(['--json', '--format', '--debug', '--no-pager', '--limit', '--path', '--sparkProperties', '--sparkMaster', '--sparkMemory']);
/**
 * Flags only a command that changes the table takes (a dry run, a confirmation, the table lock, the
 * metadata-table mode). A command with one of them but no `writes` declaration is no tool at all:
 * a new mutating command cannot become a read tool by omission (a test lists any such command).
 */
const WRITE_FLAGS = new Set(['--dry-run', '--dryRun', '--dryrun', '--yes', '--wait', '--lock-expire', '--metadata-table']);

/** Commands that look mutating (a WRITE_FLAGS option) yet declare no `writes`: never offered as tools. */
export function undeclaredWrites(specs: readonly CommandSpec[]): string[] {
  return specs.filter((s) => !s.writes && (s.options ?? []).some((o) => WRITE_FLAGS.has(o.flags.split(/[ ,]/)[0]!))).map((s) => s.name);
}

export interface ToolParam {
  /** the JSON property name */
  name: string;
  flag: string;
  type: 'string' | 'integer' | 'boolean';
  /** a `[bool]` flag takes true/false; a bare switch is only ever given */
  takesValue: boolean;
  description: string;
  default?: string | number | boolean;
}

export interface ToolSpec {
  name: string;
  spec: CommandSpec;
  description: string;
  params: ToolParam[];
  /** hudi-cli's --limit: paging asks the command for only the rows it needs */
  hasLimit: boolean;
  /** the command's default --limit (hudi-cli prints the first 10 instants of `timeline show active` …) */
  defaultLimit?: number;
  fields: string[];
  /** a mutating command: only with --allow-writes, in two steps (plan, then execute with its token) */
  write?: NonNullable<CommandSpec['writes']>;
}

export function toolName(commandName: string): string {
  return commandName.replace(/[^A-Za-z0-9_-]+/g, '_');
}

function camel(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** One option as a tool parameter, from its flags and its parser. */
export function paramOf(o: OptionSpec): ToolParam | undefined {
  const m = /^(--[A-Za-z0-9-]+)(?:\s+(<[^>]+>|\[[^\]]+\]))?/.exec(o.flags);
  if (!m) return undefined;
  const flag = m[1]!;
  if (SERVER_FLAGS.has(flag) || flag.startsWith('--no-')) return undefined;
  const arg = m[2];
  let type: ToolParam['type'] = 'string';
  if (arg === undefined || arg === '[bool]') type = 'boolean';
  // by identity: a minified build renames functions
  else if (o.parse === parseIntOpt || typeof o.default === 'number') type = 'integer';
  const param: ToolParam = { name: camel(flag), flag, type, takesValue: arg !== undefined, description: o.description };
  if (o.default !== undefined && o.default !== '') param.default = o.default;
  return param;
}

function toolOf(spec: CommandSpec, name: string, fields: string[], write?: ToolSpec['write']): ToolSpec {
  const options = [...(spec.options ?? []), ...(spec.table ? TABLE_OPTIONS(spec.table.limit) : [])];
  // the flags that make a command write are the server's, on the read tool as on the write tool
  const hidden = new Set([...(spec.writes?.fixed ?? []), ...(spec.writes?.plan ?? []), ...(spec.writes?.execute ?? [])]);
  const params = options.map(paramOf).filter((p): p is ToolParam => p !== undefined && !hidden.has(p.flag));
  const what = write ? ' Changes the table: the first call returns the plan (the dry run) and a single-use token; call again with that token to execute exactly that plan.' : '';
  return {
    name: toolName(name),
    spec,
    description: `${spec.summary} (tblcli ${name}).${what}${fields.length ? ` Rows carry: ${fields.join(', ')}.` : ''}`,
    params,
    hasLimit: spec.table !== undefined && !write,
    defaultLimit: spec.table?.limit,
    fields,
    write,
  };
}

/**
 * The tools for `specs`: every table read, and (when allowed) every write that has a dry run.
 * `withFields: false` leaves the JSON field names out (they load view modules; a call does not need them).
 */
export async function toolsFor(specs: readonly CommandSpec[], allowWrites: boolean, withFields = true): Promise<ToolSpec[]> {
  const out: ToolSpec[] = [];
  const undeclared = new Set(undeclaredWrites(specs));
  for (const spec of specs) {
    if (spec.needsTable === false || NOT_TOOLS.has(spec.name.split(' ')[0]!) || spec.args || undeclared.has(spec.name)) continue;
    const fields = withFields && spec.jsonFields ? await spec.jsonFields() : [];
    if (!spec.writes || spec.writes.alsoRead) out.push(toolOf(spec, spec.name, fields));
    if (spec.writes?.plan && allowWrites) out.push(toolOf(spec, spec.writes.tool ?? spec.name, [], spec.writes));
  }
  return out;
}

/** JSON Schema of a tool's input: its options, plus paging and (writes) the confirmation token. */
export function inputSchema(t: ToolSpec): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const p of t.params) {
    properties[p.name] = { type: p.type, description: p.description, ...(p.default !== undefined ? { default: p.default } : {}) };
  }
  properties.limit = { type: 'integer', minimum: 1, description: 'rows per page (default 100)' };
  properties.cursor = { type: 'string', description: 'nextCursor of the previous page' };
  if (t.write) properties.token = { type: 'string', description: 'the token the plan call returned; executes exactly that plan' };
  return { type: 'object', properties, additionalProperties: false };
}

/** JSON Schema of a tool's structured result. */
export function outputSchema(t: ToolSpec): Record<string, unknown> {
  const row = { type: 'object', properties: Object.fromEntries(t.fields.map((f) => [f, {}])) };
  return {
    type: 'object',
    properties: {
      rows: { type: 'array', items: row, description: 'the command\'s --json rows (raw values: sizes in bytes, times as Hudi stores them)' },
      result: { description: 'the command\'s --json value when it is not a list of rows' },
      total: { type: 'integer', description: 'rows in the whole result, when known' },
      nextCursor: { type: 'string', description: 'pass as cursor for the next page' },
      plan: { description: 'writes: what the call would change' },
      token: { type: 'string', description: 'writes: pass back to execute this plan' },
      warnings: { type: 'array', items: { type: 'string' } },
    },
  };
}

/** The tblcli command line a call stands for (as a user would type it). */
export function argvFor(t: ToolSpec, args: Record<string, unknown>, extra: string[] = []): string[] {
  const argv = [...t.spec.name.split(' ')];
  for (const p of t.params) {
    const v = args[p.name];
    if (v === undefined || v === null) continue;
    if (p.type === 'boolean') {
      if (p.takesValue) argv.push(p.flag, String(v === true));
      else if (v === true) argv.push(p.flag);
    } else argv.push(p.flag, String(v));
  }
  return [...argv, ...extra];
}

/** Checks a call's arguments against the tool's parameters (unknown names, types). */
export function checkArgs(t: ToolSpec, args: Record<string, unknown>): string | undefined {
  const known = new Map(t.params.map((p) => [p.name, p]));
  for (const [k, v] of Object.entries(args)) {
    if (k === 'limit' || k === 'cursor' || (k === 'token' && t.write)) continue;
    const p = known.get(k);
    if (!p) return `unknown argument ${k}; ${t.name} takes ${[...known.keys(), 'limit', 'cursor'].join(', ')}`;
    if (p.type === 'boolean' && typeof v !== 'boolean') return `${k} must be a boolean`;
    if (p.type === 'integer' && !Number.isInteger(v)) return `${k} must be an integer`;
    if (p.type === 'string' && typeof v !== 'string') return `${k} must be a string`;
  }
  if (args.limit !== undefined && !(Number.isInteger(args.limit) && (args.limit as number) > 0)) return 'limit must be a positive integer';
  return undefined;
}
