// `marker delete --commit T` (hudi-cli MarkersCommand → WriteMarkers.quietDeleteMarkerDir): the
// instant's marker directory `.hoodie/.temp/<T>` goes, direct and timeline-server markers alike.
// Markers are what the rollback of a pending instant reads, so a live writer's are refused unless
// forced, and a pending instant's only with a warning (its rollback becomes listing-based).
import { TblError } from '../../errors/index.ts';
import type { Table } from '../../table/index.ts';
import { listMarkers, markerDir } from '../../write/markers.ts';
import { underLock, type ServiceOptions } from '../transaction.ts';
import { rel, type Change } from './report.ts';
import { liveHeartbeat } from './rollback.ts';

export interface MarkerDeleteReport {
  instant: string;
  dryRun: boolean;
  /** markers found (direct marker files and MARKERS<n> entries) */
  markers: number;
  changes: Change[];
  warnings: string[];
}

export async function deleteMarkers(table: Table, time: string, opts: ServiceOptions & { dryRun?: boolean; force?: boolean } = {}): Promise<MarkerDeleteReport> {
  const run = async (t: Table): Promise<MarkerDeleteReport> => {
    const dir = markerDir(t.basePath, time);
    const markers = (await listMarkers(t.storage, t.basePath, time)).length;
    const pending = (await t.timeline()).find(time).find((i) => i.state !== 'COMPLETED');
    const warnings: string[] = [];
    if (pending) {
      const live = await liveHeartbeat(t, time, opts);
      if (live && !opts.force) {
        throw new TblError('conflict', `${pending.effectiveAction} ${time} is running (live heartbeat: ${live}); its markers are what its rollback reads`, {
          instant: time,
          hint: 'stop the writer first, or pass --force',
        });
      }
      warnings.push(`${pending.effectiveAction} ${time} is still ${pending.state.toLowerCase()}: without its markers its rollback is listing-based`);
    }
    const exists = await t.storage.exists(dir);
    const changes: Change[] = exists ? [{ op: 'delete', path: rel(t, dir), what: `marker directory of ${time} (${markers} marker(s))` }] : [];
    if (!opts.dryRun && exists) await t.storage.delete(dir, { recursive: true });
    return { instant: time, dryRun: opts.dryRun === true, markers, changes, warnings };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}
