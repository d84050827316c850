// The Storage contract (src/storage/types.ts), as one suite any backend must pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors/index.ts';
import { readEach, replaceFile, type Storage } from '../../src/storage/index.ts';

export interface ContractFixture {
  storage: Storage;
  /** an empty directory in the storage's namespace, for this suite to use */
  root: string;
  close(): Promise<void>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(StorageError);
    return (e as StorageError).code;
  }
  return 'no error';
}

export function storageContract(name: string, factory: () => Promise<ContractFixture>): void {
  describe(`Storage contract: ${name}`, () => {
    let fx: ContractFixture;
    let s: Storage;
    let n = 0;
    // Each test gets its own directory under the root.
    const dir = async (): Promise<string> => {
      const d = `${fx.root}/case${++n}`;
      await s.mkdirs(d);
      return d;
    };

    beforeAll(async () => {
      fx = await factory();
      s = fx.storage;
    });
    afterAll(async () => {
      await fx?.close();
    });

    it('writeNew then readFile round-trips every byte value → identical bytes, stat size', async () => {
      const d = await dir();
      const data = new Uint8Array(256 * 3).map((_, i) => i % 256);
      await s.writeNew(`${d}/bin.dat`, data);
      expect(Buffer.from(await s.readFile(`${d}/bin.dat`)).equals(Buffer.from(data))).toBe(true);
      const st = await s.stat(`${d}/bin.dat`);
      expect(st).toMatchObject({ path: `${d}/bin.dat`, name: 'bin.dat', isDirectory: false, size: 768 });
      expect(Math.abs(st.mtimeMs - Date.now())).toBeLessThan(120_000);
    });

    it('writeNew of parts (views into larger buffers, an empty one) → their bytes in order, as one file', async () => {
      const d = await dir();
      const big = new Uint8Array(1000).map((_, i) => (i * 7) % 256);
      const parts = [big.subarray(10, 300), new Uint8Array(0), enc('middle'), big.subarray(500, 999)];
      await s.writeNew(`${d}/parts.dat`, parts);
      const want = Buffer.concat(parts.map((p) => Buffer.from(p)));
      expect(Buffer.from(await s.readFile(`${d}/parts.dat`)).equals(want)).toBe(true);
      expect((await s.stat(`${d}/parts.dat`)).size).toBe(want.length);
      expect(await codeOf(s.writeNew(`${d}/parts.dat`, [enc('again')]))).toBe('already-exists');
    });

    it('writeNew on an existing file → already-exists, content untouched, no temp files left', async () => {
      const d = await dir();
      await s.writeNew(`${d}/f`, enc('first'));
      expect(await codeOf(s.writeNew(`${d}/f`, enc('second')))).toBe('already-exists');
      expect(dec(await s.readFile(`${d}/f`))).toBe('first');
      expect((await s.list(d)).map((e) => e.name)).toEqual(['f']);
    });

    // with the backend's replace, and with the helper's fallback (a backend without one)
    const withoutReplace = (st: Storage): Storage => new Proxy(st, { get: (t, k) => (k === 'replace' ? undefined : Reflect.get(t, k, t)) });
    for (const [how, of] of [['replace', (st: Storage) => st], ['delete + writeNew', withoutReplace]] as const) {
      it(`replaceFile (${how}) → the new bytes in place, no temp files left`, async () => {
        const d = await dir();
        await s.writeNew(`${d}/plan`, enc('the old plan, longer than the new one'));
        await s.writeNew(`${d}/other`, enc('x'));
        await replaceFile(of(s), `${d}/plan`, enc('new plan'));
        expect(dec(await s.readFile(`${d}/plan`))).toBe('new plan');
        expect((await s.list(d)).map((e) => e.name)).toEqual(['other', 'plan']);
      });

      it(`replaceFile (${how}) of a missing file → not-found, nothing created`, async () => {
        const d = await dir();
        expect(await codeOf(replaceFile(of(s), `${d}/plan`, enc('new')))).toBe('not-found');
        expect(await s.list(d)).toEqual([]);
      });
    }

    it('list → sorted entries, directories flagged, .crc skipped', async () => {
      const d = await dir();
      for (const f of ['b', 'a', 'c.crc', '.a.crc', 'z']) await s.writeNew(`${d}/${f}`, enc(f));
      await s.mkdirs(`${d}/m`);
      const ls = await s.list(d);
      expect(ls.map((e) => e.name)).toEqual(['a', 'b', 'm', 'z']);
      expect(ls.map((e) => e.isDirectory)).toEqual([false, false, true, false]);
      expect(ls[0]).toMatchObject({ path: `${d}/a`, size: 1 });
      expect(ls[2]!.size).toBe(0);
    });

    it('list of a large directory → every entry exactly once', async () => {
      const d = await dir();
      const names = Array.from({ length: 37 }, (_, i) => `f${String(i).padStart(3, '0')}`);
      await Promise.all(names.map((f) => s.writeNew(`${d}/${f}`, enc(f))));
      expect((await s.list(d)).map((e) => e.name)).toEqual(names);
    });

    it('list of a missing dir → not-found; of a file → not-a-directory', async () => {
      const d = await dir();
      expect(await codeOf(s.list(`${d}/nope`))).toBe('not-found');
      await s.writeNew(`${d}/f`, enc('x'));
      expect(await codeOf(s.list(`${d}/f`))).toBe('not-a-directory');
    });

    it('names with %2F, %3A, spaces, + and unicode → stored and listed verbatim', async () => {
      const d = await dir();
      const part = `${d}/dt=2024%2F01%2F02/hh=10%3A00 x+y`;
      await s.mkdirs(part);
      await s.writeNew(`${part}/a b%25ü.log`, enc('ok'));
      expect((await s.list(d)).map((e) => e.name)).toEqual(['dt=2024%2F01%2F02']);
      expect((await s.list(`${d}/dt=2024%2F01%2F02`)).map((e) => e.name)).toEqual(['hh=10%3A00 x+y']);
      expect((await s.list(part)).map((e) => e.name)).toEqual(['a b%25ü.log']);
      expect(dec(await s.readFile(`${part}/a b%25ü.log`))).toBe('ok');
      await s.rename(`${part}/a b%25ü.log`, `${part}/c%2Fd`);
      expect(dec(await s.readFile(`${part}/c%2Fd`))).toBe('ok');
    });

    it('stat / exists / readFile of a missing path → not-found (kind not-found), false', async () => {
      const d = await dir();
      try {
        await s.stat(`${d}/missing`);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(StorageError);
        expect((e as StorageError).code).toBe('not-found');
        expect((e as StorageError).kind).toBe('not-found');
        expect((e as StorageError).message).toContain(s.uri(`${d}/missing`));
        expect((e as StorageError).message).not.toContain('\n');
      }
      expect(await s.exists(`${d}/missing`)).toBe(false);
      expect(await s.exists(d)).toBe(true);
      expect(await codeOf(s.readFile(`${d}/missing`))).toBe('not-found');
      const st = await s.stat(d);
      expect(st.isDirectory).toBe(true);
    });

    it('readEach → each file\'s bytes in order (empty, small, > 64 KB, nested call); a missing file → not-found naming it', async () => {
      const d = await dir();
      const sizes = [0, 5, 70_000, 300_000, 3];
      const files = sizes.map((n, k) => ({ path: `${d}/f${k}`, data: new Uint8Array(n).map((_, i) => (i * 31 + k) % 251) }));
      for (const f of files) await s.writeNew(f.path, f.data);
      const paths = files.map((f) => f.path);
      // the bytes are valid only during the callback: compare there, keep copies
      const nested: Promise<number[][]>[] = [];
      const seen = await readEach(s, paths, 2, (b, i) => {
        if (i === 2) nested.push(readEach(s, [paths[1]!], 1, (x) => [...x])); // nested: must not clobber b
        return { same: Buffer.from(b).equals(Buffer.from(files[i]!.data)), length: b.length };
      });
      expect(seen.map((x) => x.same)).toEqual(sizes.map(() => true));
      expect(seen.map((x) => x.length)).toEqual(sizes);
      expect(await Promise.all(nested)).toEqual([[[...files[1]!.data]]]);
      try {
        await readEach(s, [paths[0]!, `${d}/missing`, paths[1]!], 2, (b) => b.length);
        expect.unreachable();
      } catch (e) {
        expect((e as StorageError).code).toBe('not-found');
        expect((e as StorageError).message).toContain(s.uri(`${d}/missing`));
      }
    });

    it('entryCountHint (optional) → undefined or a count; never throws, also for a missing directory', async () => {
      const d = await dir();
      if (!s.entryCountHint) return;
      for (let k = 0; k < 3000; k++) await s.writeNew(`${d}/20250101000000${String(k).padStart(3, '0')}.deltacommit.requested`, new Uint8Array());
      const many = await s.entryCountHint(d);
      expect(many === undefined || (Number.isInteger(many) && many > 0)).toBe(true);
      expect(await s.entryCountHint(`${d}/missing`)).toBeUndefined();
    });

    it('readRange → the exact slice; shorter at EOF; empty at or past EOF', async () => {
      const d = await dir();
      const data = new Uint8Array(1000).map((_, i) => (i * 7) % 251);
      await s.writeNew(`${d}/r`, data);
      expect([...(await s.readRange(`${d}/r`, 10, 5))]).toEqual([...data.subarray(10, 15)]);
      expect([...(await s.readRange(`${d}/r`, 990, 50))]).toEqual([...data.subarray(990)]);
      expect((await s.readRange(`${d}/r`, 1000, 10)).length).toBe(0);
      expect((await s.readRange(`${d}/r`, 5000, 10)).length).toBe(0);
      expect((await s.readRange(`${d}/r`, 0, 0)).length).toBe(0);
      expect(await codeOf(s.readRange(`${d}/missing`, 0, 4))).toBe('not-found');
    });

    it('append → concatenates; creates a missing file', async () => {
      const d = await dir();
      await s.writeNew(`${d}/log`, enc('ab'));
      await s.append(`${d}/log`, enc('cd'));
      await s.append(`${d}/log`, new Uint8Array([0, 255]));
      expect([...(await s.readFile(`${d}/log`))]).toEqual([97, 98, 99, 100, 0, 255]);
      await s.append(`${d}/new`, enc('x'));
      expect(dec(await s.readFile(`${d}/new`))).toBe('x');
    });

    it('rename → moves; onto existing → already-exists (both untouched); missing source → not-found', async () => {
      const d = await dir();
      await s.writeNew(`${d}/a`, enc('A'));
      await s.writeNew(`${d}/b`, enc('B'));
      const e1 = await s.rename(`${d}/a`, `${d}/b`).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(StorageError);
      expect((e1 as StorageError).code).toBe('already-exists');
      expect((e1 as StorageError).path).toBe(`${d}/b`);
      expect(dec(await s.readFile(`${d}/a`))).toBe('A');
      expect(dec(await s.readFile(`${d}/b`))).toBe('B');
      await s.rename(`${d}/a`, `${d}/c`);
      expect(await s.exists(`${d}/a`)).toBe(false);
      expect(dec(await s.readFile(`${d}/c`))).toBe('A');
      const e2 = await s.rename(`${d}/nope`, `${d}/x`).catch((e: unknown) => e);
      expect((e2 as StorageError).code).toBe('not-found');
      expect((e2 as StorageError).path).toBe(`${d}/nope`);
    });

    it('rename of a directory → moves it; onto an existing directory → already-exists, not moved into it', async () => {
      const d = await dir();
      await s.mkdirs(`${d}/x/sub`);
      await s.writeNew(`${d}/x/sub/f`, enc('f'));
      await s.mkdirs(`${d}/y`);
      expect(await codeOf(s.rename(`${d}/x`, `${d}/y`))).toBe('already-exists');
      expect(await s.list(`${d}/y`)).toEqual([]);
      await s.rename(`${d}/x`, `${d}/z`);
      expect(dec(await s.readFile(`${d}/z/sub/f`))).toBe('f');
    });

    it('delete → true for a file, false when absent; non-empty dir needs recursive', async () => {
      const d = await dir();
      await s.writeNew(`${d}/f`, enc('x'));
      expect(await s.delete(`${d}/f`)).toBe(true);
      expect(await s.exists(`${d}/f`)).toBe(false);
      expect(await s.delete(`${d}/f`)).toBe(false);
      await s.mkdirs(`${d}/t/u`);
      await s.writeNew(`${d}/t/u/g`, enc('g'));
      expect(await codeOf(s.delete(`${d}/t`))).toBe('not-empty');
      expect(await s.exists(`${d}/t/u/g`)).toBe(true);
      expect(await s.delete(`${d}/t`, { recursive: true })).toBe(true);
      expect(await s.exists(`${d}/t`)).toBe(false);
      await s.mkdirs(`${d}/empty`);
      expect(await s.delete(`${d}/empty`)).toBe(true);
    });

    it('deleteEach (optional) → true per deleted file, false when absent; an empty directory too', async () => {
      if (!s.deleteEach) return;
      const d = await dir();
      for (const n of ['a', 'b', 'c']) await s.writeNew(`${d}/${n}`, enc(n));
      await s.mkdirs(`${d}/e`);
      expect(await s.deleteEach([`${d}/a`, `${d}/missing`, `${d}/c`, `${d}/e`])).toEqual([true, false, true, true]);
      expect((await s.list(d)).map((f) => f.name)).toEqual(['b']);
    });

    it('deleteEach releaseInParallel → the same answers', async () => {
      if (!s.deleteEach) return;
      const d = await dir();
      for (const n of ['a', 'b', 'c']) await s.writeNew(`${d}/${n}`, enc(n.repeat(5000)));
      await s.mkdirs(`${d}/e`);
      expect(await s.deleteEach([`${d}/a`, `${d}/missing`, `${d}/c`, `${d}/e`], { releaseInParallel: true })).toEqual([true, false, true, true]);
      expect((await s.list(d)).map((f) => f.name)).toEqual(['b']);
    });

    it('mkdirs → nested and idempotent; over a file → already-exists', async () => {
      const d = await dir();
      await s.mkdirs(`${d}/a/b/c`);
      await s.mkdirs(`${d}/a/b/c`);
      expect((await s.stat(`${d}/a/b/c`)).isDirectory).toBe(true);
      await s.writeNew(`${d}/file`, enc('x'));
      expect(await codeOf(s.mkdirs(`${d}/file`))).toBe('already-exists');
    });

    it('contentSummary → bytes, files and directories (the root included)', async () => {
      const d = await dir();
      await s.mkdirs(`${d}/p1/q`);
      await s.writeNew(`${d}/p1/a`, enc('12345'));
      await s.writeNew(`${d}/p1/q/b`, enc('123'));
      await s.writeNew(`${d}/c`, enc('1'));
      expect(await s.contentSummary(d)).toEqual({ length: 9, fileCount: 3, directoryCount: 3 });
      expect(await s.contentSummary(`${d}/c`)).toEqual({ length: 1, fileCount: 1, directoryCount: 0 });
      expect(await codeOf(s.contentSummary(`${d}/none`))).toBe('not-found');
    });

    it('many parallel readFile calls → each gets its own bytes', async () => {
      const d = await dir();
      const names = Array.from({ length: 40 }, (_, i) => `p${i}`);
      await Promise.all(names.map((f, i) => s.writeNew(`${d}/${f}`, new Uint8Array(100 + i).fill(i))));
      const got = await Promise.all(names.map((f) => s.readFile(`${d}/${f}`)));
      got.forEach((b, i) => {
        expect(b.length).toBe(100 + i);
        expect(b.every((x) => x === i)).toBe(true);
      });
    });

    it('uri(path) names the path as the user would type it', () => {
      expect(s.uri(`${fx.root}/x`)).toMatch(new RegExp(`${fx.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/x$`));
    });
  });
}
