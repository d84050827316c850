// `node bench/mcp.mjs` (after `npm run build`): time from spawning `tblcli mcp` to the first tool
// result (initialize, then tools/call commits_show with limit 20) on a 20,000-instant table, against
// the CLI's `commits show --limit 20 --json` on the same table, runs interleaved (a, b, a, b …).
// Goal ≤ 1.3×. The client speaks the protocol's newline-delimited JSON-RPC over the child's pipes
// itself, so the SDK client's own load time is not counted on either side.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateTimelineTable } from './gen-timeline.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.bench-out');
mkdirSync(out, { recursive: true });
const N = Number(process.env.BENCH_INSTANTS ?? 20000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const bin = join(root, 'bin', 'tblcli.js');
const node = process.execPath;

const dir = join(out, `timeline-${N}-L2`);
if (!existsSync(join(dir, '.complete'))) {
  console.log(`generating ${N} instants, layout 2 …`);
  await generateTimelineTable(dir, 2, N);
}

function cli() {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(node, [bin, 'commits', 'show', '--limit', '20', '--json', '--path', dir], { maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function mcp() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(node, [bin, 'mcp', '--path', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = '';
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    child.stdout.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = JSON.parse(line);
        if (m.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'commits_show', arguments: { limit: 20 } } });
        } else if (m.id === 2) {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (m.error || m.result.isError || m.result.structuredContent.rows.length !== 20) reject(new Error(JSON.stringify(m)));
          child.stdin.end();
          child.on('exit', () => resolve(ms));
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const a = [];
const b = [];
for (let i = 0; i < RUNS + 1; i++) {
  const x = cli();
  const y = await mcp();
  if (i > 0) {
    a.push(x);
    b.push(y);
  }
}
const [ca, mb] = [median(a), median(b)];
console.log(`mcp: spawn → first tool result (commits_show, limit 20) ${mb.toFixed(0)} ms vs CLI commits show --limit 20 --json ${ca.toFixed(0)} ms on ${N} instants → ${(mb / ca).toFixed(2)}× (target ≤ 1.3×)`);
