// A small typed WebHDFS/HttpFS client on Node's built-in fetch. One HTTP exchange at a time goes
// through `exchange` (semaphore, timeout, whole body read); `run` adds retries with backoff and
// NameNode failover. Non-idempotent operations are never resent unless the server certainly did
// not execute them (StandbyException, connection refused); callers recover by checking state.
import { AttemptError, isStandby, isTransient, mayHaveExecuted, notExecuted, type Failure, type RemoteException } from './errors.ts';
import { Semaphore } from './semaphore.ts';

export interface ClientConfig {
  /** NameNode (or HttpFS) base URLs, e.g. 'http://nn1:9870'; failover walks them in order. */
  endpoints: string[];
  user?: string;
  doAs?: string;
  token?: string;
  httpfs: boolean;
  retries: number;
  timeoutMs: number;
  concurrency: number;
  retryDelayMs: number;
  /** an undici Dispatcher for fetch (custom CA) */
  dispatcher?: unknown;
  debug?: (msg: string) => void;
  redact: (s: string) => string;
}

/** A failed operation after retries; the storage layer turns it into a StorageError. */
export class OpFailure extends Error {
  constructor(
    readonly failure: Failure,
    readonly attempts: number,
    /** the request may have been executed (non-idempotent op, transport failure after sending) */
    readonly outcomeUnknown = false,
  ) {
    super('webhdfs operation failed');
  }
}

