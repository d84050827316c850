// WebHDFS client behaviour beyond the shared contract: request shapes, parallelism, failover,
// retries, timeouts, errors and token redaction, all against the test server.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { formatError, StorageError } from '../../src/errors/index.ts';
import { resolveLocation, type Storage, type StorageOptions } from '../../src/storage/index.ts';
import { parseWebHdfsUri, type WebHdfsStorage } from '../../src/storage/webhdfs/index.ts';
import { startWebHdfsServer, type WebHdfsServer, type WebHdfsServerOptions } from '../support/webhdfs-server.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(
  serverOpts: Partial<WebHdfsServerOptions> = {},
  opts: StorageOptions = {},
): Promise<{ server: WebHdfsServer; storage: WebHdfsStorage; root: string; open: (o?: StorageOptions) => Promise<WebHdfsStorage> }> {
  const root = mkdtempSync(join(tmpdir(), 'tblcli-whdfs-'));
  const server = await startWebHdfsServer({ root, ...serverOpts });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  cleanups.push(() => server.close());
  const open = async (o: StorageOptions = opts): Promise<WebHdfsStorage> => {
    const loc = await resolveLocation(server.uri('/'), { user: 'tblcli', retryDelayMs: 5, ...o });
    cleanups.push(() => loc.storage.close());
    return loc.storage as WebHdfsStorage;
  };
  return { server, storage: await open(), root, open };
}

async function caught(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(StorageError);
    return e as StorageError;
  }
  throw new Error('expected a StorageError');
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseWebHdfsUri', () => {
  it('webhdfs / swebhdfs / hdfs + --namenode-http / TBLCLI_WEBHDFS / HA lists → endpoints and path', () => {
    expect(parseWebHdfsUri('webhdfs://nn:50070/a/b/')).toEqual({
      scheme: 'webhdfs',
      prefix: 'webhdfs://nn:50070',
      endpoints: ['http://nn:50070'],
      path: '/a/b',
    });
    expect(parseWebHdfsUri('swebhdfs://nn/t').endpoints).toEqual(['https://nn:9871']);
    expect(parseWebHdfsUri('webhdfs://nn/t', { httpfs: true }).endpoints).toEqual(['http://nn:14000']);
    expect(parseWebHdfsUri('hdfs://ns1/w//t', { namenodeHttp: 'nn1:9870,nn2:9870' })).toEqual({
      scheme: 'hdfs',
      prefix: 'hdfs://ns1',
      endpoints: ['http://nn1:9870', 'http://nn2:9870'],
      path: '/w/t',
    });
    expect(parseWebHdfsUri('hdfs://ns1/t', { env: { TBLCLI_WEBHDFS: 'https://nn1:9871' } }).endpoints).toEqual(['https://nn1:9871']);
    expect(() => parseWebHdfsUri('hdfs://ns1/t', { env: {} })).toThrow(/NameNode HTTP address/);
  });
});

