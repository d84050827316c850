// The shapes tblcli's own commands hand to the terminal renderer (render/tty/person.ts, which is
// loaded only when they render: it brings cli-table3 and chalk).
import type { Tone } from './table-model.ts';

export interface CheckItem {
  tone: Tone;
  /** the word a pipe shows (ok, info, warning, error) */
  word: string;
  name: string;
  summary: string;
  /** the next step ('' or '-' for none) */
  next: string;
  details: string[];
}

/** A line above a checklist; `{ wrap: false }` for one the renderer must not break (a path). */
export type IntroLine = string | { text: string; tty?: string; wrap: false };