export interface Exchange {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** WebHDFS FileStatus JSON (extra fields are ignored). */
export interface HdfsFileStatus {
  pathSuffix: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK';
  length: number;
  modificationTime: number;
  permission?: string;
  owner?: string;
  group?: string;
}

export interface HdfsContentSummary {
  directoryCount: number;
  fileCount: number;
  length: number;
}

/** Per-segment encoding: names may hold '%2F', '%3A', spaces (Hudi partition values). */
export function encodePath(p: string): string {
  return p
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

const decoder = new TextDecoder();

function parseJson(ex: Exchange): unknown {
  try {
    return JSON.parse(decoder.decode(ex.body));
  } catch {
    return undefined;
  }
}

/** Classifies a non-success response: a RemoteException body wins over the status code. */
function failureOf(ex: Exchange): Failure {
  const json = parseJson(ex) as { RemoteException?: RemoteException } | undefined;
  const re = json?.RemoteException;
  if (re && typeof re.exception === 'string') return { kind: 'remote', status: ex.status, remote: re };
  return { kind: 'http', status: ex.status, statusText: '' };
}

function expectStatus(ex: Exchange, ok: number[]): Exchange {
  if (!ok.includes(ex.status)) throw new AttemptError(failureOf(ex));
  return ex;
}

function jsonOf<T>(ex: Exchange, key: string): T {
  const json = parseJson(ex) as Record<string, unknown> | undefined;
  if (!json || !(key in json)) throw new AttemptError({ kind: 'protocol', detail: `response has no "${key}" object` });
  return json[key] as T;
}

function booleanOf(ex: Exchange): boolean {
  const b = jsonOf<unknown>(ex, 'boolean');
  if (typeof b !== 'boolean') throw new AttemptError({ kind: 'protocol', detail: 'response "boolean" is not a boolean' });
  return b;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Params = Record<string, string | number | boolean | undefined>;

export class WebHdfsClient {
  private active = 0;
  private readonly sem: Semaphore;
  /** HTTP exchanges sent (NameNode and DataNode legs), for benchmarks and tests. */
  requestCount = 0;
  /** false after the server rejected LISTSTATUS_BATCH (older Hadoop) */
  batchSupported = true;
  /** renameoptions=NONE is honoured (WebHDFS); HttpFS ignores it and uses the old boolean rename */
  rename2Supported: boolean;

  constructor(readonly cfg: ClientConfig) {
    this.sem = new Semaphore(Math.max(1, cfg.concurrency));
    this.rename2Supported = !cfg.httpfs;
  }

  private debug(msg: string): void {
    this.cfg.debug?.(this.cfg.redact(msg));
  }

  private authQuery(): string {
    const { token, user, doAs } = this.cfg;
    if (token) return `&delegation=${encodeURIComponent(token)}`;
    let q = user ? `&user.name=${encodeURIComponent(user)}` : '';
    if (doAs) q += `&doas=${encodeURIComponent(doAs)}`;
    return q;
  }

  url(base: string, path: string, op: string, params: Params = {}): string {
    let q = `op=${op}`;
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q += `&${k}=${encodeURIComponent(String(v))}`;
    return `${base}/webhdfs/v1${encodePath(path)}?${q}${this.authQuery()}`;
  }

  /** One HTTP exchange with the whole body read; network errors and timeouts become AttemptError. */
  async exchange(method: string, url: string, body?: Uint8Array, headers: Record<string, string> = {}): Promise<Exchange> {
    const release = await this.sem.acquire();
    const started = Date.now();
    this.requestCount += 1;
    try {
      const init: RequestInit & { dispatcher?: unknown; duplex?: string } = {
        method,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.cfg.timeoutMs),
      };
      if (body !== undefined) init.body = body as Uint8Array<ArrayBuffer>;
      if (this.cfg.dispatcher) init.dispatcher = this.cfg.dispatcher;
      const res = await fetch(url, init);
      const buf = new Uint8Array(await res.arrayBuffer());
      this.debug(`webhdfs ${method} ${url} → ${res.status} (${Date.now() - started} ms)`);
      return { status: res.status, headers: res.headers, body: buf };
    } catch (e) {
      const f = this.classify(e);
      this.debug(`webhdfs ${method} ${url} → ${f.kind === 'timeout' ? 'timeout' : f.kind === 'network' ? f.code : 'error'} (${Date.now() - started} ms)`);
      throw new AttemptError(f);
    } finally {
      release();
    }
  }

  private classify(e: unknown): Failure {
    const err = e as { name?: string; cause?: { code?: string; name?: string; message?: string } };
    if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return { kind: 'timeout', ms: this.cfg.timeoutMs };
    const code = err?.cause?.code ?? err?.cause?.name ?? 'UND_ERR_SOCKET';
    return { kind: 'network', code, refused: code === 'ECONNREFUSED' };
  }

  /**
   * Runs `fn` against the active NameNode with failover and, when `idempotent`, retries with
   * exponential backoff and jitter. Throws OpFailure.
   */
  async run<T>(label: string, idempotent: boolean, fn: (base: string) => Promise<T>): Promise<T> {
    const n = this.cfg.endpoints.length;
    let retries = 0;
    let failovers = 0;
    for (;;) {
      const idx = this.active;
      try {
        return await fn(this.cfg.endpoints[idx]!);
      } catch (e) {
        if (!(e instanceof AttemptError)) throw e;
        const f = e.failure;
        const switchable = isStandby(f) || (f.kind === 'network' && f.refused);
        if (n > 1 && switchable) {
          if (this.active === idx) this.active = (idx + 1) % n;
          if (failovers < n - 1) {
            failovers += 1;
            this.debug(`webhdfs ${label}: failover to ${this.cfg.endpoints[this.active]}`);
            continue;
          }
        }
        failovers = 0;
        const again = idempotent ? isTransient(f) : notExecuted(f);
        if (!again || retries >= this.cfg.retries) {
          throw new OpFailure(f, retries + 1, !idempotent && mayHaveExecuted(f));
        }
        retries += 1;
        const base = Math.min(this.cfg.retryDelayMs * 2 ** (retries - 1), 10_000);
        const wait = Math.round(base * (0.5 + Math.random()));
        this.debug(`webhdfs ${label}: retry ${retries}/${this.cfg.retries} in ${wait} ms`);
        await sleep(wait);
      }
    }
  }

  // --- operations ----------------------------------------------------------------------------

  async getFileStatus(path: string): Promise<HdfsFileStatus> {
    return this.run(`GETFILESTATUS ${path}`, true, async (base) => {
      const ex = expectStatus(await this.exchange('GET', this.url(base, path, 'GETFILESTATUS')), [200]);
      return jsonOf<HdfsFileStatus>(ex, 'FileStatus');
    });
  }

  /** All entries of a directory: one LISTSTATUS_BATCH loop (LISTSTATUS on servers without it). */
  async listStatus(path: string): Promise<HdfsFileStatus[]> {
    if (this.batchSupported) {
      try {
        return await this.listBatches(path);
      } catch (e) {
        const f = e instanceof OpFailure ? e.failure : undefined;
        const unsupported =
          f?.kind === 'remote' &&
          (f.remote.exception === 'UnsupportedOperationException' ||
            (f.remote.exception === 'IllegalArgumentException' && /LISTSTATUS_BATCH/.test(f.remote.message ?? '')));
        if (!unsupported) throw e;
        this.batchSupported = false;
        this.debug('webhdfs: server has no LISTSTATUS_BATCH, using LISTSTATUS');
      }
    }
    return this.run(`LISTSTATUS ${path}`, true, async (base) => {
      const ex = expectStatus(await this.exchange('GET', this.url(base, path, 'LISTSTATUS')), [200]);
      return jsonOf<{ FileStatus: HdfsFileStatus[] }>(ex, 'FileStatuses').FileStatus ?? [];
    });
  }

  private async listBatches(path: string): Promise<HdfsFileStatus[]> {
    const out: HdfsFileStatus[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.run(`LISTSTATUS_BATCH ${path}`, true, async (base) => {
        const ex = expectStatus(await this.exchange('GET', this.url(base, path, 'LISTSTATUS_BATCH', { startAfter })), [200]);
        const dl = jsonOf<{ partialListing?: { FileStatuses?: { FileStatus?: HdfsFileStatus[] } }; remainingEntries?: number }>(
          ex,
          'DirectoryListing',
        );
        return { entries: dl.partialListing?.FileStatuses?.FileStatus ?? [], remaining: Number(dl.remainingEntries ?? 0) };
      });
      out.push(...page.entries);
      if (page.remaining === 0) return out;
      const last = page.entries.at(-1);
      if (!last || last.pathSuffix === '') {
        throw new OpFailure({ kind: 'protocol', detail: `LISTSTATUS_BATCH returned an empty page with ${page.remaining} entries remaining` }, 1);
      }
      startAfter = last.pathSuffix;
    }
  }

  /** OPEN, following the DataNode redirect; the whole op is retried (both legs) on transient failures. */
  async open(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    return this.run(`OPEN ${path}`, true, async (base) => {
      const first = await this.exchange('GET', this.url(base, path, 'OPEN', { offset, length }));
      let ex = first;
      if (first.status === 307) {
        const loc = first.headers.get('location');
        if (!loc) throw new AttemptError({ kind: 'protocol', detail: 'OPEN redirect without Location' });
        ex = await this.exchange('GET', loc);
      }
      expectStatus(ex, [200]);
      const declared = ex.headers.get('content-length');
      if (declared !== null && Number(declared) !== ex.body.length) {
        throw new AttemptError({ kind: 'network', code: 'SHORT_READ', refused: false });
      }
      return ex.body;
    });
  }

  /**
   * CREATE (two-step on WebHDFS, `data=true` on HttpFS). The data leg is sent once; a transport
   * failure there surfaces as OpFailure with outcomeUnknown for the caller to check.
   */
  async create(path: string, data: Uint8Array, overwrite = false): Promise<void> {
    await this.writeData('CREATE', 'PUT', path, data, { overwrite }, [201]);
  }

  async append(path: string, data: Uint8Array): Promise<void> {
    await this.writeData('APPEND', 'POST', path, data, {}, [200]);
  }

  private async writeData(op: string, method: string, path: string, data: Uint8Array, params: Params, ok: number[]): Promise<void> {
    const octet = { 'Content-Type': 'application/octet-stream' };
    if (this.cfg.httpfs) {
      // One request with the data; nothing was written when it is refused or the NameNode is standby.
      const loc = await this.run(`${op} ${path}`, false, async (base) => {
        const ex = await this.exchange(method, this.url(base, path, op, { ...params, data: true }), data, octet);
        if (ex.status === 307) return ex.headers.get('location') ?? undefined;
        expectStatus(ex, ok);
        return undefined;
      });
      if (loc) await this.dataLeg(method, loc, data, octet, ok);
      return;
    }
    // Step 1 carries no body and does not follow the redirect: it only asks where to write.
    const loc = await this.run(`${op} ${path}`, true, async (base) => {
      const ex = await this.exchange(method, this.url(base, path, op, params));
      if (ex.status === 307) {
        const l = ex.headers.get('location');
        if (l) return l;
      }
      if (ex.status === 200) {
        const l = (parseJson(ex) as { Location?: string } | undefined)?.Location;
        if (l) return l;
      }
      expectStatus(ex, [307]);
      throw new AttemptError({ kind: 'protocol', detail: `${op} step 1 answered ${ex.status} without a Location` });
    });
    await this.dataLeg(method, loc, data, octet, ok);
  }

  private async dataLeg(method: string, loc: string, data: Uint8Array, headers: Record<string, string>, ok: number[]): Promise<void> {
    try {
      expectStatus(await this.exchange(method, loc, data, headers), ok);
    } catch (e) {
      if (!(e instanceof AttemptError)) throw e;
      const f = e.failure;
      throw new OpFailure(f, 1, mayHaveExecuted(f));
    }
  }

  async mkdirs(path: string): Promise<boolean> {
    return this.run(`MKDIRS ${path}`, true, async (base) =>
      booleanOf(expectStatus(await this.exchange('PUT', this.url(base, path, 'MKDIRS')), [200])),
    );
  }

  async delete(path: string, recursive: boolean): Promise<boolean> {
    return this.run(`DELETE ${path}`, true, async (base) =>
      booleanOf(expectStatus(await this.exchange('DELETE', this.url(base, path, 'DELETE', { recursive })), [200])),
    );
  }

  /**
   * RENAME sent once (resent only when certainly not executed). With `rename2` it asks for
   * renameoptions=NONE and returns 'ok' on an empty 200; a boolean body means the server used
   * the old rename semantics.
   */
  async rename(from: string, to: string, rename2: boolean): Promise<boolean> {
    return this.run(`RENAME ${from}`, false, async (base) => {
      const ex = expectStatus(
        await this.exchange('PUT', this.url(base, from, 'RENAME', { destination: to, renameoptions: rename2 ? 'NONE' : undefined })),
        [200],
      );
      if (ex.body.length === 0) return true;
      // A boolean answer to renameoptions means the server ignored them: check before the next rename.
      if (rename2) this.rename2Supported = false;
      return booleanOf(ex);
    });
  }

  /**
   * RENAME with renameoptions=OVERWRITE (rename2: an existing file replaced in one NameNode
   * operation), sent once. False: the server used the old rename, which does not replace a file
   * (HttpFS ignores renameoptions), and nothing moved.
   */
  async renameOverwrite(from: string, to: string): Promise<boolean> {
    return this.run(`RENAME ${from}`, false, async (base) => {
      const ex = expectStatus(await this.exchange('PUT', this.url(base, from, 'RENAME', { destination: to, renameoptions: 'OVERWRITE' })), [200]);
      if (ex.body.length === 0) return true;
      this.rename2Supported = false;
      return booleanOf(ex);
    });
  }

  async contentSummary(path: string): Promise<HdfsContentSummary> {
    return this.run(`GETCONTENTSUMMARY ${path}`, true, async (base) => {
      const ex = expectStatus(await this.exchange('GET', this.url(base, path, 'GETCONTENTSUMMARY')), [200]);
      return jsonOf<HdfsContentSummary>(ex, 'ContentSummary');
    });
  }

  async close(): Promise<void> {
    const d = this.cfg.dispatcher as { close?: () => Promise<void> } | undefined;
    await d?.close?.();
  }
}