describe('WebHDFS client requests', () => {
  it('list of 10 entries with page size 3 → 4 LISTSTATUS_BATCH requests, startAfter paging, no GETFILESTATUS', async () => {
    const { server, storage, root } = await setup({ pageSize: 3 });
    mkdirSync(join(root, 'd'));
    for (let i = 0; i < 10; i++) writeFileSync(join(root, 'd', `f${i}`), 'x');
    server.requests.length = 0;
    expect((await storage.list('/d')).map((e) => e.name)).toEqual(Array.from({ length: 10 }, (_, i) => `f${i}`));
    expect(server.requests.map((r) => r.op)).toEqual(['LISTSTATUS_BATCH', 'LISTSTATUS_BATCH', 'LISTSTATUS_BATCH', 'LISTSTATUS_BATCH']);
    expect(server.requests.map((r) => r.query.startAfter)).toEqual([undefined, 'f2', 'f5', 'f8']);
  });

  it('server without LISTSTATUS_BATCH → falls back to LISTSTATUS once, remembers it', async () => {
    const { server, storage, root } = await setup({ noBatch: true });
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', 'a'), 'x');
    expect((await storage.list('/d')).map((e) => e.name)).toEqual(['a']);
    expect((await storage.list('/d')).map((e) => e.name)).toEqual(['a']);
    expect(server.requests.map((r) => r.op)).toEqual(['LISTSTATUS_BATCH', 'LISTSTATUS', 'LISTSTATUS']);
  });

  it('writeNew → CREATE step 1 with no body to the NameNode, data to the DataNode, overwrite=false, then RENAME renameoptions=NONE', async () => {
    const { server, storage, root } = await setup();
    await storage.writeNew('/t/f.bin', new Uint8Array([0, 1, 0xff, 0xfe]));
    expect([...readFileSync(join(root, 't', 'f.bin'))]).toEqual([0, 1, 0xff, 0xfe]);
    const creates = server.requests.filter((r) => r.op === 'CREATE');
    expect(creates.map((r) => [r.server, r.bodyBytes, r.status])).toEqual([
      ['nn', 0, 307],
      ['dn', 4, 201],
    ]);
    expect(creates[0]!.query.overwrite).toBe('false');
    expect(creates[0]!.path).toMatch(/^\/t\/\.tblcli-tmp-/);
    const rename = server.requests.find((r) => r.op === 'RENAME')!;
    expect(rename.query).toMatchObject({ destination: '/t/f.bin', renameoptions: 'NONE', 'user.name': 'tblcli' });
    expect(readdirSync(join(root, 't'))).toEqual(['f.bin']);
  });

  it('httpfs mode → CREATE is one request with data=true, no DataNode, boolean RENAME', async () => {
    const { server, storage } = await setup({ mode: 'httpfs' }, { httpfs: true });
    await storage.writeNew('/t/f', enc('hello'));
    expect(server.requests.filter((r) => r.op === 'CREATE').map((r) => [r.server, r.query.data, r.bodyBytes, r.status])).toEqual([
      ['nn', 'true', 5, 201],
    ]);
    expect(server.requests.find((r) => r.op === 'RENAME')!.query.renameoptions).toBeUndefined();
    expect(new TextDecoder().decode(await storage.readFile('/t/f'))).toBe('hello');
  });

  it('replace → CREATE of a temp file, then one RENAME renameoptions=OVERWRITE onto the file (no DELETE)', async () => {
    const { server, storage, root } = await setup();
    await storage.writeNew('/t/plan', enc('old plan'));
    server.requests.length = 0;
    await storage.replace!('/t/plan', enc('new'));
    expect(readFileSync(join(root, 't', 'plan'), 'utf8')).toBe('new');
    expect(server.requests.filter((r) => r.server === 'nn').map((r) => r.op)).toEqual(['GETFILESTATUS', 'CREATE', 'RENAME']);
    expect(server.requests.find((r) => r.op === 'RENAME')!.query).toMatchObject({ destination: '/t/plan', renameoptions: 'OVERWRITE' });
    expect(readdirSync(join(root, 't'))).toEqual(['plan']);
  });

  it('replace in httpfs mode (no renameoptions there) → CREATE of a temp file, DELETE of the file, RENAME of the temp file onto it', async () => {
    const { server, storage, root } = await setup({ mode: 'httpfs' }, { httpfs: true });
    await storage.writeNew('/t/plan', enc('old plan'));
    server.requests.length = 0;
    await storage.replace!('/t/plan', enc('new'));
    expect(readFileSync(join(root, 't', 'plan'), 'utf8')).toBe('new');
    expect(server.requests.map((r) => r.op)).toEqual(['GETFILESTATUS', 'CREATE', 'GETFILESTATUS', 'DELETE', 'GETFILESTATUS', 'RENAME']);
    expect(server.requests.find((r) => r.op === 'RENAME')!.query.renameoptions).toBeUndefined();
    expect(readdirSync(join(root, 't'))).toEqual(['plan']);
  });

  it('replace where the server ignores renameoptions (the old boolean RENAME: false, nothing moved) → DELETE, then RENAME of the temp file', async () => {
    const { server, storage, root } = await setup({ mode: 'httpfs' });
    // written beside the client: its first RENAME is the replace's
    mkdirSync(join(root, 't'));
    writeFileSync(join(root, 't', 'plan'), 'old plan');
    await storage.replace!('/t/plan', enc('new'));
    expect(readFileSync(join(root, 't', 'plan'), 'utf8')).toBe('new');
    const renames = server.requests.filter((r) => r.op === 'RENAME');
    expect(renames.map((r) => r.query.renameoptions)).toEqual(['OVERWRITE', undefined]);
    expect(server.requests.map((r) => r.op)).toContain('DELETE');
    expect(readdirSync(join(root, 't'))).toEqual(['plan']);
  });

  it('replace: RENAME response lost after it ran → the temp file is gone, so done; not resent', async () => {
    const { server, storage, root } = await setup();
    await storage.writeNew('/t/plan', enc('old plan'));
    server.setFaults({ failNext: { count: 1, with: 'reset-after', ops: ['RENAME'] } });
    server.requests.length = 0;
    await storage.replace!('/t/plan', enc('new'));
    expect(server.requests.filter((r) => r.op === 'RENAME')).toHaveLength(1);
    expect(readFileSync(join(root, 't', 'plan'), 'utf8')).toBe('new');
    expect(readdirSync(join(root, 't'))).toEqual(['plan']);
  });

  it('readRange → OPEN with offset and length', async () => {
    const { server, storage, root } = await setup();
    writeFileSync(join(root, 'f'), 'abcdefgh');
    expect(new TextDecoder().decode(await storage.readRange('/f', 2, 3))).toBe('cde');
    expect(server.requests.map((r) => [r.server, r.op, r.query.offset, r.query.length])).toEqual([
      ['nn', 'OPEN', '2', '3'],
      ['dn', 'OPEN', '2', '3'],
    ]);
  });

  it('32 parallel readFile calls with 50 ms latency → overlap up to 16 in flight, never more', async () => {
    const { server, storage, root } = await setup({ faults: { delayMs: 50 } });
    for (let i = 0; i < 32; i++) writeFileSync(join(root, `f${i}`), String(i));
    const t0 = Date.now();
    const got = await Promise.all(Array.from({ length: 32 }, (_, i) => storage.readFile(`/f${i}`)));
    const ms = Date.now() - t0;
    expect(got.map((b) => new TextDecoder().decode(b))).toEqual(Array.from({ length: 32 }, (_, i) => String(i)));
    expect(server.stats.maxInFlight).toBe(16);
    // 64 exchanges of 50 ms: sequential would take 3.2 s.
    expect(ms).toBeLessThan(1600);
  });

  it('--concurrency 4 → at most 4 requests in flight', async () => {
    const { server, open, root } = await setup({ faults: { delayMs: 20 } });
    const storage = await open({ concurrency: 4 });
    for (let i = 0; i < 12; i++) writeFileSync(join(root, `f${i}`), 'x');
    await Promise.all(Array.from({ length: 12 }, (_, i) => storage.stat(`/f${i}`)));
    expect(server.stats.maxInFlight).toBe(4);
  });

  it('user.name and doas → sent on every request; a delegation token replaces them', async () => {
    const { server, open } = await setup();
    const a = await open({ user: 'alice', doAs: 'hive' });
    await a.exists('/x');
    expect(server.requests.at(-1)!.query).toMatchObject({ 'user.name': 'alice', doas: 'hive' });
    const b = await open({ user: undefined, env: { HADOOP_USER_NAME: 'bob' } });
    await b.exists('/x');
    expect(server.requests.at(-1)!.query['user.name']).toBe('bob');
    const c = await open({ env: { HADOOP_TOKEN: 'tok-from-env' } });
    await c.exists('/x');
    expect(server.requests.at(-1)!.query.delegation).toBe('tok-from-env');
    expect(server.requests.at(-1)!.query['user.name']).toBeUndefined();
  });
});

