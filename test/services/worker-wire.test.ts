// The compaction worker's storage over a message port (one MessageChannel here, both ends in this
// thread; the worker test runs the real thread): prefetched files are served from the bytes the main
// side sent, without a request; a file whose read ahead failed, or a range past its end, is asked for
// and gets the storage's own answer or error.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { LocalStorage, type Storage } from '../../src/storage/index.ts';
import { serveStorage, storageOverPort } from '../../src/services/rewrite/worker-wire.ts';

/** A LocalStorage counting readRange calls by path. */
function counting(): { storage: Storage; calls: string[] } {
  const local = new LocalStorage();
  const calls: string[] = [];
  const storage = new Proxy(local, {
    get(t, k) {
      if (k === 'readRange') return (p: string, o: number, n: number) => (calls.push(`${p}@${o}+${n}`), t.readRange(p, o, n));
      const v = Reflect.get(t, k, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
  return { storage, calls };
}

describe('storage over a port with prefetched files', () => {
  it('serves prefetched ranges from the bytes sent ahead; asks for the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-wire-'));
    const a = join(dir, 'a.log');
    const b = join(dir, 'b.log');
    writeFileSync(a, Buffer.from('0123456789'));
    writeFileSync(b, Buffer.from('abcdef'));
    const gone = join(dir, 'gone.log');
    const { storage, calls } = counting();
    const { port1, port2 } = new MessageChannel();
    serveStorage(port1, storage, [
      { path: a, size: 10 },
      { path: gone, size: 4 },
    ]);
    const remote = storageOverPort(port2, 'file', '', [a, gone]);
    try {
      expect(Buffer.from(await remote.readRange(a, 2, 5)).toString()).toBe('23456');
      expect(Buffer.from(await remote.readRange(a, 0, 10)).toString()).toBe('0123456789');
      // only the read ahead went to the storage for a
      expect(calls.filter((c) => c.startsWith(a))).toEqual([`${a}@0+10`]);
      // past the prefetched bytes: asked for, answered as the storage answers
      const past = await remote.readRange(a, 8, 5).then(
        (x) => Buffer.from(x).toString(),
        (e: unknown) => `error ${(e as Error).message}`,
      );
      const direct = await storage.readRange(a, 8, 5).then(
        (x) => Buffer.from(x).toString(),
        (e: unknown) => `error ${(e as Error).message}`,
      );
      expect(past).toBe(direct);
      expect(calls.filter((c) => c === `${a}@8+5`)).toHaveLength(2);
      // not prefetched: asked for
      expect(Buffer.from(await remote.readRange(b, 1, 3)).toString()).toBe('bcd');
      expect(calls).toContain(`${b}@1+3`);
      // the read ahead failed: the request gets the storage's error, with its path
      await expect(remote.readRange(gone, 0, 4)).rejects.toThrow(gone);
      expect(calls.filter((c) => c.startsWith(gone))).toHaveLength(2);
    } finally {
      port1.close();
      port2.close();
    }
  });
});
