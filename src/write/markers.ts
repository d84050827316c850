// Direct write markers (format-timeline.md §7): one empty file per data file, created before the data
// file, at `.hoodie/.temp/<instant>/<partition>/<fileName>.marker.<IOType>`. Marker-based rollback
// deletes exactly the marked files. Timeline-server markers (MARKERS<n> files) are read as well.
import { StorageError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';

export type IOType = 'CREATE' | 'MERGE' | 'APPEND';

export interface Marker {
  partition: string;
  fileName: string;
  ioType: IOType;
}

export function markerDir(basePath: string, instant: string): string {
  return joinPath(basePath, '.hoodie', '.temp', instant);
}

export function markerName(fileName: string, ioType: IOType): string {
  return `${fileName}.marker.${ioType}`;
}

export async function createMarker(storage: Storage, basePath: string, instant: string, m: Marker): Promise<string> {
  const dir = m.partition === '' ? markerDir(basePath, instant) : joinPath(markerDir(basePath, instant), m.partition);
  await storage.mkdirs(dir);
  const path = joinPath(dir, markerName(m.fileName, m.ioType));
  try {
    await storage.writeNew(path, new Uint8Array(0));
  } catch (e) {
    // a retried task re-creates the marker of the same file: that is fine
    if (!(e instanceof StorageError && e.code === 'already-exists')) throw e;
  }
  return path;
}

function parseMarker(rel: string): Marker | undefined {
  const m = /^(?:(.*)\/)?([^/]+)\.marker\.(CREATE|MERGE|APPEND)$/.exec(rel);
  if (!m) return undefined;
  return { partition: m[1] ?? '', fileName: m[2]!, ioType: m[3] as IOType };
}

/** Every marker of an instant (direct marker files and timeline-server MARKERS<n> files). */
export async function listMarkers(storage: Storage, basePath: string, instant: string): Promise<Marker[]> {
  const root = markerDir(basePath, instant);
  if (!(await storage.exists(root))) return [];
  const out: Marker[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const e of await storage.list(dir)) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory) {
        await walk(e.path, r);
      } else if (rel === '' && /^MARKERS\d+$/.test(e.name)) {
        const text = new TextDecoder().decode(await storage.readFile(e.path));
        for (const line of text.split('\n')) {
          const m = parseMarker(line.trim());
          if (m) out.push(m);
        }
      } else {
        const m = parseMarker(r);
        if (m) out.push(m);
      }
    }
  };
  await walk(root, '');
  return out;
}

export async function deleteMarkerDir(storage: Storage, basePath: string, instant: string): Promise<boolean> {
  return storage.delete(markerDir(basePath, instant), { recursive: true });
}