describe('WebHDFS client faults', () => {
  it('standby NameNode first in the list → fails over to the active one and stays there', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tblcli-ha-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const standby = await startWebHdfsServer({ root, faults: { standby: true } });
    const active = await startWebHdfsServer({ root });
    cleanups.push(() => standby.close(), () => active.close());
    writeFileSync(join(root, 'f'), 'data');
    const debug: string[] = [];
    const loc = await resolveLocation('hdfs://ns1/f', {
      namenodeHttp: `${standby.authority},${active.authority}`,
      debug: (m) => debug.push(m),
      retryDelayMs: 5,
    });
    cleanups.push(() => loc.storage.close());
    expect(new TextDecoder().decode(await loc.storage.readFile(loc.path))).toBe('data');
    expect(await loc.storage.exists('/f')).toBe(true);
    await loc.storage.writeNew('/g', enc('new'));
    expect(standby.requests.map((r) => [r.op, r.status])).toEqual([['OPEN', 403]]);
    expect(active.requests.filter((r) => r.server === 'nn').map((r) => r.op)).toEqual(['OPEN', 'GETFILESTATUS', 'CREATE', 'RENAME']);
    expect(debug.some((m) => m.includes(`failover to http://${active.authority}`))).toBe(true);
    expect(loc.storage.uri('/f')).toBe('hdfs://ns1/f');
  });

  it('every NameNode standby → unavailable after retries, naming StandbyException', async () => {
    const { storage, server } = await setup({ faults: { standby: true } }, { retries: 2 });
    const e = await caught(storage.stat('/f'));
    expect(e.code).toBe('unavailable');
    expect(e.remoteException).toBe('StandbyException');
    expect(server.requests).toHaveLength(3);
  });

  it.each(['retriable', '503', 'reset'] as const)('%s twice, then success → retried with backoff, result correct', async (kind) => {
    const { storage, server, root } = await setup({ faults: { failNext: { count: 2, with: kind } } });
    writeFileSync(join(root, 'f'), 'ok');
    expect((await storage.stat('/f')).size).toBe(2);
    expect(server.requests.map((r) => r.op)).toEqual(['GETFILESTATUS', 'GETFILESTATUS', 'GETFILESTATUS']);
  });

  it('connection dropped mid-OPEN on the DataNode → OPEN retried, bytes intact', async () => {
    const { storage, server, root } = await setup({ faults: { dropOpen: { count: 1, bytes: 1000 } } });
    const data = Buffer.alloc(100_000).map((_, i) => i % 256);
    writeFileSync(join(root, 'big'), data);
    expect(Buffer.from(await storage.readFile('/big')).equals(data)).toBe(true);
    expect(server.requests.filter((r) => r.server === 'dn').length).toBe(2);
  });

  it('retries exhausted → one-line unavailable error naming the op, the URI and the attempts', async () => {
    const { storage, server } = await setup({ faults: { failNext: { count: 100, with: '503' } } }, { retries: 2 });
    const e = await caught(storage.list('/tbl/.hoodie'));
    expect(e.code).toBe('unavailable');
    expect(e.status).toBe(503);
    expect(e.message).toBe(`list ${server.uri('/tbl/.hoodie')}: service unavailable (LISTSTATUS_BATCH → HTTP 503; gave up after 3 attempts)`);
    expect(formatError(e, false)).toBe(`error: ${e.message}`);
  });

  it('slow server → timeout error after the retries', async () => {
    const { storage } = await setup({ faults: { delayMs: 400 } }, { timeoutMs: 100, retries: 1 });
    const t0 = Date.now();
    const e = await caught(storage.stat('/f'));
    expect(e.code).toBe('timeout');
    expect(e.message).toMatch(/no response within 100 ms; gave up after 2 attempts/);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('AccessControlException (403) → permission-denied, not retried, message names path and exception', async () => {
    const { storage, server } = await setup({ faults: { deny: ['/secure'] } });
    const e = await caught(storage.readFile('/secure/t/f'));
    expect(e.code).toBe('permission-denied');
    expect(e.remoteException).toBe('AccessControlException');
    expect(e.status).toBe(403);
    expect(e.message).toMatch(new RegExp(`^read ${server.uri('/secure/t/f')}: permission denied \\(OPEN → AccessControlException: Permission denied: user=tblcli`));
    expect(server.requests).toHaveLength(1);
  });

  it('exceptions switch on the RemoteException class, not the status (HttpFS answers 500 for FileAlreadyExists)', async () => {
    const { storage } = await setup({ mode: 'httpfs' }, { httpfs: true });
    await storage.writeNew('/a', enc('1'));
    await storage.mkdirs('/a2');
    const e = await caught(storage.mkdirs('/a'));
    expect(e.code).toBe('already-exists');
    expect(e.status).toBe(500);
  });

  it('RENAME response lost after it ran → state checked, not resent, success', async () => {
    const { storage, server } = await setup();
    await storage.writeNew('/a', enc('A'));
    server.setFaults({ failNext: { count: 1, with: 'reset-after', ops: ['RENAME'] } });
    server.requests.length = 0;
    await storage.rename('/a', '/b');
    expect(server.requests.filter((r) => r.op === 'RENAME')).toHaveLength(1);
    expect(new TextDecoder().decode(await storage.readFile('/b'))).toBe('A');
  });

  it('RENAME connection reset before it ran → state checked, then resent once', async () => {
    const { storage, server } = await setup();
    await storage.writeNew('/a', enc('A'));
    server.setFaults({ failNext: { count: 1, with: 'reset', ops: ['RENAME'] } });
    server.requests.length = 0;
    await storage.rename('/a', '/b');
    expect(server.requests.filter((r) => r.op === 'RENAME')).toHaveLength(2);
    expect(await storage.exists('/a')).toBe(false);
  });

  it('APPEND data leg lost after it ran → length checked, data not appended twice', async () => {
    const { storage, server, root } = await setup();
    writeFileSync(join(root, 'log'), 'ab');
    server.setFaults({ failNext: { count: 1, with: 'reset-after', ops: ['APPEND'], server: 'dn' } });
    await storage.append('/log', enc('cd'));
    expect(readFileSync(join(root, 'log'), 'utf8')).toBe('abcd');
  });

  it('CREATE data leg lost after it ran → temp file checked, target written once', async () => {
    const { storage, server, root } = await setup();
    server.setFaults({ failNext: { count: 1, with: 'reset-after', ops: ['CREATE'], server: 'dn' } });
    await storage.writeNew('/t/f', enc('xyz'));
    expect(readFileSync(join(root, 't', 'f'), 'utf8')).toBe('xyz');
    expect(readdirSync(join(root, 't'))).toEqual(['f']);
    expect(server.requests.filter((r) => r.op === 'CREATE' && r.server === 'dn')).toHaveLength(1);
  });

  it('delegation token → accepted; never appears in errors, --debug output or the cause chain', async () => {
    const TOKEN = 'HAAEaGRmcwRoZGZzAIoBk-SECRET-TOKEN-9f8e7d';
    const { server, open } = await setup({ faults: { requireDelegation: TOKEN, deny: ['/secure'] } });
    const debug: string[] = [];
    const s: Storage = await open({ delegationToken: TOKEN, debug: (m) => debug.push(m), retries: 1 });
    await s.writeNew('/t/f', enc('v'));
    expect(new TextDecoder().decode(await s.readFile('/t/f'))).toBe('v');
    expect(server.requests.every((r) => r.query.delegation === TOKEN)).toBe(true);
    const errors: StorageError[] = [];
    errors.push(await caught(s.readFile('/secure/x')));
    errors.push(await caught(s.stat('/missing')));
    server.setFaults({ failNext: { count: 10, with: '503' } });
    errors.push(await caught(s.list('/t')));
    server.setFaults({ failNext: { count: 0, with: '503' }, delayMs: 300 });
    const slow = await open({ delegationToken: TOKEN, debug: (m) => debug.push(m), retries: 0, timeoutMs: 50 });
    errors.push(await caught(slow.stat('/t')));
    server.setFaults({ delayMs: 0 });
    // A wrong token: the server's answer must not echo it either.
    const WRONG = 'WRONG-TOKEN-abcdef123456';
    const bad = await open({ delegationToken: WRONG, debug: (m) => debug.push(m) });
    const eBad = await caught(bad.stat('/t'));
    expect(eBad.code).toBe('permission-denied');
    errors.push(eBad);
    const text = [...debug, ...errors.map((e) => formatError(e, true)), ...errors.map((e) => JSON.stringify(e))].join('\n');
    expect(debug.length).toBeGreaterThan(5);
    expect(text).toContain('delegation=***');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(WRONG);
  });

  it('token file → read (plain or GETDELEGATIONTOKEN JSON)', async () => {
    const { server, open, root } = await setup({ faults: { requireDelegation: 'tok-file-123' } });
    const f = join(root, '..', `${Date.now()}-tok.json`);
    writeFileSync(f, JSON.stringify({ Token: { urlString: 'tok-file-123' } }));
    cleanups.push(() => rmSync(f, { force: true }));
    const s = await open({ tokenFile: f });
    expect(await s.exists('/nope')).toBe(false);
    expect(server.requests.at(-1)!.query.delegation).toBe('tok-file-123');
  });

  it('no --user and no HADOOP_USER_NAME → the OS user is sent as user.name', async () => {
    const { server, open } = await setup({ faults: { requireUser: true } });
    const s = await open({ user: undefined, env: {} });
    expect(await s.exists('/nope')).toBe(false);
    expect(server.requests.at(-1)!.query['user.name']).toBe(userInfo().username);
  });

  it('401 (token required, none given) → permission-denied, not retried', async () => {
    const { server, storage } = await setup({ faults: { requireDelegation: 'needed-token' } });
    const e = await caught(storage.stat('/'));
    expect(e.code).toBe('permission-denied');
    expect(e.status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });
});

const HAVE_OPENSSL = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!HAVE_OPENSSL)('swebhdfs', () => {
  it('https with --ca-file → works; without the CA → certificate error, not retried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-tls-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    const root = join(dir, 'root');
    mkdirSync(root);
    writeFileSync(join(root, 'f'), 'secure bytes');
    const server = await startWebHdfsServer({
      root,
      tls: { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    });
    cleanups.push(() => server.close());
    expect(server.uri('/f')).toMatch(/^swebhdfs:/);
    const good = await resolveLocation(server.uri('/f'), { caFile: join(dir, 'cert.pem'), user: 'u' });
    cleanups.push(() => good.storage.close());
    expect(new TextDecoder().decode(await good.storage.readFile('/f'))).toBe('secure bytes');
    const bad = await resolveLocation(server.uri('/f'), { user: 'u', retryDelayMs: 5 });
    cleanups.push(() => bad.storage.close());
    const before = server.requests.length;
    const e = await caught(bad.storage.readFile('/f'));
    expect(e.code).toBe('unavailable');
    expect(e.message).toMatch(/SELF_SIGNED|CERT/);
    expect(e.message).not.toMatch(/gave up/);
    expect(server.requests.length).toBe(before);
  });
});
