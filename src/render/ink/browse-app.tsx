// `tblcli browse`: a full-screen timeline browser (k9s / lazygit for one table). The screen is
// computed as lines by screenLines() from the state and the terminal size, and ink draws them and
// reads the keys; resizing redraws at the new size. Read-only: what it suggests is a command to run.
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { renderTimeChart } from '../time-chart.ts';
import type { Tone } from '../table-model.ts';
import { wrapText } from '../wrap.ts';
import type { BrowseData, BrowseItem, BrowseSource, DoctorView, DrillLevel } from './types.ts';

export type Mode = 'list' | 'time' | 'drill' | 'doctor' | 'help';
export type StateFilter = 'all' | 'pending' | 'completed';

export interface BrowseState {
  mode: Mode;
  /** where help and doctor return to */
  back: 'list' | 'time' | 'drill';
  cursor: number;
  stateFilter: StateFilter;
  actionFilter?: string;
  search?: { text: string; editing: boolean };
  message?: string;
  drill: { level: DrillLevel; cursor: number }[];
  doctor?: DoctorView;
  doctorTop: number;
}

export interface Line {
  text: string;
  tone?: Tone;
  inverse?: boolean;
  bold?: boolean;
  dim?: boolean;
}

const width = (s: string): number => [...s].length;
const cut = (s: string, w: number): string => ([...s].length > w ? [...s].slice(0, Math.max(0, w - 1)).join('') + '…' : s);

export function filtered(items: BrowseItem[], s: Pick<BrowseState, 'stateFilter' | 'actionFilter'>): BrowseItem[] {
  return items.filter(
    (i) => (s.stateFilter === 'all' || (s.stateFilter === 'pending') === i.pending) && (s.actionFilter === undefined || i.action === s.actionFilter),
  );
}

/** Columns joined by two spaces, dropping columns from the right until the rest fits. */
function tableLines(headers: string[], cells: string[][], w: number): { head: string; rows: string[] } {
  let n = headers.length;
  const widths = headers.map((h, c) => Math.max(width(h), ...cells.map((r) => width(r[c] ?? ''))));
  const total = (k: number) => widths.slice(0, k).reduce((a, x) => a + x, 0) + 2 * (k - 1);
  while (n > 2 && total(n) > w) n--;
  const line = (r: string[]) => cut(r.slice(0, n).map((s, c) => s + ' '.repeat(Math.max(0, widths[c]! - width(s)))).join('  ').trimEnd(), w);
  return { head: line(headers), rows: cells.map(line) };
}

/** The first row of a window of `h` rows that keeps `cursor` in view. */
function windowTop(cursor: number, count: number, h: number): number {
  if (count <= h) return 0;
  return Math.min(Math.max(0, cursor - Math.floor(h / 2)), count - h);
}

const KEYS = '↑↓ move  ⏎ open  / search  s state  a action  t time  d doctor  r refresh  ? help  q quit';
const HELP = [
  'tblcli browse: the timeline of one table, read-only',
  '',
  '↑ ↓ j k      move            PgUp PgDn  page       g G  first, last',
  '⏎            open the instant: partitions → files → write stat; a plan\'s operations;',
  '             a clean\'s deleted files; a rollback\'s targets',
  'Esc ← ⌫ h    back up a level',
  '/            search an instant (⏎ jumps, n next match, Esc clears)',
  's            state filter: all → pending → completed',
  'a            action filter: all → each action on the timeline',
  't            time view: each instant a bar from requested to completed (to now',
  '             while pending), one lane per concurrent instant',
  'd            doctor findings; the instants they name are marked ! in the list',
  'r            read the timeline again (--watch does it on an interval)',
  '?            this help        q  quit',
  '',
  'Nothing here changes the table: the bottom line shows the tblcli command to run.',
];

