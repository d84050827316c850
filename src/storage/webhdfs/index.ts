import { userInfo } from 'node:os';
import { rootCertificates } from 'node:tls';
import { TblError } from '../../errors/index.ts';
import { LocalStorage } from '../local.ts';
import type { Location, StorageOptions } from '../resolve.ts';
import { WebHdfsClient } from './client.ts';
import { makeRedactor } from './errors.ts';
import { WebHdfsStorage } from './storage.ts';

export { WebHdfsStorage } from './storage.ts';
export { WebHdfsClient, OpFailure, encodePath, type ClientConfig } from './client.ts';

export interface WebHdfsTarget {
  scheme: 'webhdfs' | 'swebhdfs' | 'hdfs';
  /** what `Storage.uri` puts before a path: 'webhdfs://host:port' */
  prefix: string;
  /** base URLs of the NameNodes (or the HttpFS gateway), in failover order */
  endpoints: string[];
  path: string;
}

function normalisePath(p: string): string {
  const collapsed = `/${p}`.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

function endpointUrl(entry: string, defaultTls: boolean, httpfs: boolean): string {
  const m = /^(?:(https?|webhdfs|swebhdfs):\/\/)?([^/]+)\/?$/i.exec(entry.trim());
  if (!m) throw new TblError('usage', `invalid NameNode HTTP address '${entry}' (expected host:port)`);
  const s = m[1]?.toLowerCase();
  const tls = s ? s === 'https' || s === 'swebhdfs' : defaultTls;
  const hostPort = m[2]!;
  const hasPort = /^\[.*\]:\d+$|^[^:[\]]+:\d+$/.test(hostPort);
  const port = httpfs ? 14000 : tls ? 9871 : 9870;
  return `${tls ? 'https' : 'http'}://${hasPort ? hostPort : `${hostPort}:${port}`}`;
}

/** Parses webhdfs://, swebhdfs:// and hdfs:// URIs; `a:1,b:2` authorities (or --namenode-http lists) are HA pairs. */
export function parseWebHdfsUri(uri: string, opts: StorageOptions = {}): WebHdfsTarget {
  const m = /^(webhdfs|swebhdfs|hdfs):\/\/([^/?#]*)([^?#]*)/i.exec(uri);
  if (!m) throw new TblError('usage', `not a WebHDFS URI: ${uri}`, { path: uri });
  const scheme = m[1]!.toLowerCase() as WebHdfsTarget['scheme'];
  const authority = m[2]!;
  const path = normalisePath(m[3] ?? '/');
  const env = opts.env ?? process.env;
  const httpfs = opts.httpfs === true;
  let list: string;
  if (scheme === 'hdfs') {
    const given = opts.namenodeHttp ?? env.TBLCLI_WEBHDFS;
    if (!given) {
      throw new TblError('usage', `${scheme}://${authority} needs the NameNode HTTP address`, {
        path: uri,
        hint: 'pass --namenode-http host:port[,host2:port] or set TBLCLI_WEBHDFS',
      });
    }
    list = given;
  } else {
    if (!authority) throw new TblError('usage', `${uri} has no host`, { path: uri });
    list = authority;
  }
  const endpoints = list
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((e) => endpointUrl(e, scheme === 'swebhdfs', httpfs));
  return { scheme, prefix: `${scheme}://${authority}`, endpoints, path };
}

async function readTextFile(path: string, what: string): Promise<string> {
  try {
    return new TextDecoder().decode(await new LocalStorage().readFile(path));
  } catch (e) {
    throw new TblError('usage', `cannot read ${what} ${path}`, { path, cause: e });
  }
}

/** A token file holds the URL-safe token string, or the JSON answer of GETDELEGATIONTOKEN. */
function tokenFromText(text: string): string {
  const t = text.trim();
  if (t.startsWith('{')) {
    try {
      const u = (JSON.parse(t) as { Token?: { urlString?: string } }).Token?.urlString;
      if (u) return u;
    } catch {
      /* not JSON: use as is */
    }
  }
  return t;
}

/** undici's Agent class, taken from the dispatcher Node's own fetch uses (no 'undici' package needed). */
async function agentClass(): Promise<new (o: object) => unknown> {
  const sym = Symbol.for('undici.globalDispatcher.1');
  const g = globalThis as unknown as Record<symbol, { constructor?: new (o: object) => unknown } | undefined>;
  if (!g[sym]) await fetch('data:,'); // makes Node create its global dispatcher
  const ctor = g[sym]?.constructor;
  if (typeof ctor !== 'function') {
    throw new TblError('unsupported', 'this Node.js has no usable fetch dispatcher for --ca-file', {
      hint: 'set NODE_EXTRA_CA_CERTS to the CA file instead',
    });
  }
  return ctor;
}

export async function openWebHdfs(uri: string, opts: StorageOptions): Promise<Location> {
  const target = parseWebHdfsUri(uri, opts);
  const env = opts.env ?? process.env;
  let user = opts.user ?? env.HADOOP_USER_NAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = undefined;
    }
  }
  let token = opts.delegationToken ?? env.HADOOP_TOKEN;
  if (!token && opts.tokenFile) token = tokenFromText(await readTextFile(opts.tokenFile, 'token file'));
  if (token === '') token = undefined;
  let dispatcher: unknown;
  if (opts.caFile) {
    const pem = await readTextFile(opts.caFile, 'CA file');
    const Agent = await agentClass();
    // Verification stays on: the cluster CA is added to Node's roots, never replaces checking.
    dispatcher = new Agent({ connect: { ca: [...rootCertificates, pem] } });
  }
  const client = new WebHdfsClient({
    endpoints: target.endpoints,
    user,
    doAs: opts.doAs,
    token,
    httpfs: opts.httpfs === true,
    retries: opts.retries ?? 3,
    timeoutMs: opts.timeoutMs ?? 30_000,
    concurrency: opts.concurrency ?? 16,
    retryDelayMs: opts.retryDelayMs ?? 200,
    dispatcher,
    debug: opts.debug,
    redact: makeRedactor([token]),
  });
  return { storage: new WebHdfsStorage(target.scheme, target.prefix, client), path: target.path };
}
