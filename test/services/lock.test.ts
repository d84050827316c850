// Lock and heartbeat ownership: a holder whose lock expired must not delete the next holder's lock,
// two takers of one expired lock cannot both win, a heartbeat is deleted only by its own attempt.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalStorage, type FileData } from '../../src/storage/index.ts';
import { acquireTableLock, heartbeatOwner, heartbeatPath, lockTokenOf, startHeartbeat } from '../../src/services/index.ts';

function metaDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'lock-')), '.hoodie');
  mkdirSync(join(dir, '.aux'), { recursive: true });
  return dir;
}

/** Makes the lock file look `ageMs` old. */
function age(file: string, ageMs: number): void {
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(file, t, t);
}

const tokenIn = (file: string) => lockTokenOf(readFileSync(file, 'utf8'));

describe('table lock ownership', () => {
  it('writes LockInfo-style JSON with our token; release after expiry leaves the new holder lock alone', async () => {
    const dir = metaDir();
    const file = join(dir, '.aux/lock');
    const s = new LocalStorage();
    let clock = Date.now();
    const a = await acquireTableLock(s, dir, { expireMs: 1000, now: () => clock });
    const content = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(content)).toEqual(['lockCreateTime', 'lockThreadName', 'lockStacksInfo', 'lockToken']);
    expect(content.lockToken).toBe(a.token);
    age(file, 5000);
    const b = await acquireTableLock(s, dir, { expireMs: 1000 });
    expect(b.token).not.toBe(a.token);
    expect(tokenIn(file)).toBe(b.token);
    // A finishes its (too long) critical section
    clock += 5000;
    await expect(a.keepAlive()).rejects.toMatchObject({ kind: 'conflict' });
    expect(await a.release()).toBe(false);
    expect(existsSync(file)).toBe(true);
    expect(tokenIn(file)).toBe(b.token);
    expect(await b.release()).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('a lock written by Hudi (no token) is respected until it expires, then taken over', async () => {
    const dir = metaDir();
    const file = join(dir, '.aux/lock');
    writeFileSync(file, '{\n  "lockCreateTime" : "2025-01-01 00:00:00.000",\n  "lockThreadName" : "main",\n  "lockStacksInfo" : [ ]\n}');
    const s = new LocalStorage();
    await expect(acquireTableLock(s, dir, { expireMs: 1000 })).rejects.toMatchObject({ kind: 'lock-held' });
    age(file, 5000);
    const a = await acquireTableLock(s, dir, { expireMs: 1000 });
    expect(tokenIn(file)).toBe(a.token);
    await a.release();
  });

  it('keepAlive refreshes the mtime of a lock that is still ours', async () => {
    const dir = metaDir();
    const file = join(dir, '.aux/lock');
    const s = new LocalStorage();
    let clock = Date.now();
    const a = await acquireTableLock(s, dir, { expireMs: 1000, now: () => clock });
    age(file, 900);
    const before = statSync(file).mtimeMs;
    clock += 600;
    await a.keepAlive();
    expect(statSync(file).mtimeMs).toBeGreaterThan(before + 500);
    expect(tokenIn(file)).toBe(a.token);
    expect(await a.release()).toBe(true);
  });

  it('concurrent takeovers of one expired lock: exactly one wins (20 rounds of 4 takers)', async () => {
    const s = new LocalStorage();
    for (let round = 0; round < 20; round++) {
      const dir = metaDir();
      const file = join(dir, '.aux/lock');
      writeFileSync(file, 'stale');
      age(file, 5000);
      const results = await Promise.allSettled([0, 1, 2, 3].map(() => acquireTableLock(s, dir, { expireMs: 1000, settleMs: 20 })));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won, `round ${round}`).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'lock-held' });
      expect(tokenIn(file)).toBe(won[0]!.value.token);
    }
  });

  it('a taker whose delete lands after the other taker created its lock does not leave two holders', async () => {
    // B judged the stale lock expired but is slow to delete it: its delete removes A's fresh lock.
    // A's confirming re-read sees B's token and A gives up; B holds the lock alone.
    const dir = metaDir();
    const file = join(dir, '.aux/lock');
    writeFileSync(file, 'stale');
    age(file, 5000);
    let aCreated!: () => void;
    const created = new Promise<void>((r) => (aCreated = r));
    class SlowDelete extends LocalStorage {
      override async delete(path: string, opts?: { recursive?: boolean }): Promise<boolean> {
        await created;
        return super.delete(path, opts);
      }
    }
    class SignalCreate extends LocalStorage {
      override async writeNew(path: string, data: FileData): Promise<void> {
        await super.writeNew(path, data);
        aCreated();
      }
    }
    const a = acquireTableLock(new SignalCreate(), dir, { expireMs: 1000, settleMs: 200 });
    const b = acquireTableLock(new SlowDelete(), dir, { expireMs: 1000, settleMs: 200 });
    const [ra, rb] = await Promise.allSettled([a, b]);
    const won = [ra, rb].filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(tokenIn(file)).toBe((won[0] as PromiseFulfilledResult<{ token: string }>).value.token);
  });
});

describe('heartbeat ownership', () => {
  it('names its attempt; stop() deletes only its own heartbeat; a replaced heartbeat is reported lost and not beaten', async () => {
    const dir = metaDir();
    const s = new LocalStorage();
    const a = await startHeartbeat(s, dir, '20250101000000000', 60_000);
    expect(await heartbeatOwner(s, dir, '20250101000000000')).toBe(a.attemptId);
    expect(await a.lostReason(10_000)).toBeUndefined();
    // another process rolled A back (deleting the file) and started its own attempt
    const b = await startHeartbeat(s, dir, '20250101000000000', 60_000);
    expect(b.attemptId).not.toBe(a.attemptId);
    expect(await a.lostReason(10_000)).toMatch(/deleted or replaced/);
    await expect(a.beat()).rejects.toMatchObject({ kind: 'conflict', instant: '20250101000000000' });
    expect(await a.stop()).toBe(false);
    expect(await heartbeatOwner(s, dir, '20250101000000000')).toBe(b.attemptId);
    expect(await b.lostReason(10_000)).toBeUndefined();
    // an old beat is lost ownership even while the file still names us
    age(heartbeatPath(dir, '20250101000000000'), 5000);
    expect(await b.lostReason(1000)).toMatch(/ms old/);
    expect(await b.stop()).toBe(true);
    expect(existsSync(heartbeatPath(dir, '20250101000000000'))).toBe(false);
  });
});
