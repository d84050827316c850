// `tblcli mcp`: the table tools for AI assistants over the Model Context Protocol (stdio, the official
// SDK). Every tool call runs the tblcli command line it stands for in-process with --json, so a result
// is exactly the CLI's; errors come back as tool errors carrying the one-line message and the exit-code
// class, never a stack. Writes need --allow-writes and two calls: the plan (the command's dry run) with a
// single-use token bound to the arguments and to the table's timeline as it was, then the execution
// with that token, refused if the timeline moved in between; each execution is logged to stderr as the
// equivalent tblcli command line.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { EXIT } from '../../src/errors/index.ts';
import { makeTestIO, Output } from '../../src/io/index.ts';
import type { Ctx } from '../context.ts';
import { VERSION } from '../version.ts';
import { allCommands, commandsFor } from '../registry.ts';
import type { Opts } from '../spec.ts';
import { GLOBAL_OPTIONS } from '../spec.ts';
import { argvFor, checkArgs, inputSchema, outputSchema, toolsFor, type ToolSpec } from './tools.ts';

const PAGE = 100;

export interface McpOptions {
  allowWrites: boolean;
  /** the server's table (--path at start); a call may not name another */
  path?: string;
  /** storage flags given at start, passed to every call (never echoed back) */
  storageArgv: string[];
}

/** The storage flags of the server's own command line, to repeat on every call. */
export function storageArgvOf(o: Opts): string[] {
  const out: string[] = [];
  for (const g of GLOBAL_OPTIONS) {
    const flag = g.flags.split(/[ ,]/)[0]!;
    if (['--path', '--json', '--format', '--debug'].includes(flag)) continue;
    const key = flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const v = o[key];
    if (v === undefined || v === false) continue;
    out.push(...(v === true ? [flag] : [flag, String(v)]));
  }
  return out;
}

type RunCli = (argv: string[], ctx: Ctx) => Promise<number>;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An error's class from tblcli's exit code (what the assistant can act on). */
function errorClass(code: number): string {
  if (code === EXIT.usage) return 'usage';
  if (code === EXIT.lockHeld) return 'lock-held';
  if (code === EXIT.findings) return 'findings';
  if (code === EXIT.interrupted) return 'interrupted';
  return 'error';
}

function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('error: ')) ?? stderr.split('\n').find((l) => l.trim() !== '') ?? 'failed';
  return line.replace(/^error: /, '');
}

function warningsOf(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.slice('warning: '.length));
}

export class TblcliMcp {
  private readonly secret = randomBytes(32);
  private readonly issued = new Set<string>();
  /** every tool, built on the first tools/list (loading every command family) */
  private all: ToolSpec[] | undefined;
  /** tools of the families a call named, built on demand: a first call does not load every family */
  private readonly byFamily = new Map<string, Promise<ToolSpec[]>>();

  constructor(
    private readonly ctx: Ctx,
    private readonly runCli: RunCli,
    private readonly opts: McpOptions,
  ) {}

  async listTools() {
    this.all ??= await toolsFor(await allCommands(), this.opts.allowWrites);
    return this.all.map((t) => ({ name: t.name, description: t.description, inputSchema: inputSchema(t), outputSchema: outputSchema(t) }));
  }

  /** A tool by name: its command's first word names the families to load (as the CLI's registry does). */
  private async tool(name: string): Promise<ToolSpec | undefined> {
    if (this.all) return this.all.find((x) => x.name === name);
    const first = name.split('_')[0]!;
    let p = this.byFamily.get(first);
    if (!p) this.byFamily.set(first, (p = commandsFor([first]).then((specs) => toolsFor(specs, this.opts.allowWrites, false))));
    return (await p).find((x) => x.name === name);
  }

  /** One tblcli command line in-process, output captured. */
  private async cli(argv: string[]): Promise<CliRun> {
    const t = makeTestIO({ tty: false });
    const ctx: Ctx = { ...this.ctx, io: t.io, out: new Output(t.io) };
    const full = [...argv, ...(this.opts.path ? ['--path', this.opts.path] : []), ...this.opts.storageArgv];
    const code = await this.runCli(full, ctx);
    return { code, stdout: t.out(), stderr: t.err() };
  }

