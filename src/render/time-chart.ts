// Instants over wall-clock time as text: one row per instant, its labels, its duration and a bar of
// block characters from start to end (to now while pending) across the width, with the lane of a
// greedy interval packing so concurrent work (two writers, a long compaction under delta commits) is
// seen at a glance. Used by `timeline show active --chart` and by browse's time view.

export interface Bar {
  labels: string[];
  /** undefined when the instant time is not a time (a bootstrap's 00000000000001) */
  startMs: number | undefined;
  endMs: number | undefined;
  pending: boolean;
}

export interface ChartOptions {
  width: number;
  labelHeaders: string[];
  /** a time on the axis; withDate when the chart spans more than one day */
  formatTime: (ms: number, withDate: boolean) => string;
}

export interface Chart {
  header: string[];
  rows: string[];
  lanes: number[];
}

/** Lane of each bar: the first lane free at its start (bars taken in start order), 1-based; 0 for no time. */
export function assignLanes(bars: Bar[]): number[] {
  const order = bars.map((_, i) => i).filter((i) => bars[i]!.startMs !== undefined);
  order.sort((a, b) => bars[a]!.startMs! - bars[b]!.startMs! || a - b);
  const ends: number[] = [];
  const lanes = bars.map(() => 0);
  for (const i of order) {
    const b = bars[i]!;
    const end = b.endMs ?? b.startMs!;
    let lane = ends.findIndex((e) => e <= b.startMs!);
    if (lane < 0) lane = ends.push(end) - 1;
    else ends[lane] = end;
    lanes[i] = lane + 1;
  }
  return lanes;
}

/** 850 ms, 12.3 s, 4 m 05 s, 2 h 10 m, 3 d 4 h. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} m`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const width = (s: string): number => [...s].length;

export function renderTimeChart(bars: Bar[], opts: ChartOptions): Chart {
  const lanes = assignLanes(bars);
  const timed = bars.filter((b) => b.startMs !== undefined);
  const min = Math.min(...timed.map((b) => b.startMs!));
  const max = Math.max(...timed.map((b) => b.endMs ?? b.startMs!));
  const span = timed.length === 0 ? 1 : Math.max(1, max - min);
  let headers = ['Lane', ...opts.labelHeaders, 'Duration'];
  let cells = bars.map((b, i) => [
    lanes[i] ? String(lanes[i]) : '-',
    ...b.labels,
    b.startMs === undefined || b.endMs === undefined ? '-' : `${humanDuration(b.endMs - b.startMs)}${b.pending ? '+' : ''}`,
  ]);
  let widths = headers.map((h, c) => Math.max(width(h), ...cells.map((r) => width(r[c]!))));
  // a narrow screen keeps room for the bars: the last label goes first (a pending bar is ▒ anyway)
  const labelsWidth = (w: number[]) => w.reduce((a, x) => a + x, 0) + 2 * (w.length - 1) + 3;
  if (opts.labelHeaders.length > 1 && opts.width - labelsWidth(widths) < 30) {
    const drop = opts.labelHeaders.length;
    headers = headers.filter((_, c) => c !== drop);
    cells = cells.map((r) => r.filter((_, c) => c !== drop));
    widths = widths.filter((_, c) => c !== drop);
  }
  const line = (r: string[]) => r.map((s, c) => s + ' '.repeat(widths[c]! - width(s))).join('  ');
  const lead = widths.reduce((a, w) => a + w, 0) + 2 * (widths.length - 1) + 1;
  const area = Math.max(10, opts.width - lead - 2);
  const withDate = new Date(min).toDateString() !== new Date(max).toDateString();
  const from = timed.length === 0 ? '' : opts.formatTime(min, withDate);
  const to = timed.length === 0 ? '' : opts.formatTime(max, withDate);
  const rule = Math.max(1, area - width(from) - width(to) - 2);
  const axis = timed.length === 0 ? '' : area >= width(from) + width(to) + 3 ? `${from} ${'─'.repeat(rule)} ${to}` : from;
  const header = [`${line(headers)} │${axis}`];
  const rows = bars.map((b, i) => {
    let bar = ' '.repeat(area);
    if (b.startMs !== undefined) {
      const x0 = Math.min(area - 1, Math.floor(((b.startMs - min) / span) * area));
      const x1 = Math.max(x0 + 1, Math.min(area, Math.ceil((((b.endMs ?? b.startMs) - min) / span) * area)));
      bar = ' '.repeat(x0) + (b.pending ? '▒' : '█').repeat(x1 - x0) + ' '.repeat(area - x1);
    }
    return `${line(cells[i]!)} │${bar}│`;
  });
  return { header, rows, lanes };
}
