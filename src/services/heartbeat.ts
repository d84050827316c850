// Heartbeat of a running instant (HoodieHeartbeatClient): `.hoodie/.heartbeat/<instant>`, whose mtime
// is the last beat; missing ⇒ expired; expired when now - mtime > interval × tolerable misses
// (Hudi defaults 60 s × 2). Beats append a byte: an overwrite would leave a moment where the file is
// missing, and a concurrent checker would then see the instant as dead.
import { StorageError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';

export const HEARTBEAT_DEFAULTS = { intervalMs: 60_000, tolerableMisses: 2 } as const;

export function heartbeatPath(metaPath: string, instant: string): string {
  return joinPath(metaPath, '.heartbeat', instant);
}

/** Last beat in epoch ms, 0 when there is no heartbeat file (HoodieHeartbeatUtils.getLastHeartbeatTime). */
export async function lastHeartbeat(storage: Storage, metaPath: string, instant: string): Promise<number> {
  try {
    return (await storage.stat(heartbeatPath(metaPath, instant))).mtimeMs;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'not-found') return 0;
    throw e;
  }
}

export async function isHeartbeatExpired(storage: Storage, metaPath: string, instant: string, expiryMs: number, now = Date.now()): Promise<boolean> {
  return now - (await lastHeartbeat(storage, metaPath, instant)) > expiryMs;
}

export interface Heartbeat {
  instant: string;
  beat(): Promise<void>;
  /** stops beating and deletes the file */
  stop(): Promise<void>;
}

/** Creates/refreshes the heartbeat file now and every `intervalMs` until stopped. */
export async function startHeartbeat(storage: Storage, metaPath: string, instant: string, intervalMs: number = HEARTBEAT_DEFAULTS.intervalMs): Promise<Heartbeat> {
  const path = heartbeatPath(metaPath, instant);
  await storage.mkdirs(joinPath(metaPath, '.heartbeat'));
  const beat = () => storage.append(path, new Uint8Array([0x0a]));
  await beat();
  let failed: unknown;
  const timer = setInterval(() => {
    beat().catch((e) => {
      failed = e;
    });
  }, intervalMs);
  timer.unref();
  return {
    instant,
    async beat() {
      if (failed) throw failed;
      await beat();
    },
    async stop() {
      clearInterval(timer);
      await storage.delete(path);
    },
  };
}
