// A faithful WebHDFS test server over a real directory (no Hadoop can run here). It follows
// shared/reference/webhdfs.md: a NameNode and a DataNode listener on different 127.0.0.1 ports,
// 307 redirects for OPEN/CREATE/APPEND, boolean results as HDFS gives them, RemoteException bodies
// with Hadoop's status mapping, LISTSTATUS_BATCH paging, fault switches, and an HttpFS mode.
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';

/** 'reset' drops the connection before the op runs; 'reset-after' runs it, then drops the connection. */
export type FaultKind = 'standby' | 'retriable' | '503' | 'reset' | 'reset-after';

export interface Faults {
  /** This NameNode is the standby of an HA pair: every NameNode request → 403 StandbyException. */
  standby?: boolean;
  /** The next `count` requests to `server` (default 'nn'; only ops in `ops`, when given) fail `with`. */
  failNext?: { count: number; with: FaultKind; ops?: string[]; server?: 'nn' | 'dn' };
  /** The next `count` DataNode OPENs send `bytes` bytes of the body, then drop the connection. */
  dropOpen?: { count: number; bytes: number };
  /** Delay before answering every request (NameNode and DataNode), in ms. */
  delayMs?: number;
  /** Every request must carry `delegation=<token>`: missing → 401, wrong → 403 InvalidToken. */
  requireDelegation?: string;
  /** A request without `user.name` (and without `delegation`) → 401. */
  requireUser?: boolean;
  /** Paths at or below these prefixes → 403 AccessControlException. */
  deny?: string[];
}

