// A one-line scan status on stderr (`\r`-rewritten) for scans that take a while, only on a terminal:
// quiet for the first 2 s (most tables are done by then), then at most five updates a second, and
// erased when the scan ends so the output that follows starts on a clean line. While the instants
// are read (their count is known) it is the terminal's progress bar (render/progress.ts); the
// listing has no known total, so it shows counts.
import { progressBar } from '../render/progress.ts';
import type { ScanProgress } from './scan.ts';

export interface ProgressSink {
  /** whether stderr is a terminal (the line is never written otherwise) */
  isTTY: boolean;
  write(s: string): void;
  /** the terminal's width (default 80) */
  columns?: number;
  /** monotonic milliseconds (tests inject a clock) */
  now?: () => number;
}

export interface ProgressLine {
  update(p: ScanProgress): void;
  /** erases the line (if one was written) */
  done(): void;
}

const n = (v: number) => v.toLocaleString('en-US');

export function formatProgress(p: ScanProgress, opts: { elapsedMs?: number; width?: number } = {}): string {
  const width = opts.width ?? 80;
  // a large local table is listed while the instants are read
  const listed = `listed ${n(p.dirs)} dirs, ${n(p.files)} files`;
  if (p.phase === 'instants' && p.instantsTotal > 0) {
    const facts = p.dirs > 0 ? [listed] : [];
    return progressBar({ label: 'scanning', done: p.instantsRead, total: p.instantsTotal, unit: 'instants', records: 0, bytes: 0, elapsedMs: opts.elapsedMs ?? 0, facts }, width);
  }
  const instants = p.instantsTotal > 0 ? `instants ${n(p.instantsRead)}/${n(p.instantsTotal)}` : 'timeline';
  const line = p.phase === 'timeline' || p.dirs === 0 ? `scanning: reading ${instants}` : `scanning: ${instants}, ${listed}, ${n(p.partitions)} partitions${p.phase === 'markers' ? ', markers' : ''}`;
  return [...line].length <= width ? line : `${[...line].slice(0, Math.max(0, width - 1)).join('')}…`;
}

export function progressLine(sink: ProgressSink, opts: { delayMs?: number; intervalMs?: number } = {}): ProgressLine {
  const now = sink.now ?? (() => performance.now());
  const start = now();
  const delay = opts.delayMs ?? 2000;
  const interval = opts.intervalMs ?? 200;
  let last = -Infinity;
  let shown = false;
  return {
    update(p) {
      if (!sink.isTTY) return;
      const t = now();
      if (t - start < delay || t - last < interval) return;
      last = t;
      sink.write(`\r${formatProgress(p, { elapsedMs: t - start, width: Math.max(20, (sink.columns ?? 80) - 1) })}\u001b[K`);
      shown = true;
    },
    done() {
      if (shown) sink.write('\r\u001b[K');
      shown = false;
    },
  };
}
