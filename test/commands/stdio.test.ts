// The process stdout/stderr writer (commands/stdio.ts) in real child processes: a pipe whose reader
// stops early (`| head`), a non-blocking pipe read slowly, a file, and stderr. The module is bundled
// with esbuild so a plain node child can run it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForTest } from '../support/bundle.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
let dir: string;
let lib: string;

beforeAll(async () => {
  const b = await bundleForTest('commands/stdio.ts', 'stdio.mjs');
  dir = b.dir;
  lib = b.path;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child that writes `total` bytes (an ASCII counting pattern, chunks alternately bytes and strings) through stdStream(fd), then a UTF-8 line. */
function childScript(opts: { fd: 1 | 2; total: number; touchNodeStream?: boolean; exitLikeLauncher?: boolean }): string {
  const f = join(dir, `child-${opts.fd}-${opts.total}-${opts.touchNodeStream ? 1 : 0}-${opts.exitLikeLauncher ? 1 : 0}.mjs`);
  writeFileSync(
    f,
    `import { stdStream, outputSettled } from ${JSON.stringify(lib)};
${opts.touchNodeStream ? '// a pipe behind process.stdout is switched to non-blocking by libuv\nprocess.stdout;' : ''}
const s = stdStream(${opts.fd});
const total = ${opts.total};
const chunk = 65536 + 17;
for (let at = 0; at < total; at += chunk) {
  const n = Math.min(chunk, total - at);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = 32 + ((at + i) % 90);
  // every other chunk as a string (the same ASCII bytes)
  s.write((at / chunk) % 2 === 0 ? b : Buffer.from(b).toString('latin1'));
}
s.write('done ✓\\n');
// how the bytes went out, for the test to check (stderr is a pipe of its own)
if (${opts.fd} === 1) process.stderr.write(s.via);
${opts.exitLikeLauncher ? "// bin/tblcli.js: exit at once only when nothing is held back\nconst settled = outputSettled();\nprocess.stderr.write(' ' + settled);\nif (settled) process.exit(0);" : ''}
`,
  );
  return f;
}

function expected(total: number): Buffer {
  const b = Buffer.alloc(total);
  for (let i = 0; i < total; i++) b[i] = 32 + (i % 90);
  return Buffer.concat([b, Buffer.from('done ✓\n')]);
}

function run(script: string, onStdout?: (child: ReturnType<typeof spawn>, data: Buffer) => void): Promise<{ code: number | null; out: Buffer; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out.push(d);
      onStdout?.(child, d);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: Buffer.concat(out), err }));
  });
}

/** A slow reader: the pipe fills and a non-blocking writer sees EAGAIN. */
function slowReader(child: ReturnType<typeof spawn>): void {
  child.stdout!.pause();
  setTimeout(() => child.stdout!.resume(), 5);
}

describe('stdStream', () => {
  it('writes every byte to a pipe, in order', async () => {
    const total = 3 * 1048576 + 5;
    const r = await run(childScript({ fd: 1, total }));
    expect(r.err).toBe('descriptor'); // writeSync all the way: nothing made the pipe non-blocking
    expect(r.code).toBe(0);
    expect(r.out.equals(expected(total))).toBe(true);
  });

  it('a non-blocking pipe whose reader is slow (EAGAIN) hands the rest to Node\'s stream, losing nothing', async () => {
    const total = 2 * 1048576;
    const r = await run(childScript({ fd: 1, total, touchNodeStream: true }), slowReader);
    expect(r.err).toBe('stream');
    expect(r.code).toBe(0);
    expect(r.out.equals(expected(total))).toBe(true);
  });

  it('outputSettled: true once descriptor writes are done; while a non-blocking pipe holds bytes back it is false, so the launcher\'s early exit loses nothing', async () => {
    const total = 2 * 1048576;
    const direct = await run(childScript({ fd: 1, total, exitLikeLauncher: true }));
    expect(direct.err).toBe('descriptor true');
    expect(direct.out.equals(expected(total))).toBe(true);
    const slow = await run(childScript({ fd: 1, total, touchNodeStream: true, exitLikeLauncher: true }), slowReader);
    expect(slow.err).toBe('stream false');
    expect(slow.code).toBe(0);
    expect(slow.out.equals(expected(total))).toBe(true);
  });

  it('a reader that goes away (| head) ends the output quietly: exit 0, no stack trace', async () => {
    for (const touchNodeStream of [false, true]) {
      const r = await run(childScript({ fd: 1, total: 8 * 1048576, touchNodeStream }), (child) => child.stdout!.destroy());
      // only the child's own line: no error, no stack trace (EPIPE may come before or after an EAGAIN)
      expect(['descriptor', 'stream']).toContain(r.err);
      expect(r.code).toBe(0);
    }
  });

  it('writes to a file and to stderr', async () => {
    const total = 300_000;
    const file = join(dir, 'out.bin');
    const fd = openSync(file, 'w');
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [childScript({ fd: 1, total })], { stdio: ['ignore', fd, 'ignore'] });
      child.on('error', reject);
      child.on('close', resolve);
    });
    closeSync(fd);
    expect(code).toBe(0);
    expect(readFileSync(file).equals(expected(total))).toBe(true);

    const child = spawn(process.execPath, [childScript({ fd: 2, total })], { stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(Buffer.concat(err).equals(expected(total))).toBe(true);
  });
});
