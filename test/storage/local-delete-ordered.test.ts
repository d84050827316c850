// Storage.deleteOrdered: each item's `first` files before its `last`, the `last` files in order, as the
// kernel saw the unlinks (inotify). Locally a worker thread deletes the `first` files from 512 items on;
// below that, and on a backend without the method (parallel.ts), one thread pipelines plain deletes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteOrdered, LocalStorage, type OrderedDelete, type Storage } from '../../src/storage/index.ts';
import { watchDeletes } from '../support/watch-deletes.ts';

const linux = existsSync('/proc/self/fd');
const openFds = (): number => readdirSync('/proc/self/fd').length;

/**
 * `n` items of two empty state files and one completed file with data, named like timeline instants;
 * `heavyFirst`: the other way round, so that the `last` files would overtake the `first` ones unless held back
 */
function timeline(dir: string, n: number, heavyFirst = false): OrderedDelete[] {
  return Array.from({ length: n }, (_, i) => {
    const t = String(20250101000000000 + i * 1000);
    const [req, inf, done] = [`${t}.commit.requested`, `${t}.commit.inflight`, `${t}_${t.slice(0, 14)}999.commit`].map((f) => join(dir, f));
    writeFileSync(req!, heavyFirst ? 'x'.repeat(64 * 1024) : '');
    writeFileSync(inf!, heavyFirst ? 'x'.repeat(64 * 1024) : '');
    writeFileSync(done!, heavyFirst ? '' : 'x'.repeat(3000));
    return { first: [req!, inf!], last: done! };
  });
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** every `last` after its own `first` files, the `last` files in item order; nothing else deleted */
function expectOrdered(order: string[], items: OrderedDelete[]): void {
  const at = new Map(order.map((n, i) => [n, i]));
  const lasts = items.map((it) => base(it.last));
  expect(order.filter((n) => lasts.includes(n))).toEqual(lasts.filter((n) => at.has(n)));
  for (const it of items) {
    if (!at.has(base(it.last))) continue;
    for (const f of it.first) expect(at.get(base(f)), `${base(f)} must go before ${base(it.last)}`).toBeLessThan(at.get(base(it.last))!);
  }
}

/** the same storage without deleteOrdered: parallel.ts's pipelined fallback */
function withoutOrdered(s: LocalStorage): Storage {
  const plain: Storage = Object.create(s);
  Object.defineProperty(plain, 'deleteOrdered', { value: undefined });
  return plain;
}

describe.skipIf(!linux)('deleteOrdered', () => {
  let d: string;
  beforeEach(() => {
    d = mkdtempSync(join(tmpdir(), 'tblcli-delete-ordered-'));
  });
  afterEach(() => rmSync(d, { recursive: true, force: true }));

  for (const [name, n, storage, heavyFirst] of [
    ['local, worker thread', 1500, () => new LocalStorage(), false],
    ['local, worker thread, first files slower than the last ones', 1500, () => new LocalStorage(), true],
    ['local, one thread (few items)', 300, () => new LocalStorage(), false],
    ['a backend without deleteOrdered', 700, () => withoutOrdered(new LocalStorage()), false],
  ] as const) {
    it(`${name}: ${n} items, every file gone in order, descriptors released, progress reported`, async () => {
      const items = timeline(d, n, heavyFirst);
      const watching = watchDeletes(d, readdirSync(d));
      const before = openFds();
      const progress: number[] = [];
      const deleted = await deleteOrdered(storage(), items, { limit: 8, releaseInParallel: true, onProgress: async (k) => void progress.push(k) });
      const order = await watching.stop();
      expect(deleted).toBe(3 * n);
      expect(readdirSync(d)).toEqual([]);
      expect(order).toHaveLength(3 * n);
      expectOrdered(order, items);
      expect(openFds()).toBe(before);
      expect(progress.at(-1)).toBe(n);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    });
  }

  it('missing files count as not deleted; an empty directory among the first files is removed', async () => {
    const items = timeline(d, 600);
    rmSync(items[10]!.first[0]!);
    rmSync(items[20]!.last);
    rmSync(items[30]!.first[1]!);
    mkdirSync(items[30]!.first[1]!);
    expect(await new LocalStorage().deleteOrdered(items)).toBe(3 * 600 - 2);
    expect(readdirSync(d)).toEqual([]);
  });

  // the fallback works in rounds of 256 items: it stops at the round
  for (const [name, storage, reached] of [
    ['local, worker thread', () => new LocalStorage(), 700],
    ['a backend without deleteOrdered', () => withoutOrdered(new LocalStorage()), 512],
  ] as const) {
    it(`${name}: a first file that cannot go stops there — its item's last and every later last kept`, async () => {
      const items = timeline(d, 900);
      // a non-empty directory: unlink refuses it (EISDIR), rmdir too (ENOTEMPTY)
      const bad = items[700]!.first[1]!;
      rmSync(bad);
      mkdirSync(bad);
      writeFileSync(join(bad, 'x'), 'x');
      const before = openFds();
      await expect(deleteOrdered(storage(), items, { limit: 8, releaseInParallel: true })).rejects.toMatchObject({ code: 'not-empty' });
      expect(openFds()).toBe(before);
      for (const [i, it] of items.entries()) if (i < reached || i >= 700) expect(existsSync(it.last), `item ${i}`).toBe(i >= 700);
      expect(existsSync(bad)).toBe(true);
    });
  }
});