export function screenLines(
  data: BrowseData | undefined,
  s: BrowseState,
  size: { columns: number; rows: number },
  flagged: Set<string>,
  src: Pick<BrowseSource, 'suggest' | 'formatTime' | 'now'>,
  onDoctorMaxTop?: (n: number) => void,
): Line[] {
  const w = Math.max(20, size.columns);
  const h = Math.max(6, size.rows - 1); // one row spare: ink redraws in place below the full height
  const out: Line[] = [];
  if (!data) return [{ text: cut('tblcli browse: reading the timeline…', w), dim: true }];
  const items = filtered(data.items, s);
  const filters = `state:${s.stateFilter} action:${s.actionFilter ?? 'all'}${s.search && s.search.text ? ` /${s.search.text}` : ''}`;
  out.push({ text: cut(` ${data.title} · ${items.length}/${data.items.length} instants · ${filters} · read ${data.loadedAt}`, w).padEnd(w), inverse: true });
  const body = h - 3;
  const current = items[s.cursor];
  let status = s.message ?? (current ? `$ ${src.suggest(current)}` : 'no instants match the filters');
  let keys = KEYS;
  if (s.mode === 'help') {
    for (const l of HELP.slice(0, body + 1)) out.push({ text: cut(l, w) });
    keys = 'any key: back';
  } else if (s.mode === 'doctor') {
    const lines = (s.doctor?.lines ?? [{ text: 'running doctor…', tone: 'dim' as const }]).flatMap((l) => wrapText(l.text, w).map((text) => ({ ...l, text })));
    out.push({ text: cut('doctor: findings for this table (instants they name are marked ! in the list)', w), bold: true });
    const maxTop = Math.max(0, lines.length - (body - 1));
    onDoctorMaxTop?.(maxTop);
    const top = Math.min(s.doctorTop, maxTop);
    for (const l of lines.slice(top, top + body - 1)) out.push({ ...l, text: cut(l.text, w) });
    keys = '↑↓ scroll  Esc/d back  q quit';
  } else if (s.mode === 'drill') {
    const { level, cursor } = s.drill[s.drill.length - 1]!;
    out.push({ text: cut(level.title, w), bold: true });
    const t = tableLines(level.headers, level.cells, w - 2);
    out.push({ text: `  ${t.head}`, bold: true });
    if (t.rows.length === 0) out.push({ text: '  (none)', dim: true });
    const top = windowTop(cursor, t.rows.length, body - 2);
    t.rows.slice(top, top + body - 2).forEach((r, k) => out.push({ text: `  ${r}`.padEnd(w), inverse: top + k === cursor }));
    status = s.message ?? `$ ${level.command}`;
    keys = `↑↓ move  ${level.open ? '⏎ open  ' : ''}Esc back  ? help  q quit`;
  } else if (s.mode === 'time') {
    const chart = renderTimeChart(
      items.map((i) => ({ labels: [i.instant, i.action, i.state], startMs: i.startMs, endMs: i.endMs, pending: i.pending })),
      { width: w - 2, labelHeaders: ['Instant', 'Action', 'State'], formatTime: src.formatTime },
    );
    for (const l of chart.header) out.push({ text: `  ${cut(l, w - 2)}`, bold: true });
    const top = windowTop(s.cursor, chart.rows.length, body - chart.header.length);
    chart.rows.slice(top, top + body - chart.header.length).forEach((r, k) => {
      const i = items[top + k]!;
      out.push({ text: `${flagged.has(i.instant) ? '!' : ' '} ${r}`, inverse: top + k === s.cursor, tone: flagged.has(i.instant) ? 'warn' : i.pending ? 'info' : undefined });
    });
    keys = `█ done ▒ pending  ${KEYS}`;
  } else {
    const t = tableLines(data.headers, items.map((i) => i.cells), w - 2);
    out.push({ text: `  ${t.head}`, bold: true });
    const top = windowTop(s.cursor, t.rows.length, body - 1);
    t.rows.slice(top, top + body - 1).forEach((r, k) => {
      const i = items[top + k]!;
      out.push({ text: `${flagged.has(i.instant) ? '!' : ' '} ${r}`.padEnd(w), inverse: top + k === s.cursor, tone: flagged.has(i.instant) ? 'warn' : i.pending ? 'info' : undefined });
    });
  }
  while (out.length < h - 2) out.push({ text: '' });
  if (s.search?.editing) status = `/${s.search.text}▏`;
  out.push({ text: cut(status, w), tone: s.message ? 'warn' : undefined });
  out.push({ text: cut(keys, w), dim: true });
  return out;
}

