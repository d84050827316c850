// What the browse app is given: plain data and loaders built from a table by src/views/browse.ts.
// Nothing here knows Hudi; the app only lists, filters, draws and follows `open`.
import type { Tone } from '../table-model.ts';

export interface BrowseItem {
  /** stable id across refreshes (requested time + action) */
  id: string;
  instant: string;
  action: string;
  state: string;
  pending: boolean;
  /** the list's cells, in the order of BrowseData.headers */
  cells: string[];
  startMs?: number;
  endMs?: number;
}

export interface BrowseData {
  title: string;
  headers: string[];
  items: BrowseItem[];
  /** when the timeline was read (shown in the title bar) */
  loadedAt: string;
}

export interface DrillLevel {
  title: string;
  headers: string[];
  cells: string[][];
  /** the tblcli command printing this level (shown, never run) */
  command: string;
  /** the level below a row; a string says why there is none */
  open?: (row: number) => Promise<DrillLevel | string | undefined>;
}

export interface DoctorLine {
  text: string;
  tone?: Tone;
}

export interface DoctorView {
  lines: DoctorLine[];
  /** instants the findings name: marked in the list */
  instants: string[];
}

export interface BrowseSource {
  load(): Promise<BrowseData>;
  open(item: BrowseItem): Promise<DrillLevel | string>;
  doctor(): Promise<DoctorView>;
  /** the exact tblcli command that shows more about the instant, or acts on it */
  suggest(item: BrowseItem): string;
  /** the chart's time labels (HH:mm:ss, with the date when the chart spans days) */
  formatTime(ms: number, withDate: boolean): string;
  /** the current time, for pending bars */
  now(): number;
}
