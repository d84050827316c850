// The options every mutating command shares (the table lock, the metadata-table mode, heartbeats) and
// their parsing into the library's ServiceOptions, in one place for compaction, clustering, clean,
// archival, the remediation commands and metadata delete.
import { TblError } from '../src/errors/index.ts';
import type { Ctx } from './context.ts';
import type { OptionSpec, Opts } from './spec.ts';
import { parseDurationOpt } from './spec.ts';

/** --wait, --wait-timeout, --lock-expire; `busy`: what else makes --wait wait (e.g. 'a compaction run by another process'). */
export function lockOptions(busy?: string): OptionSpec[] {
  return [
    { flags: '--wait', description: `wait for the table lock${busy ? ` (and for ${busy})` : ''} instead of exiting 4` },
    { flags: '--wait-timeout <duration>', description: 'give up waiting after this long (e.g. 10m)', parse: parseDurationOpt },
    { flags: '--lock-expire <duration>', description: 'FileSystemBasedLockProvider expiry (hoodie.write.lock.filesystem.expire; default 1m, 0 = never)', parse: parseDurationOpt },
  ];
}

/** --metadata-table update|disable|refuse; `update` says what the update does for this command. */
export function metadataTableOption(update = 'kept in step in the same transaction, as Hudi does'): OptionSpec {
  return {
    flags: '--metadata-table <mode>',
    description: `table with a metadata table: 'update' (default: ${update}), 'disable' (clear hoodie.table.metadata.partitions, delete .hoodie/metadata) or 'refuse'`,
    default: 'update',
    choices: ['update', 'disable', 'refuse'],
  };
}

/** --heartbeat-expiry; `what` is the instant whose heartbeat is judged. */
export function heartbeatOption(what = 'a pending write'): OptionSpec {
  return { flags: '--heartbeat-expiry <duration>', description: `${what} whose heartbeat is older is considered dead (default 2m: Hudi's 60 s × 2 misses)`, parse: parseDurationOpt };
}

export const VERBOSE: OptionSpec = { flags: '--verbose', description: 'report progress and the result on stderr (quiet on success otherwise; on a terminal a progress bar is drawn anyway)' };

export type MetadataTableMode = 'update' | 'refuse' | 'disable';

/** The table lock settings of the lockOptions flags. */
export function lockOf(o: Opts) {
  return { wait: o.wait === true, waitTimeoutMs: o.waitTimeout as number | undefined, expireMs: o.lockExpire as number | undefined };
}

/** The library's ServiceOptions from the shared flags (the mode checked here: commander's choices do not cover the shell). */
export function serviceOpts(ctx: Ctx, o: Opts) {
  const mode = String(o.metadataTable ?? 'update');
  if (mode !== 'update' && mode !== 'refuse' && mode !== 'disable') throw new TblError('usage', `--metadata-table must be update, disable or refuse, got '${mode}'`);
  return {
    lock: lockOf(o),
    metadataTable: mode as MetadataTableMode,
    heartbeatExpiryMs: o.heartbeatExpiry as number | undefined,
    now: ctx.now,
  };
}

/** Status lines: stderr on a terminal, or always with --verbose (cron stays quiet otherwise). */
export function statusNote(ctx: Ctx, o: Opts, msg: string): void {
  if (o.verbose) ctx.io.stderr(`${msg}\n`);
  else ctx.out.info(msg);
}