  private fail(message: string, code: number): CallToolResult {
    return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: message, exitCode: code, class: errorClass(code) } };
  }

  private ok(structured: Record<string, unknown>): CallToolResult {
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }

  async callTool(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    const t = await this.tool(name);
    if (!t) return this.fail(`unknown tool ${name}`, EXIT.usage);
    const bad = checkArgs(t, args);
    if (bad) return this.fail(bad, EXIT.usage);
    return t.write ? this.write(t, args) : this.read(t, args);
  }

  private async read(t: ToolSpec, args: Record<string, unknown>): Promise<CallToolResult> {
    const page = (args.limit as number | undefined) ?? PAGE;
    const offset = args.cursor === undefined ? 0 : Number.parseInt(String(args.cursor), 10);
    if (!Number.isInteger(offset) || offset < 0) return this.fail(`invalid cursor ${String(args.cursor)}`, EXIT.usage);
    // ask a listing for one row past the page (hudi-cli's --limit), so a 20k-instant timeline is not read whole
    const extra = t.hasLimit ? ['--limit', String(offset + page + 1)] : [];
    const r = await this.cli(argvFor(t, args, [...extra, '--json']));
    if (r.code !== EXIT.ok && r.code !== EXIT.findings) return this.fail(firstError(r.stderr), r.code);
    const value: unknown = r.stdout.trim() === '' ? null : JSON.parse(r.stdout);
    const warnings = warningsOf(r.stderr);
    if (!Array.isArray(value)) return this.ok({ result: value, warnings });
    const rows = value.slice(offset, offset + page);
    const more = value.length > offset + page;
    return this.ok({ rows, ...(t.hasLimit ? {} : { total: value.length }), ...(more ? { nextCursor: String(offset + page) } : {}), warnings });
  }

  /** A fingerprint of the table's timeline: any new, changed or removed instant file changes it. */
  private async timelineState(): Promise<string> {
    const r = await this.cli(['timeline', 'show', 'active', '--limit', '-1', '--json']);
    if (r.code !== EXIT.ok) throw new Error(firstError(r.stderr));
    return createHash('sha256').update(r.stdout).digest('hex');
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  private async write(t: ToolSpec, args: Record<string, unknown>): Promise<CallToolResult> {
    const { token, limit: _l, cursor: _c, ...rest } = args;
    const call = JSON.stringify([t.name, Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))]);
    let state: string;
    try {
      state = await this.timelineState();
    } catch (e) {
      return this.fail((e as Error).message, EXIT.error);
    }
    if (token === undefined) {
      const r = await this.cli(argvFor(t, rest, [...(t.write!.plan ?? []), '--json']));
      if (r.code !== EXIT.ok && r.code !== EXIT.findings) return this.fail(firstError(r.stderr), r.code);
      const nonce = randomBytes(12).toString('base64url');
      const body = `${nonce}.${this.sign(`${nonce}|${call}|${state}`)}`;
      this.issued.add(body);
      return this.ok({ plan: r.stdout.trim() === '' ? null : JSON.parse(r.stdout), token: body, warnings: warningsOf(r.stderr) });
    }
    const [nonce, mac] = String(token).split('.');
    const expected = nonce ? this.sign(`${nonce}|${call}|${state}`) : '';
    const valid = mac !== undefined && mac.length === expected.length && timingSafeEqual(Buffer.from(mac), Buffer.from(expected));
    if (!this.issued.has(String(token))) return this.fail('this token was not issued by this server or was already used; call the tool without a token to get a plan', EXIT.usage);
    if (!valid) {
      this.issued.delete(String(token));
      return this.fail('the table\'s timeline changed since the plan was made (or the arguments differ); call the tool again without a token for a new plan', EXIT.usage);
    }
    this.issued.delete(String(token));
    const argv = argvFor(t, rest, [...(t.write!.execute ?? []), '--json']);
    this.ctx.io.stderr(`tblcli mcp: executing: tblcli ${argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}${this.opts.path ? ` --path ${this.opts.path}` : ''}\n`);
    const r = await this.cli(argv);
    if (r.code !== EXIT.ok && r.code !== EXIT.findings) return this.fail(firstError(r.stderr), r.code);
    return this.ok({ result: r.stdout.trim() === '' ? null : JSON.parse(r.stdout), warnings: warningsOf(r.stderr) });
  }

  /** Resources: the table's hoodie.properties, its active timeline, and the manual. */
  listResources() {
    return [
      { uri: 'tblcli://table/hoodie.properties', name: 'hoodie.properties', description: 'the connected table\'s properties (desc --json)', mimeType: 'application/json' },
      { uri: 'tblcli://table/timeline', name: 'active timeline', description: 'every instant of the active timeline (timeline show active --limit -1 --json)', mimeType: 'application/json' },
      { uri: 'tblcli://man', name: 'tblcli manual', description: 'man tblcli: every command, option, JSON field, exit code', mimeType: 'text/plain' },
    ];
  }

  async readResource(uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
    const argv = uri === 'tblcli://table/hoodie.properties' ? ['desc', '--json'] : uri === 'tblcli://table/timeline' ? ['timeline', 'show', 'active', '--limit', '-1', '--json'] : uri === 'tblcli://man' ? ['man'] : undefined;
    if (!argv) throw new Error(`unknown resource ${uri}`);
    const r = await this.cli(argv);
    if (r.code !== EXIT.ok) throw new Error(firstError(r.stderr));
    return { uri, mimeType: uri === 'tblcli://man' ? 'text/plain' : 'application/json', text: r.stdout };
  }
}

/** Serves until stdin closes. */
export async function serveMcp(ctx: Ctx, runCli: RunCli, opts: McpOptions): Promise<number> {
  const mcp = new TblcliMcp(ctx, runCli, opts);
  const server = new Server({ name: 'tblcli', version: VERSION }, { capabilities: { tools: {}, resources: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await mcp.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => mcp.callTool(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: mcp.listResources() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({ contents: [await mcp.readResource(req.params.uri)] }));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  return EXIT.ok;
}
