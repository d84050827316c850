// Pins the test server's protocol behaviour (shared/reference/webhdfs.md §2) with raw fetch, so it
// cannot drift into a toy that our client happens to agree with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';

let root: string;
let s: WebHdfsServer;
let nn: string;

const q = (path: string, op: string, extra = ''): string => `${nn}/webhdfs/v1${path}?op=${op}&user.name=u${extra}`;
const json = async (r: Response): Promise<unknown> => r.json();
const manual = { redirect: 'manual' } as const;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tblcli-srv-'));
  s = await startWebHdfsServer({ root, pageSize: 2 });
  nn = `http://127.0.0.1:${s.nnPort}`;
});
afterAll(async () => {
  await s.close();
  rmSync(root, { recursive: true, force: true });
});

describe('test WebHDFS server (webhdfs mode)', () => {
  it('NameNode and DataNode listen on different ports', () => {
    expect(s.dnPort).not.toBe(s.nnPort);
  });

  it('CREATE step 1 → 307 to the DataNode, Content-Length 0, body discarded, nothing created', async () => {
    const r = await fetch(q('/c/x.bin', 'CREATE'), { method: 'PUT', body: 'IGNORED', ...manual });
    expect(r.status).toBe(307);
    expect(r.headers.get('content-length')).toBe('0');
    const loc = r.headers.get('location')!;
    expect(loc).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.dnPort}/webhdfs/v1/c/x\\.bin\\?`));
    expect(loc).toContain('namenoderpcaddress=');
    expect(existsSync(join(root, 'c', 'x.bin'))).toBe(false);
    expect(s.requests.at(-1)).toMatchObject({ server: 'nn', op: 'CREATE', bodyBytes: 7, status: 307 });
    // step 2: binary body to the DataNode → 201 + Location hdfs://…
    const body = new Uint8Array([0, 1, 0xff, 0xfe, 0x50, 0x41, 0x52, 0x31]);
    const r2 = await fetch(loc, { method: 'PUT', body, ...manual });
    expect(r2.status).toBe(201);
    expect(r2.headers.get('location')).toMatch(/^hdfs:\/\/.*\/c\/x\.bin$/);
    expect([...readFileSync(join(root, 'c', 'x.bin'))]).toEqual([...body]);
  });

  it('CREATE overwrite=false (default) on an existing file → DataNode 403 FileAlreadyExistsException; overwrite=true replaces', async () => {
    writeFileSync(join(root, 'exists'), 'old');
    const loc = (await fetch(q('/exists', 'CREATE'), { method: 'PUT', ...manual })).headers.get('location')!;
    const r = await fetch(loc, { method: 'PUT', body: 'new' });
    expect(r.status).toBe(403);
    expect(await json(r)).toMatchObject({ RemoteException: { exception: 'FileAlreadyExistsException', javaClassName: 'org.apache.hadoop.fs.FileAlreadyExistsException' } });
    const loc2 = (await fetch(q('/exists', 'CREATE', '&overwrite=true'), { method: 'PUT', ...manual })).headers.get('location')!;
    expect((await fetch(loc2, { method: 'PUT', body: 'new' })).status).toBe(201);
    expect(readFileSync(join(root, 'exists'), 'utf8')).toBe('new');
  });

  it('noredirect=true → 200 {"Location": …} instead of 307', async () => {
    writeFileSync(join(root, 'nr'), 'abc');
    const r = await fetch(q('/nr', 'OPEN', '&noredirect=true'), manual);
    expect(r.status).toBe(200);
    const { Location } = (await json(r)) as { Location: string };
    expect(Location).toContain(`:${s.dnPort}/`);
    expect(await (await fetch(Location)).text()).toBe('abc');
  });

  it('OPEN → 307; DataNode honours offset/length, octet-stream, exact Content-Length; missing → 404 before redirect', async () => {
    writeFileSync(join(root, 'o.bin'), Buffer.from([0, 1, 0xff, 0xfe, 0x50, 0x41, 0x52, 0x31]));
    const r = await fetch(q('/o.bin', 'OPEN', '&offset=2&length=4'), manual);
    expect(r.status).toBe(307);
    const d = await fetch(r.headers.get('location')!);
    expect(d.headers.get('content-type')).toBe('application/octet-stream');
    expect(d.headers.get('content-length')).toBe('4');
    expect([...new Uint8Array(await d.arrayBuffer())]).toEqual([0xff, 0xfe, 0x50, 0x41]);
    const m = await fetch(q('/nope', 'OPEN'), manual);
    expect(m.status).toBe(404);
    expect(await json(m)).toEqual({
      RemoteException: { exception: 'FileNotFoundException', javaClassName: 'java.io.FileNotFoundException', message: 'File does not exist: /nope' },
    });
    const eof = await fetch(q('/o.bin', 'OPEN', '&offset=9'));
    expect(eof.status).toBe(403);
    expect(((await json(eof)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('EOFException');
  });

  it('APPEND (POST) → 307, DataNode 200 empty; missing file → 404 on the NameNode', async () => {
    writeFileSync(join(root, 'ap'), 'ab');
    const r = await fetch(q('/ap', 'APPEND'), { method: 'POST', ...manual });
    expect(r.status).toBe(307);
    const d = await fetch(r.headers.get('location')!, { method: 'POST', body: 'cd' });
    expect(d.status).toBe(200);
    expect(await d.text()).toBe('');
    expect(readFileSync(join(root, 'ap'), 'utf8')).toBe('abcd');
    expect((await fetch(q('/nope', 'APPEND'), { method: 'POST', ...manual })).status).toBe(404);
  });

  it('MKDIRS → {"boolean":true}, also when it exists; over a file → 403 FileAlreadyExistsException', async () => {
    const a = await fetch(q('/m/n', 'MKDIRS'), { method: 'PUT' });
    expect([a.status, await json(a)]).toEqual([200, { boolean: true }]);
    expect(await json(await fetch(q('/m/n', 'MKDIRS'), { method: 'PUT' }))).toEqual({ boolean: true });
    writeFileSync(join(root, 'mf'), 'x');
    const f = await fetch(q('/mf', 'MKDIRS'), { method: 'PUT' });
    expect(f.status).toBe(403);
    expect(((await json(f)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('FileAlreadyExistsException');
  });

  it('DELETE → {"boolean":false} when missing; 403 PathIsNotEmptyDirectoryException without recursive', async () => {
    expect(await json(await fetch(q('/gone', 'DELETE'), { method: 'DELETE' }))).toEqual({ boolean: false });
    mkdirSync(join(root, 'ne'));
    writeFileSync(join(root, 'ne', 'f'), 'x');
    const r = await fetch(q('/ne', 'DELETE'), { method: 'DELETE' });
    expect(r.status).toBe(403);
    expect(((await json(r)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('PathIsNotEmptyDirectoryException');
    expect(await json(await fetch(q('/ne', 'DELETE', '&recursive=true'), { method: 'DELETE' }))).toEqual({ boolean: true });
    expect(existsSync(join(root, 'ne'))).toBe(false);
  });

  it('RENAME without renameoptions → {"boolean":false} for missing source / existing file / missing parent; moves into a directory', async () => {
    mkdirSync(join(root, 'rn'));
    writeFileSync(join(root, 'rn', 'a'), 'A');
    writeFileSync(join(root, 'rn', 'b'), 'B');
    mkdirSync(join(root, 'rn', 'd'));
    const rename = async (from: string, to: string, extra = ''): Promise<Response> =>
      fetch(q(from, 'RENAME', `&destination=${encodeURIComponent(to)}${extra}`), { method: 'PUT' });
    expect(await json(await rename('/rn/missing', '/rn/x'))).toEqual({ boolean: false });
    expect(await json(await rename('/rn/a', '/rn/b'))).toEqual({ boolean: false });
    expect(await json(await rename('/rn/a', '/rn/nodir/x'))).toEqual({ boolean: false });
    expect(await json(await rename('/rn/a', '/rn/d'))).toEqual({ boolean: true });
    expect(readFileSync(join(root, 'rn', 'd', 'a'), 'utf8')).toBe('A');
    // renameoptions=NONE → typed errors, empty 200 on success
    const ex = await rename('/rn/b', '/rn/d', '&renameoptions=NONE');
    expect(ex.status).toBe(403);
    expect(((await json(ex)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('FileAlreadyExistsException');
    const nf = await rename('/rn/zz', '/rn/y', '&renameoptions=NONE');
    expect(nf.status).toBe(404);
    const ok = await rename('/rn/b', '/rn/c', '&renameoptions=NONE');
    expect([ok.status, await ok.text()]).toEqual([200, '']);
  });

  it('LISTSTATUS → sorted by byte order, full FileStatus; on a file → one entry with pathSuffix ""', async () => {
    mkdirSync(join(root, 'ls'));
    for (const n of ['b', 'a', 'Z', 'é']) writeFileSync(join(root, 'ls', n), n);
    const r = (await json(await fetch(q('/ls', 'LISTSTATUS')))) as { FileStatuses: { FileStatus: Record<string, unknown>[] } };
    expect(r.FileStatuses.FileStatus.map((e) => e.pathSuffix)).toEqual(['Z', 'a', 'b', 'é']);
    expect(Object.keys(r.FileStatuses.FileStatus[0]!).sort()).toEqual(
      ['accessTime', 'blockSize', 'childrenNum', 'fileId', 'group', 'length', 'modificationTime', 'owner', 'pathSuffix', 'permission', 'replication', 'storagePolicy', 'type'],
    );
    const f = (await json(await fetch(q('/ls/a', 'LISTSTATUS')))) as { FileStatuses: { FileStatus: Record<string, unknown>[] } };
    expect(f.FileStatuses.FileStatus.map((e) => [e.pathSuffix, e.type, e.length])).toEqual([['', 'FILE', 1]]);
  });

  it('LISTSTATUS_BATCH with page size 2 over 5 entries → remainingEntries 3, 1, 0 with startAfter', async () => {
    mkdirSync(join(root, 'lb'));
    for (const n of ['a', 'b', 'c', 'd', 'e']) writeFileSync(join(root, 'lb', n), n);
    const page = async (after?: string): Promise<[string[], number]> => {
      const r = (await json(await fetch(q('/lb', 'LISTSTATUS_BATCH', after ? `&startAfter=${after}` : '')))) as {
        DirectoryListing: { partialListing: { FileStatuses: { FileStatus: { pathSuffix: string }[] } }; remainingEntries: number };
      };
      return [r.DirectoryListing.partialListing.FileStatuses.FileStatus.map((e) => e.pathSuffix), r.DirectoryListing.remainingEntries];
    };
    expect(await page()).toEqual([['a', 'b'], 3]);
    expect(await page('b')).toEqual([['c', 'd'], 1]);
    expect(await page('d')).toEqual([['e'], 0]);
  });

  it('GETFILESTATUS → pathSuffix ""; GETCONTENTSUMMARY counts the root directory', async () => {
    mkdirSync(join(root, 'cs', 'sub'), { recursive: true });
    writeFileSync(join(root, 'cs', 'a'), '12345');
    writeFileSync(join(root, 'cs', 'sub', 'b'), '12');
    const st = (await json(await fetch(q('/cs/a', 'GETFILESTATUS')))) as { FileStatus: Record<string, unknown> };
    expect(st.FileStatus).toMatchObject({ pathSuffix: '', type: 'FILE', length: 5, permission: expect.stringMatching(/^[0-7]{3}$/) });
    const cs = (await json(await fetch(q('/cs', 'GETCONTENTSUMMARY')))) as { ContentSummary: Record<string, unknown> };
    expect(cs.ContentSummary).toMatchObject({ directoryCount: 2, fileCount: 2, length: 7, quota: -1 });
  });

  it('per-segment decoding: %252F in the URL is a literal %2F in the name', async () => {
    const r = await fetch(`${nn}/webhdfs/v1/enc/dt%3D2024%252F01%2001?op=MKDIRS&user.name=u`, { method: 'PUT' });
    expect(r.status).toBe(200);
    expect(existsSync(join(root, 'enc', 'dt=2024%2F01 01'))).toBe(true);
  });

  it('errors: wrong method / unknown op → 400 IllegalArgumentException; JSON content type', async () => {
    const a = await fetch(q('/x', 'LISTSTATUS'), { method: 'POST' });
    expect(a.status).toBe(400);
    expect(a.headers.get('content-type')).toBe('application/json');
    expect(((await json(a)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('IllegalArgumentException');
    expect((await fetch(q('/x', 'FROBNICATE'))).status).toBe(400);
  });

  it('fault switches: standby, 503, required user.name / delegation, deny, delay, dropped OPEN', async () => {
    s.setFaults({ standby: true });
    const sb = await fetch(q('/', 'GETFILESTATUS'));
    expect(sb.status).toBe(403);
    expect(((await json(sb)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('StandbyException');
    s.setFaults({ standby: false, failNext: { count: 1, with: '503' } });
    expect((await fetch(q('/', 'GETFILESTATUS'))).status).toBe(503);
    expect((await fetch(q('/', 'GETFILESTATUS'))).status).toBe(200);
    s.setFaults({ requireUser: true });
    expect((await fetch(`${nn}/webhdfs/v1/?op=GETFILESTATUS`)).status).toBe(401);
    s.setFaults({ requireUser: false, requireDelegation: 'T0K' });
    expect((await fetch(q('/', 'GETFILESTATUS'))).status).toBe(401);
    expect((await fetch(`${nn}/webhdfs/v1/?op=GETFILESTATUS&delegation=bad`)).status).toBe(403);
    expect((await fetch(`${nn}/webhdfs/v1/?op=GETFILESTATUS&delegation=T0K`)).status).toBe(200);
    s.setFaults({ requireDelegation: undefined, deny: ['/private'] });
    const d = await fetch(q('/private/x', 'GETFILESTATUS'));
    expect(d.status).toBe(403);
    expect(((await json(d)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('AccessControlException');
    s.setFaults({ deny: [], delayMs: 150 });
    const t0 = Date.now();
    await fetch(q('/', 'GETFILESTATUS'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    s.setFaults({ delayMs: 0, dropOpen: { count: 1, bytes: 3 } });
    writeFileSync(join(root, 'drop'), 'abcdefgh');
    await expect(fetch(q('/drop', 'OPEN')).then((r) => r.arrayBuffer())).rejects.toThrow();
    expect(await (await fetch(q('/drop', 'OPEN'))).text()).toBe('abcdefgh');
  });
});

describe('test WebHDFS server (httpfs mode)', () => {
  let hroot: string;
  let h: WebHdfsServer;
  let base: string;
  beforeAll(async () => {
    hroot = mkdtempSync(join(tmpdir(), 'tblcli-httpfs-'));
    h = await startWebHdfsServer({ root: hroot, mode: 'httpfs', pageSize: 2 });
    base = `http://127.0.0.1:${h.nnPort}/webhdfs/v1`;
  });
  afterAll(async () => {
    await h.close();
    rmSync(hroot, { recursive: true, force: true });
  });

  it('one endpoint; CREATE data=true → 201 with Location header and JSON; OPEN served directly', async () => {
    expect(h.dnPort).toBe(h.nnPort);
    const r = await fetch(`${base}/f?op=CREATE&data=true&user.name=u`, {
      method: 'PUT',
      body: 'hi',
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(r.status).toBe(201);
    expect(((await json(r)) as { Location: string }).Location).toBe(`http://127.0.0.1:${h.nnPort}/webhdfs/v1/f`);
    const o = await fetch(`${base}/f?op=OPEN&user.name=u`, manual);
    expect([o.status, await o.text()]).toEqual([200, 'hi']);
  });

  it('CREATE without data=true → 307 back to itself with data=true', async () => {
    const r = await fetch(`${base}/g?op=CREATE&user.name=u`, { method: 'PUT', ...manual });
    expect(r.status).toBe(307);
    expect(r.headers.get('location')).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${h.nnPort}/.*data=true`));
  });

  it('LISTSTATUS_BATCH → whole listing in one batch (HDFS-14663); IOExceptions → 500', async () => {
    for (const n of ['a', 'b', 'c']) writeFileSync(join(hroot, n), n);
    const r = (await json(await fetch(`${base}/?op=LISTSTATUS_BATCH&user.name=u`))) as {
      DirectoryListing: { partialListing: { FileStatuses: { FileStatus: unknown[] } }; remainingEntries: number };
    };
    expect(r.DirectoryListing.remainingEntries).toBe(0);
    expect(r.DirectoryListing.partialListing.FileStatuses.FileStatus.length).toBeGreaterThanOrEqual(3);
    const e = await fetch(`${base}/a?op=MKDIRS&user.name=u`, { method: 'PUT' });
    expect(e.status).toBe(500);
    expect(((await json(e)) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('FileAlreadyExistsException');
  });
});
