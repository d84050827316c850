// Progress of a long command on stderr (stdout stays data): on a terminal a bar redrawn at most
// four times a second (and each second, so elapsed/ETA move between events), cleared at the end;
// with --verbose in a pipe, one plain line per step; otherwise (cron) nothing.
import { progressBar, progressLine, type ProgressState } from '../src/render/progress.ts';
import type { Ctx } from './context.ts';

const REDRAW_MS = 250;

export interface Progress {
  start(total: number, unit: string, label?: string): void;
  /** `count` steps done (default one: a file group written), with their records and bytes; `note` is a --verbose line */
  step(records: number, bytes: number, note?: string, count?: number): void;
  /** removes the bar (call before printing the result, and on failure) */
  end(): void;
}

export function progressFor(ctx: Ctx, label: string, opts: { verbose: boolean; now?: () => number; noRecords?: boolean; noBytes?: boolean }): Progress {
  const now = opts.now ?? Date.now;
  const tty = ctx.io.isStderrTTY;
  const s: ProgressState = { label, done: 0, total: 0, unit: '', records: 0, bytes: 0, elapsedMs: 0, noRecords: opts.noRecords, noBytes: opts.noBytes };
  let started = now();
  let shown = '';
  let lastDraw = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const clear = () => {
    if (shown !== '') ctx.io.stderr('\r\u001b[K');
    shown = '';
  };
  const draw = (force: boolean) => {
    const t = now();
    if (!force && t - lastDraw < REDRAW_MS) return;
    s.elapsedMs = t - started;
    const line = progressBar(s, Math.max(20, ctx.io.columns - 1));
    if (line === shown) return;
    ctx.io.stderr(`\r${line}\u001b[K`);
    shown = line;
    lastDraw = t;
  };
  return {
    start(total, unit, name) {
      started = now();
      // a second start (the next part of the work) counts from zero again
      Object.assign(s, { total, unit, label: name ?? s.label, done: 0, records: 0, bytes: 0 });
      if (tty) {
        draw(true);
        timer = setInterval(() => draw(false), 1000);
        timer.unref?.();
      } else if (opts.verbose) ctx.io.stderr(`${progressLine({ ...s, elapsedMs: 0 })}\n`);
    },
    step(records, bytes, note, count = 1) {
      s.done += count;
      s.records += records;
      s.bytes += bytes;
      if (tty) {
        if (note && opts.verbose) {
          clear();
          ctx.io.stderr(`${note}\n`);
        }
        draw(s.done === s.total || (note !== undefined && opts.verbose));
      } else if (opts.verbose) {
        s.elapsedMs = now() - started;
        if (note) ctx.io.stderr(`${note}\n`);
        ctx.io.stderr(`${progressLine(s)}\n`);
      }
    },
    end() {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (tty) clear();
    },
  };
}
