// LocalStorage.deleteEach with releaseInParallel: files held open while their names go in order, closed
// on the thread pool; every descriptor released, whatever happens.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStorage } from '../../src/storage/index.ts';
import { holdsOpenWellOn } from '../../src/storage/local.ts';
import { bundleForTest } from '../support/bundle.ts';

const openFds = (): number => readdirSync('/proc/self/fd').length;
const linux = existsSync('/proc/self/fd');

describe('which file systems hold files open across the unlink', () => {
  it('ext4, XFS and Btrfs do; NFS, CIFS, FUSE and tmpfs unlink plainly', () => {
    for (const t of [0xef53, 0x58465342, 0x9123683e]) expect(holdsOpenWellOn(t)).toBe(true);
    for (const t of [0x6969, 0xff534d42, 0xfe534d42, 0x65735546, 0x01021994]) expect(holdsOpenWellOn(t)).toBe(false);
  });
});

// the held path runs where the OS temp dir is on ext4/XFS/Btrfs (this project's CI host: ext4)
describe.skipIf(!linux)('LocalStorage.deleteEach releaseInParallel', () => {
  let d: string;
  beforeEach(() => {
    d = mkdtempSync(join(tmpdir(), 'tblcli-delete-each-'));
  });
  afterEach(() => rmSync(d, { recursive: true, force: true }));

  it('deletes more files than it holds open at once, and leaves no descriptor open', async () => {
    const paths = Array.from({ length: 2500 }, (_, i) => join(d, `f${String(i).padStart(5, '0')}`));
    for (const p of paths) writeFileSync(p, 'x'.repeat(4096));
    const before = openFds();
    const out = await new LocalStorage().deleteEach(paths, { releaseInParallel: true });
    expect(out.every((x) => x)).toBe(true);
    expect(readdirSync(d)).toEqual([]);
    expect(openFds()).toBe(before);
  });

  it('stops at the first failure in order: earlier names gone, later ones kept, descriptors released', async () => {
    const paths = Array.from({ length: 600 }, (_, i) => join(d, `f${String(i).padStart(5, '0')}`));
    for (const p of paths) writeFileSync(p, 'data');
    writeFileSync(join(d, 'plain'), 'x');
    // unlink(plain/x) fails with ENOTDIR: not a missing file, so the batch stops there
    const bad = join(d, 'plain', 'x');
    const list = [...paths.slice(0, 400), bad, ...paths.slice(400)];
    const before = openFds();
    await expect(new LocalStorage().deleteEach(list, { releaseInParallel: true })).rejects.toMatchObject({ code: 'not-a-directory' });
    expect(openFds()).toBe(before);
    expect(readdirSync(d).sort()).toEqual(['plain', ...paths.slice(400).map((p) => p.slice(d.length + 1))].sort());
  });

  it('a symlink loses its name only; a directory is removed', async () => {
    writeFileSync(join(d, 'target'), 'kept');
    symlinkSync(join(d, 'target'), join(d, 'link'));
    mkdirSync(join(d, 'dir'));
    expect(await new LocalStorage().deleteEach([join(d, 'link'), join(d, 'dir'), join(d, 'gone')], { releaseInParallel: true })).toEqual([true, true, false]);
    expect(readdirSync(d)).toEqual(['target']);
  });

  it('a FIFO is deleted without waiting for a writer (in a child process: a blocked open would hang this one)', async () => {
    execFileSync('mkfifo', [join(d, 'fifo')]);
    const lib = await bundleForTest('src/storage/local.ts', 'local.mjs', { packages: 'external' });
    const code = `import { LocalStorage } from ${JSON.stringify(lib.url.href)}; process.stdout.write(JSON.stringify(await new LocalStorage().deleteEach([${JSON.stringify(join(d, 'fifo'))}], { releaseInParallel: true })));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 20_000 });
    expect(r.signal, 'the open blocked').toBeNull();
    expect(r.stdout, r.stderr).toBe('[true]');
    expect(readdirSync(d)).toEqual([]);
  }, 60_000);
});