export interface WebHdfsServerOptions {
  root: string;
  /** dfs.ls.limit: entries per LISTSTATUS_BATCH page (default 1000). */
  pageSize?: number;
  mode?: 'webhdfs' | 'httpfs';
  /** Behave like a server without LISTSTATUS_BATCH (Hadoop before 2.9 / 3.0). */
  noBatch?: boolean;
  faults?: Faults;
  /** Serve https (swebhdfs) with this key/cert on both listeners. */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface RequestLog {
  server: 'nn' | 'dn';
  method: string;
  /** upper-cased op, '' when absent */
  op: string;
  /** decoded HDFS path */
  path: string;
  query: Record<string, string>;
  /** request body bytes received (and discarded, on the NameNode) */
  bodyBytes: number;
  status: number;
}

export interface WebHdfsServer {
  nnPort: number;
  dnPort: number;
  /** webhdfs://127.0.0.1:<nnPort><path> (swebhdfs:// with tls) */
  uri(path: string): string;
  /** `127.0.0.1:<nnPort>` */
  authority: string;
  requests: RequestLog[];
  /** requests being served right now, and the most ever at once (parallelism checks) */
  stats: { inFlight: number; maxInFlight: number };
  setFaults(f: Partial<Faults>): void;
  close(): Promise<void>;
}

class RemoteError extends Error {
  constructor(
    readonly status: number,
    readonly exception: string,
    readonly javaClassName: string,
    message: string,
  ) {
    super(message);
  }
}

const JAVA: Record<string, string> = {
  FileNotFoundException: 'java.io.FileNotFoundException',
  FileAlreadyExistsException: 'org.apache.hadoop.fs.FileAlreadyExistsException',
  AccessControlException: 'org.apache.hadoop.security.AccessControlException',
  PathIsNotEmptyDirectoryException: 'org.apache.hadoop.fs.PathIsNotEmptyDirectoryException',
  ParentNotDirectoryException: 'org.apache.hadoop.fs.ParentNotDirectoryException',
  StandbyException: 'org.apache.hadoop.ipc.StandbyException',
  RetriableException: 'org.apache.hadoop.ipc.RetriableException',
  IllegalArgumentException: 'java.lang.IllegalArgumentException',
  UnsupportedOperationException: 'java.lang.UnsupportedOperationException',
  SecurityException: 'java.lang.SecurityException',
  InvalidToken: 'org.apache.hadoop.security.token.SecretManager$InvalidToken',
  EOFException: 'java.io.EOFException',
  IOException: 'java.io.IOException',
};

type Mode = 'webhdfs' | 'httpfs';

/** Hadoop's ExceptionHandler (WebHDFS) / HttpFSExceptionProvider (HttpFS) status mapping. */
function statusFor(exception: string, mode: Mode): number {
  switch (exception) {
    case 'IllegalArgumentException':
    case 'UnsupportedOperationException':
      return 400;
    case 'FileNotFoundException':
      return 404;
    case 'SecurityException':
      return mode === 'httpfs' ? 401 : 403;
    case 'AccessControlException':
      return 403;
    default:
      // every other IOException: 403 on WebHDFS, 500 on HttpFS
      return mode === 'httpfs' ? 500 : 403;
  }
}

function remote(mode: Mode, exception: string, message: string): RemoteError {
  return new RemoteError(statusFor(exception, mode), exception, JAVA[exception] ?? `java.io.${exception}`, message);
}

const GET_OPS = new Set(['GETFILESTATUS', 'LISTSTATUS', 'LISTSTATUS_BATCH', 'OPEN', 'GETCONTENTSUMMARY', 'GETHOMEDIRECTORY']);
const PUT_OPS = new Set(['CREATE', 'MKDIRS', 'RENAME']);
const POST_OPS = new Set(['APPEND']);
const DELETE_OPS = new Set(['DELETE']);
const OPS_BY_METHOD: Record<string, { set: Set<string>; cls: string }> = {
  GET: { set: GET_OPS, cls: 'GetOpParam' },
  PUT: { set: PUT_OPS, cls: 'PutOpParam' },
  POST: { set: POST_OPS, cls: 'PostOpParam' },
  DELETE: { set: DELETE_OPS, cls: 'DeleteOpParam' },
};

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) {
    res.writeHead(status, { 'Content-Length': '0', ...headers });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function sendError(res: http.ServerResponse, e: RemoteError): void {
  send(res, e.status, { RemoteException: { exception: e.exception, javaClassName: e.javaClassName, message: e.message } });
}

/** Reads and discards (or collects) a request body; returns the bytes. */
async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startWebHdfsServer(options: WebHdfsServerOptions): Promise<WebHdfsServer> {
  const root = nodePath.resolve(options.root);
  const mode: Mode = options.mode ?? 'webhdfs';
  const pageSize = options.pageSize ?? 1000;
  let faults: Faults = { ...options.faults };
  const requests: RequestLog[] = [];
  const stats = { inFlight: 0, maxInFlight: 0 };
  const scheme = options.tls ? 'https' : 'http';
  let nnPort = 0;
  let dnPort = 0;

  const fsPath = (p: string): string => nodePath.join(root, p);
  const lstat = async (p: string): Promise<fs.Stats | undefined> => {
    try {
      return await fsp.stat(fsPath(p));
    } catch {
      return undefined;
    }
  };

  const fileStatus = async (p: string, suffix: string, st: fs.Stats): Promise<Record<string, unknown>> => {
    const dir = st.isDirectory();
    return {
      accessTime: dir ? 0 : Math.floor(st.atimeMs),
      blockSize: dir ? 0 : 134217728,
      childrenNum: dir ? (await fsp.readdir(fsPath(p))).length : 0,
      fileId: st.ino,
      group: 'supergroup',
      length: dir ? 0 : st.size,
      modificationTime: Math.floor(st.mtimeMs),
      owner: 'hdfs',
      pathSuffix: suffix,
      permission: (st.mode & 0o777).toString(8),
      replication: dir ? 0 : 3,
      storagePolicy: 0,
      type: dir ? 'DIRECTORY' : 'FILE',
    };
  };

  const childPath = (dir: string, name: string): string => (dir === '/' ? `/${name}` : `${dir}/${name}`);

  /** Sorted entries of a directory (HDFS byte order), or the file itself with pathSuffix "". */
  const listing = async (p: string, st: fs.Stats): Promise<Record<string, unknown>[]> => {
    if (!st.isDirectory()) return [await fileStatus(p, '', st)];
    const names = (await fsp.readdir(fsPath(p))).sort(byteCompare);
    const out: Record<string, unknown>[] = [];
    for (const n of names) {
      const cst = await lstat(childPath(p, n));
      if (cst) out.push(await fileStatus(childPath(p, n), n, cst));
    }
    return out;
  };

  // Sorted child names per directory, reused while the directory is unchanged (paging a 60,000-entry
  // .hoodie would otherwise re-sort it for every page).
  // Keyed by the directory's mtime (nanosecond-derived on Linux), which every add/remove changes.
  const nameCache = new Map<string, { mtimeMs: number; names: string[] }>();
  const sortedNames = async (p: string, st: fs.Stats): Promise<string[]> => {
    const hit = nameCache.get(p);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit.names;
    const names = (await fsp.readdir(fsPath(p)))
      .map((n) => ({ n, b: Buffer.from(n) }))
      .sort((x, y) => Buffer.compare(x.b, y.b))
      .map((x) => x.n);
    nameCache.set(p, { mtimeMs: st.mtimeMs, names });
    return names;
  };
  /** index of the first name byte-greater than `after` (binary search) */
  const firstAfter = (names: string[], after: string): number => {
    let lo = 0;
    let hi = names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byteCompare(names[mid]!, after) > 0) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };

  const mustExist = async (p: string): Promise<fs.Stats> => {
    const st = await lstat(p);
    if (!st) throw remote(mode, 'FileNotFoundException', `File does not exist: ${p}`);
    return st;
  };

  const parentDirMustExist = async (p: string): Promise<void> => {
    const parent = nodePath.posix.dirname(p);
    const st = await lstat(parent);
    if (st && !st.isDirectory()) throw remote(mode, 'ParentNotDirectoryException', `Parent path is not a directory: ${parent}`);
  };

  // --- request parsing ---------------------------------------------------------------------

  interface Parsed {
    method: string;
    op: string;
    path: string;
    query: URLSearchParams;
  }

  const parse = (req: http.IncomingMessage): Parsed => {
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = url.pathname;
    if (!raw.startsWith('/webhdfs/v1')) throw remote(mode, 'IllegalArgumentException', `Invalid path: ${raw}`);
    // Per-segment decode, as Jetty/Netty do: a literal "%2F" in a name arrives as "%252F".
    const segs = raw
      .slice('/webhdfs/v1'.length)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
    if (segs.some((s) => s === '..' || s === '.' || s.includes('/'))) {
      throw remote(mode, 'IllegalArgumentException', `Invalid path name ${raw}`);
    }
    const query = url.searchParams;
    // Query parameter names are case-insensitive in WebHDFS; normalise the ones we read.
    const lower = new URLSearchParams();
    for (const [k, v] of query) lower.append(k.toLowerCase(), v);
    return { method: req.method ?? 'GET', op: (lower.get('op') ?? '').toUpperCase(), path: `/${segs.join('/')}`, query: lower };
  };

  const checkAuth = (q: URLSearchParams): void => {
    const token = q.get('delegation');
    if (faults.requireDelegation !== undefined) {
      if (!token) throw new RemoteError(401, 'SecurityException', JAVA.SecurityException!, 'Authentication required');
      if (token !== faults.requireDelegation) {
        throw new RemoteError(403, 'InvalidToken', JAVA.InvalidToken!, 'token (HDFS_DELEGATION_TOKEN token 17 for tblcli) can\'t be found in cache');
      }
    }
    if (faults.requireUser && !token && !q.get('user.name')) {
      throw new RemoteError(401, 'SecurityException', JAVA.SecurityException!, 'Authentication required');
    }
  };

  const checkDeny = (p: string, user: string): void => {
    for (const prefix of faults.deny ?? []) {
      if (p === prefix || p.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) {
        throw remote(mode, 'AccessControlException', `Permission denied: user=${user}, access=ALL, inode="${prefix}":hdfs:supergroup:drwx------`);
      }
    }
  };

  const dataNodeUrl = (parsed: Parsed, extra: Record<string, string> = {}): string => {
    const q = new URLSearchParams(parsed.query);
    q.set('op', parsed.op);
    q.set('namenoderpcaddress', '127.0.0.1:8020');
    for (const [k, v] of Object.entries(extra)) q.set(k, v);
    const port = mode === 'httpfs' ? nnPort : dnPort;
    return `${scheme}://127.0.0.1:${port}/webhdfs/v1${encodePath(parsed.path)}?${q.toString()}`;
  };

  const redirect = (res: http.ServerResponse, parsed: Parsed, location: string): void => {
    if (parsed.query.get('noredirect') === 'true') send(res, 200, { Location: location });
    else send(res, 307, undefined, { Location: location });
  };

  // --- data operations (DataNode, or HttpFS itself) ----------------------------------------

  const serveOpen = async (res: http.ServerResponse, parsed: Parsed): Promise<void> => {
    const st = await mustExist(parsed.path);
    if (st.isDirectory()) throw remote(mode, 'FileNotFoundException', `Path is not a file: ${parsed.path}`);
    const offset = Number(parsed.query.get('offset') ?? '0');
    const lenParam = parsed.query.get('length');
    if (!Number.isInteger(offset) || offset < 0) {
      throw remote(mode, 'IllegalArgumentException', `Invalid value for webhdfs parameter "offset": ${parsed.query.get('offset')}`);
    }
    if (offset > st.size) throw remote(mode, 'EOFException', 'Cannot seek after EOF');
    const len = lenParam === null ? st.size - offset : Math.min(Number(lenParam), st.size - offset);
    const body = Buffer.alloc(len);
    if (len > 0) {
      const fh = await fsp.open(fsPath(parsed.path), 'r');
      try {
        await fh.read(body, 0, len, offset);
      } finally {
        await fh.close();
      }
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(len) });
    const drop = faults.dropOpen;
    if (drop && drop.count > 0) {
      drop.count -= 1;
      res.write(body.subarray(0, Math.min(drop.bytes, len)));
      setTimeout(() => res.socket?.destroy(), 10);
      return;
    }
    res.end(body);
  };

  const serveCreate = async (res: http.ServerResponse, parsed: Parsed, body: Buffer): Promise<void> => {
    const p = parsed.path;
    const overwrite = (parsed.query.get('overwrite') ?? 'false') === 'true';
    const st = await lstat(p);
    if (st?.isDirectory()) throw remote(mode, 'FileAlreadyExistsException', `${p} already exists as a directory`);
    await parentDirMustExist(p);
    await fsp.mkdir(nodePath.dirname(fsPath(p)), { recursive: true });
    let fh: fsp.FileHandle;
    try {
      // The file is visible while being written, as an HDFS file under construction is.
      fh = await fsp.open(fsPath(p), overwrite ? 'w' : 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw remote(mode, 'FileAlreadyExistsException', `${p} for client 127.0.0.1 already exists`);
      }
      throw e;
    }
    try {
      await fh.write(body);
    } finally {
      await fh.close();
    }
    const loc = mode === 'httpfs' ? `${scheme}://127.0.0.1:${nnPort}/webhdfs/v1${encodePath(p)}` : `hdfs://127.0.0.1:8020${p}`;
    if (mode === 'httpfs') send(res, 201, { Location: loc }, { Location: loc });
    else send(res, 201, undefined, { Location: loc });
  };

  const serveAppend = async (res: http.ServerResponse, parsed: Parsed, body: Buffer): Promise<void> => {
    const st = await mustExist(parsed.path);
    if (st.isDirectory()) throw remote(mode, 'FileNotFoundException', `Failed to append to non-existent file ${parsed.path}`);
    await fsp.appendFile(fsPath(parsed.path), body);
    send(res, 200);
  };

  // --- namespace operations (NameNode) -----------------------------------------------------

  const rename = async (res: http.ServerResponse, parsed: Parsed): Promise<void> => {
    const src = parsed.path;
    const dstRaw = parsed.query.get('destination');
    if (!dstRaw || !dstRaw.startsWith('/')) {
      throw remote(mode, 'IllegalArgumentException', `Invalid value for webhdfs parameter "destination": ${dstRaw ?? 'null'}`);
    }
    const dst = nodePath.posix.normalize(dstRaw).replace(/(.)\/$/, '$1');
    const options = mode === 'webhdfs' ? parsed.query.get('renameoptions') : null; // HttpFS ignores it
    const sst = await lstat(src);
    const dst0 = await lstat(dst);
    const dparent = await lstat(nodePath.posix.dirname(dst));
    const inside = dst === src || dst.startsWith(`${src}/`);
    if (options !== null) {
      // rename2: typed failures, never moves into a directory.
      const opts = options.toUpperCase().split(',');
      if (!sst) throw remote(mode, 'FileNotFoundException', `rename source ${src} is not found.`);
      if (inside) throw remote(mode, 'IOException', `Rename destination ${dst} is a directory or file under source ${src}`);
      if (!dparent) throw remote(mode, 'FileNotFoundException', `rename destination parent ${nodePath.posix.dirname(dst)} not found.`);
      if (!dparent.isDirectory()) throw remote(mode, 'ParentNotDirectoryException', `rename destination parent ${nodePath.posix.dirname(dst)} is a file.`);
      if (dst0) {
        const emptyDir = dst0.isDirectory() && (await fsp.readdir(fsPath(dst))).length === 0;
        if (!opts.includes('OVERWRITE')) throw remote(mode, 'FileAlreadyExistsException', `rename destination ${dst} already exists.`);
        if (dst0.isDirectory() !== sst.isDirectory()) throw remote(mode, 'IOException', `Source ${src} and destination ${dst} must both be directories`);
        if (dst0.isDirectory() && !emptyDir) throw remote(mode, 'IOException', `rename destination directory is not empty: ${dst}`);
        await fsp.rm(fsPath(dst), { recursive: true });
      }
      await fsp.rename(fsPath(src), fsPath(dst));
      send(res, 200);
      return;
    }
    // Old rename: {"boolean": false} instead of exceptions; moves into an existing directory.
    let target = dst;
    if (dst0?.isDirectory() && !inside) target = childPath(dst, nodePath.posix.basename(src));
    const tst = target === dst ? dst0 : await lstat(target);
    const ok = !!sst && !inside && !!dparent && dparent.isDirectory() && !(tst && target !== src);
    if (ok) await fsp.rename(fsPath(src), fsPath(target));
    send(res, 200, { boolean: ok || (!!sst && src === dst) });
  };

  const contentSummary = async (p: string): Promise<{ directoryCount: number; fileCount: number; length: number }> => {
    const sum = { directoryCount: 0, fileCount: 0, length: 0 };
    const walk = async (q: string): Promise<void> => {
      const st = await fsp.stat(fsPath(q));
      if (!st.isDirectory()) {
        sum.fileCount += 1;
        sum.length += st.size;
        return;
      }
      sum.directoryCount += 1;
      for (const n of await fsp.readdir(fsPath(q))) await walk(childPath(q, n));
    };
    await walk(p);
    return sum;
  };

  const nameNode = async (req: http.IncomingMessage, res: http.ServerResponse, parsed: Parsed, user: string): Promise<void> => {
    const { op, path: p, query: q } = parsed;
    switch (op) {
      case 'GETFILESTATUS':
        send(res, 200, { FileStatus: await fileStatus(p, '', await mustExist(p)) });
        return;
      case 'LISTSTATUS':
        send(res, 200, { FileStatuses: { FileStatus: await listing(p, await mustExist(p)) } });
        return;
      case 'LISTSTATUS_BATCH': {
        const st = await mustExist(p);
        const after = q.get('startafter');
        // Names first, FileStatus only for the page: a NameNode does not stat what it does not return.
        const names = st.isDirectory() ? await sortedNames(p, st) : [''];
        const rest = after === null ? names : names.slice(firstAfter(names, after));
        const pageNames = mode === 'httpfs' ? rest : rest.slice(0, pageSize); // HttpFS: one batch (HDFS-14663)
        const page: Record<string, unknown>[] = [];
        for (const n of pageNames) {
          const cp = n === '' ? p : childPath(p, n);
          const cst = await lstat(cp);
          if (cst) page.push(await fileStatus(cp, n, cst));
        }
        send(res, 200, {
          DirectoryListing: { partialListing: { FileStatuses: { FileStatus: page } }, remainingEntries: rest.length - pageNames.length },
        });
        return;
      }
      case 'GETCONTENTSUMMARY': {
        await mustExist(p);
        const s = await contentSummary(p);
        send(res, 200, {
          ContentSummary: { ...s, quota: -1, spaceConsumed: s.length * 3, spaceQuota: -1, typeQuota: {}, ecPolicy: '' },
        });
        return;
      }
      case 'GETHOMEDIRECTORY':
        send(res, 200, { Path: `/user/${user}` });
        return;
      case 'MKDIRS': {
        let cur = '';
        for (const seg of p.split('/').filter(Boolean)) {
          cur += `/${seg}`;
          const st = await lstat(cur);
          if (st && !st.isDirectory()) {
            if (cur === p) throw remote(mode, 'FileAlreadyExistsException', `Path is not a directory: ${p}`);
            throw remote(mode, 'ParentNotDirectoryException', `Parent path is not a directory: ${cur}`);
          }
        }
        await fsp.mkdir(fsPath(p), { recursive: true });
        send(res, 200, { boolean: true });
        return;
      }
      case 'RENAME':
        await rename(res, parsed);
        return;
      case 'DELETE': {
        const st = await lstat(p);
        if (!st || p === '/') {
          send(res, 200, { boolean: false });
          return;
        }
        if (st.isDirectory()) {
          const recursive = (q.get('recursive') ?? 'false') === 'true';
          if (!recursive && (await fsp.readdir(fsPath(p))).length > 0) {
            throw remote(mode, 'PathIsNotEmptyDirectoryException', `\`${p} is non empty': Directory is not empty`);
          }
          await fsp.rm(fsPath(p), { recursive: true });
        } else {
          await fsp.unlink(fsPath(p));
        }
        send(res, 200, { boolean: true });
        return;
      }
      case 'OPEN': {
        const st = await mustExist(p);
        if (st.isDirectory()) throw remote(mode, 'FileNotFoundException', `Path is not a file: ${p}`);
        if (mode === 'httpfs') await serveOpen(res, parsed);
        else redirect(res, parsed, dataNodeUrl(parsed));
        return;
      }
      case 'CREATE':
      case 'APPEND': {
        if (op === 'APPEND') {
          const st = await mustExist(p);
          if (st.isDirectory()) throw remote(mode, 'FileNotFoundException', `Failed to append to non-existent file ${p}`);
        }
        if (mode === 'httpfs') {
          if (q.get('data') === 'true') {
            const body = await readBody(req);
            lastBody.set(req, body.length);
            if (op === 'CREATE') await serveCreate(res, parsed, body);
            else await serveAppend(res, parsed, body);
          } else {
            redirect(res, parsed, dataNodeUrl(parsed, { data: 'true' }));
          }
          return;
        }
        redirect(res, parsed, dataNodeUrl(parsed));
        return;
      }
      default:
        throw remote(mode, 'IllegalArgumentException', `Invalid value for webhdfs parameter "op": No enum constant ${op}`);
    }
  };

  const lastBody = new WeakMap<http.IncomingMessage, number>();

  const injectFault = (res: http.ServerResponse, op: string, role: 'nn' | 'dn'): boolean => {
    if (role === 'nn' && faults.standby) {
      sendError(res, remote('webhdfs', 'StandbyException', 'Operation category READ is not supported in state standby. Visit https://s.apache.org/sbnn-error'));
      return true;
    }
    const f = faults.failNext;
    if (!f || f.count <= 0 || (f.ops && !f.ops.includes(op)) || (f.server ?? 'nn') !== role) return false;
    f.count -= 1;
    switch (f.with) {
      case 'standby':
        sendError(res, remote('webhdfs', 'StandbyException', 'Operation category READ is not supported in state standby. Visit https://s.apache.org/sbnn-error'));
        break;
      case 'retriable':
        sendError(res, remote('webhdfs', 'RetriableException', 'org.apache.hadoop.hdfs.server.namenode.SafeModeException: Name node is in safe mode.'));
        break;
      case '503':
        send(res, 503, undefined, { 'Retry-After': '0' });
        break;
      case 'reset':
        res.socket?.destroy();
        break;
      case 'reset-after':
        // Let the operation run, but lose its response.
        res.writeHead = (() => res) as unknown as typeof res.writeHead;
        res.end = (() => {
          res.socket?.destroy();
          return res;
        }) as unknown as typeof res.end;
        return false;
    }
    return true;
  };

  const handler = (role: 'nn' | 'dn') => async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const entry: RequestLog = { server: role, method: req.method ?? '', op: '', path: '', query: {}, bodyBytes: 0, status: 0 };
    requests.push(entry);
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let done = false;
    const finish = (): void => {
      if (!done) stats.inFlight -= 1;
      done = true;
    };
    res.on('finish', finish);
    res.on('close', finish);
    res.on('finish', () => (entry.status = res.statusCode));
    res.on('close', () => (entry.status ||= res.statusCode));
    try {
      const parsed = parse(req);
      entry.op = parsed.op;
      entry.path = parsed.path;
      entry.query = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams);
      const consumesBody = role === 'dn' || (mode === 'httpfs' && parsed.query.get('data') === 'true');
      let body: Buffer = Buffer.alloc(0);
      if (!consumesBody) {
        // The NameNode discards any body a client sends with CREATE/APPEND step 1.
        entry.bodyBytes = (await readBody(req)).length;
      } else if (role === 'dn') {
        body = await readBody(req);
        entry.bodyBytes = body.length;
      }
      if (faults.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
      if (injectFault(res, parsed.op, role)) return;
      const allowed = OPS_BY_METHOD[parsed.method];
      if (!allowed) throw remote(mode, 'UnsupportedOperationException', `Unsupported HTTP method ${parsed.method}`);
      if (!allowed.set.has(parsed.op)) {
        throw remote(mode, 'IllegalArgumentException', `Invalid value for webhdfs parameter "op": No enum constant org.apache.hadoop.hdfs.web.resources.${allowed.cls}.Op.${parsed.op}`);
      }
      if (parsed.op === 'LISTSTATUS_BATCH' && options.noBatch) {
        throw remote(mode, 'IllegalArgumentException', `Invalid value for webhdfs parameter "op": No enum constant org.apache.hadoop.hdfs.web.resources.GetOpParam.Op.LISTSTATUS_BATCH`);
      }
      checkAuth(parsed.query);
      const user = parsed.query.get('doas') ?? parsed.query.get('user.name') ?? 'dr.who';
      checkDeny(parsed.path, user);
      if (parsed.op === 'RENAME' && parsed.query.get('destination')) checkDeny(parsed.query.get('destination')!, user);
      if (role === 'nn') {
        await nameNode(req, res, parsed, user);
        entry.bodyBytes ||= lastBody.get(req) ?? 0;
        return;
      }
      switch (parsed.op) {
        case 'OPEN':
          await serveOpen(res, parsed);
          return;
        case 'CREATE':
          await serveCreate(res, parsed, body);
          return;
        case 'APPEND':
          await serveAppend(res, parsed, body);
          return;
        default:
          throw remote(mode, 'IllegalArgumentException', `Invalid operation ${parsed.op} on the DataNode`);
      }
    } catch (e) {
      if (res.headersSent) {
        res.socket?.destroy();
        return;
      }
      if (e instanceof RemoteError) sendError(res, e);
      else sendError(res, new RemoteError(500, 'RuntimeException', 'java.lang.RuntimeException', String((e as Error)?.message ?? e)));
    }
  };

  const sockets = new Set<Socket>();
  const listen = async (role: 'nn' | 'dn'): Promise<http.Server> => {
    const h = handler(role);
    const cb = (req: http.IncomingMessage, res: http.ServerResponse): void => void h(req, res);
    const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, cb) : http.createServer(cb);
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    server.on('secureConnection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  };

  const nn = await listen('nn');
  nnPort = (nn.address() as AddressInfo).port;
  const dn = mode === 'httpfs' ? undefined : await listen('dn');
  dnPort = dn ? (dn.address() as AddressInfo).port : nnPort;
  const authority = `127.0.0.1:${nnPort}`;

  return {
    nnPort,
    dnPort,
    authority,
    uri: (p: string) => `${options.tls ? 'swebhdfs' : 'webhdfs'}://${authority}${p.startsWith('/') ? p : `/${p}`}`,
    requests,
    stats,
    setFaults(f: Partial<Faults>): void {
      faults = { ...faults, ...f };
    },
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      await Promise.all(
        [nn, dn].filter((s): s is http.Server => !!s).map((s) => new Promise<void>((r) => s.close(() => r()))),
      );
    },
  };
}

/** Per-segment encoding, as a correct client does. */
export function encodePath(p: string): string {
  return p
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}
