// A one-line scan status on stderr (`\r`-rewritten) for scans that take a while, only on a terminal:
// quiet for the first 2 s (most tables are done by then), then at most five updates a second, and
// erased when the scan ends so the output that follows starts on a clean line.
import type { ScanProgress } from './scan.ts';

export interface ProgressSink {
  /** whether stderr is a terminal (the line is never written otherwise) */
  isTTY: boolean;
  write(s: string): void;
  /** monotonic milliseconds (tests inject a clock) */
  now?: () => number;
}

export interface ProgressLine {
  update(p: ScanProgress): void;
  /** erases the line (if one was written) */
  done(): void;
}

const n = (v: number) => v.toLocaleString('en-US');

export function formatProgress(p: ScanProgress): string {
  const instants = p.instantsTotal > 0 ? `instants ${n(p.instantsRead)}/${n(p.instantsTotal)}` : 'timeline';
  // a large local table is listed while the instants are read
  if ((p.phase === 'timeline' || p.phase === 'instants') && p.dirs === 0) return `scanning: reading ${instants}`;
  return `scanning: ${instants}, listed ${n(p.dirs)} dirs, ${n(p.files)} files, ${n(p.partitions)} partitions${p.phase === 'markers' ? ', markers' : ''}`;
}

export function progressLine(sink: ProgressSink, opts: { delayMs?: number; intervalMs?: number } = {}): ProgressLine {
  const now = sink.now ?? (() => performance.now());
  const start = now();
  const delay = opts.delayMs ?? 2000;
  const interval = opts.intervalMs ?? 200;
  let last = -Infinity;
  let width = 0;
  return {
    update(p) {
      if (!sink.isTTY) return;
      const t = now();
      if (t - start < delay || t - last < interval) return;
      last = t;
      const line = formatProgress(p);
      sink.write(`\r${line.padEnd(width)}`);
      width = Math.max(width, line.length);
    },
    done() {
      if (width > 0) sink.write(`\r${' '.repeat(width)}\r`);
      width = 0;
    },
  };
}