const TONE_COLOR: Record<Tone, string> = { good: 'green', info: 'cyan', warn: 'yellow', bad: 'red', dim: 'gray' };

export interface BrowseAppProps {
  source: BrowseSource;
  /** re-read the timeline this often (ms) */
  watchMs?: number;
  /** initial size when stdout does not report one (tests) */
  size?: { columns: number; rows: number };
}

const INITIAL: BrowseState = { mode: 'list', back: 'list', cursor: 0, stateFilter: 'all', drill: [], doctorTop: 0 };

export function BrowseApp({ source, watchMs, size }: BrowseAppProps): React.ReactElement {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const measure = () => ({ columns: stdout.columns || size?.columns || 80, rows: stdout.rows || size?.rows || 24 });
  const [dims, setDims] = useState(measure);
  const [data, setData] = useState<BrowseData>();
  const [s, setS] = useState<BrowseState>(INITIAL);
  const state = useRef(s);
  const doctorMaxTop = useRef(0);
  const dataRef = useRef(data);
  dataRef.current = data;

  // the ref is the state of record: keys arriving before the next render see the last change
  const apply = (next: BrowseState) => {
    state.current = next;
    setS(next);
  };
  const setLater = (f: (s: BrowseState) => BrowseState) => apply(f(state.current));
  const update = (patch: Partial<BrowseState>) => apply({ ...state.current, message: undefined, ...patch });

  const reload = useCallback(async () => {
    try {
      const d = await source.load();
      const prev = dataRef.current;
      dataRef.current = d;
      setData(d);
      // keep the cursor on the same instant across a refresh
      setLater((cur) => {
        const before = prev ? filtered(prev.items, cur)[cur.cursor]?.id : undefined;
        const after = filtered(d.items, cur);
        const at = before === undefined ? -1 : after.findIndex((i) => i.id === before);
        return { ...cur, cursor: at >= 0 ? at : Math.min(cur.cursor, Math.max(0, after.length - 1)) };
      });
    } catch (e) {
      setLater((cur) => ({ ...cur, message: `could not read the timeline: ${(e as Error).message}` }));
    }
  }, [source]);

  useEffect(() => {
    void reload();
    if (!watchMs) return undefined;
    const t = setInterval(() => void reload(), watchMs);
    return () => clearInterval(t);
  }, [reload, watchMs]);

  useEffect(() => {
    const onResize = () => setDims(measure());
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout]);

  const loadDoctor = async () => {
    update({ mode: 'doctor', back: state.current.mode === 'doctor' ? 'list' : (state.current.mode as BrowseState['back']), doctorTop: 0 });
    if (state.current.doctor) return;
    try {
      const d = await source.doctor();
      setLater((cur) => ({ ...cur, doctor: d }));
    } catch (e) {
      setLater((cur) => ({ ...cur, doctor: { lines: [{ text: `doctor failed: ${(e as Error).message}`, tone: 'bad' }], instants: [] } }));
    }
  };

  const openLevel = async (p: Promise<DrillLevel | string | undefined>) => {
    try {
      const level = await p;
      if (level === undefined) return;
      if (typeof level === 'string') return void setLater((cur) => ({ ...cur, message: level }));
      setLater((cur) => ({ ...cur, mode: 'drill', back: 'drill', drill: [...cur.drill, { level, cursor: 0 }], message: undefined }));
    } catch (e) {
      setLater((cur) => ({ ...cur, message: `could not open: ${(e as Error).message}` }));
    }
  };

  useInput((input, key) => {
    // refs, not this render's values: ink may call a handler of the previous render once more
    const cur = state.current;
    const data = dataRef.current;
    const items = data ? filtered(data.items, cur) : [];
    if (cur.search?.editing) {
      if (key.escape) return update({ search: undefined });
      if (key.return) {
        const q = cur.search.text;
        const at = items.findIndex((i) => i.instant.includes(q));
        return update(at >= 0 ? { search: { text: q, editing: false }, cursor: at } : { search: { text: q, editing: false }, message: `no instant matches ${q}` });
      }
      if (key.backspace || key.delete) return update({ search: { text: cur.search.text.slice(0, -1), editing: true } });
      if (input && !key.ctrl && !key.meta) return update({ search: { text: cur.search.text + input, editing: true } });
      return;
    }
    if (cur.mode === 'help') return update({ mode: cur.back });
    if (input === 'q') return exit();
    if (input === '?') return update({ mode: 'help', back: cur.mode === 'doctor' ? 'list' : (cur.mode as BrowseState['back']) });
    const page = Math.max(1, dims.rows - 6);
    const move = (n: number, len: number, at: number) => Math.max(0, Math.min(len - 1, at + n));
    const step = key.upArrow || input === 'k' ? -1 : key.downArrow || input === 'j' ? 1 : key.pageUp ? -page : key.pageDown ? page : input === 'g' ? -Infinity : input === 'G' ? Infinity : 0;
    if (cur.mode === 'doctor') {
      if (key.escape || input === 'd' || key.leftArrow) return update({ mode: cur.back === 'drill' && cur.drill.length > 0 ? 'drill' : cur.back === 'time' ? 'time' : 'list' });
      if (step !== 0) return update({ doctorTop: Math.max(0, Math.min(doctorMaxTop.current, cur.doctorTop + (Number.isFinite(step) ? step : step > 0 ? 1e9 : -1e9))) });
      return;
    }
    if (cur.mode === 'drill') {
      const top = cur.drill[cur.drill.length - 1]!;
      if (key.escape || key.leftArrow || key.backspace || key.delete || input === 'h') {
        const rest = cur.drill.slice(0, -1);
        return update({ drill: rest, mode: rest.length > 0 ? 'drill' : 'list' });
      }
      if (step !== 0) {
        const len = top.level.cells.length;
        const at = Number.isFinite(step) ? move(step, len, top.cursor) : step > 0 ? len - 1 : 0;
        return update({ drill: [...cur.drill.slice(0, -1), { ...top, cursor: Math.max(0, at) }] });
      }
      if (key.return && top.level.open) return void openLevel(top.level.open(top.cursor));
      if (input === 'd') return void loadDoctor();
      return;
    }
    // list and time
    if (step !== 0) return update({ cursor: Math.max(0, Number.isFinite(step) ? move(step, items.length, cur.cursor) : step > 0 ? items.length - 1 : 0) });
    if (key.return && items[cur.cursor]) return void openLevel(source.open(items[cur.cursor]!));
    if (input === '/') return update({ search: { text: '', editing: true } });
    if (input === 'n' && cur.search?.text) {
      const q = cur.search.text;
      const order = [...items.keys()].map((k) => (cur.cursor + 1 + k) % items.length);
      const at = order.find((k) => items[k]!.instant.includes(q));
      return update(at === undefined ? { message: `no instant matches ${q}` } : { cursor: at });
    }
    if (key.escape && cur.search) return update({ search: undefined });
    if (input === 's') {
      const next: StateFilter = cur.stateFilter === 'all' ? 'pending' : cur.stateFilter === 'pending' ? 'completed' : 'all';
      return update({ stateFilter: next, cursor: 0 });
    }
    if (input === 'a' && data) {
      const actions = [...new Set(data.items.map((i) => i.action))].sort();
      const at = cur.actionFilter === undefined ? -1 : actions.indexOf(cur.actionFilter);
      return update({ actionFilter: at + 1 < actions.length ? actions[at + 1] : undefined, cursor: 0 });
    }
    if (input === 't') return update({ mode: cur.mode === 'time' ? 'list' : 'time' });
    if (input === 'd') return void loadDoctor();
    if (input === 'r') {
      update({ message: 'reading the timeline…' });
      return void reload().then(() => setLater((c) => (c.message === 'reading the timeline…' ? { ...c, message: undefined } : c)));
    }
  });

  const flagged = new Set(s.doctor?.instants ?? []);
  const lines = screenLines(data, s, dims, flagged, source, (n) => (doctorMaxTop.current = n));
  return (
    <Box flexDirection="column">
      {lines.map((l, k) => (
        <Text key={k} wrap="truncate" inverse={l.inverse} bold={l.bold} dimColor={l.dim} color={l.tone ? TONE_COLOR[l.tone] : undefined}>
          {l.text === '' ? ' ' : l.text}
        </Text>
      ))}
    </Box>
  );
}
