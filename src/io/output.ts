// The one place that decides how a command's result looks. tblcli output contract:
//   - table (default), TTY or piped: hudi-cli's FlipTable box, byte-identical to hudi-cli, because
//     runbooks grep and diff it. On a TTY with colour the header text is bold; piped output never
//     contains ANSI codes, whatever the colour settings say.
//   - --format csv|tsv: the same converted cells, with a header line (multi-line headers joined by
//     a space, e.g. "Requested Time").
//   - --json / --json=a,b / --format json: raw values keyed by column key; pretty on a TTY,
//     compact otherwise.
//   - tables are never truncated to io.columns: hudi-cli doesn't, and a cut cell is worse than a
//     wrapped line. The FlipTable string is written as is (it ends with '\n').
//   - stdout carries data only; info() (titles, hints) goes to stderr on a TTY, warn() always.
//   - tblcli's own commands (doctor, orphans, collisions) use view()/checklist(): for a person on a
//     TTY a box fitted to io.columns or a checklist, plain aligned text in pipes, the same --json and
//     --format; the same column specs drive every mode.

import {
  bold,
  buildTable,
  renderDelimited,
  renderFlipTable,
  renderJson,
  yellow,
  type ColumnSpec,
  type CheckItem,
  type IntroLine,
  type TableOptions,
} from '../render/index.ts';
import type { IO } from './io.ts';

export type OutputFormat = 'table' | 'csv' | 'tsv' | 'json';

export interface OutputOptions extends TableOptions {
  format?: OutputFormat;
  /** true for all fields, or the list of JSON field names (column keys) to keep. */
  json?: boolean | string[];
}

export class Output {
  readonly io: IO;

  constructor(io: IO) {
    this.io = io;
  }

  /** Colour only on a terminal, so redirected output is always plain. */
  private get color(): boolean {
    return this.io.colorEnabled && this.io.isStdoutTTY;
  }

  table<R>(columns: ColumnSpec<R>[], rows: R[], opts: OutputOptions = {}): void {
    const model = buildTable(columns, rows, opts);
    const json = opts.json !== undefined && opts.json !== false ? opts.json : opts.format === 'json' ? true : false;
    if (json !== false) {
      const fields = Array.isArray(json) ? json : undefined;
      this.io.stdout(`${renderJson(model, { pretty: this.io.isStdoutTTY, fields })}\n`);
      return;
    }
    if (opts.format === 'csv' || opts.format === 'tsv') {
      const headers = model.headers.map((h) => h.split('\n').join(' '));
      this.io.stdout(renderDelimited(headers, model.cells, opts.format === 'csv' ? ',' : '\t', { header: true }));
      return;
    }
    // written in encoded pieces: a 20k-row table is ~15 MB
    const writeBytes = (chunk: Uint8Array) => this.io.stdout(chunk);
    renderFlipTable(model.headers, model.cells, this.color ? { header: bold, writeBytes } : { writeBytes });
  }

  /** tblcli's own listings: a box fitted to the screen on a terminal, aligned plain columns in a pipe. */
  async view<R>(columns: ColumnSpec<R>[], rows: R[], opts: OutputOptions = {}): Promise<void> {
    const json = opts.json !== undefined && opts.json !== false;
    if (json || (opts.format !== undefined && opts.format !== 'table')) return this.table(columns, rows, opts);
    const model = buildTable(columns, rows, { ...opts, rowNumbers: false });
    const p = await import('../render/tty/person.ts');
    if (!this.io.isStdoutTTY) return void this.io.stdout(p.renderAligned(model.headers, model.cells));
    const tones = model.rawRows.map((raw) => raw.map((v, i) => columns[i]!.tone?.(v)));
    this.io.stdout(p.renderFitted(model.headers, model.cells, tones, this.io.columns, { color: this.color }));
  }

  /** Lines about the subject, then a checklist (doctor): wrapped and coloured on a terminal, one line per item in a pipe. */
  async checklist(intro: IntroLine[], items: CheckItem[], outro: string[] = []): Promise<void> {
    const p = await import('../render/tty/person.ts');
    const o = { tty: this.io.isStdoutTTY, columns: this.io.columns, color: this.color };
    this.io.stdout(`${p.renderWrapped(intro, o)}\n${p.renderChecklist(items, o)}${outro.length > 0 ? `\n${p.renderWrapped(outro, o)}` : ''}`);
  }

  /** A single object (`show`-style): pretty on a TTY, compact otherwise. */
  json(value: unknown): void {
    this.io.stdout(`${JSON.stringify(value, null, this.io.isStdoutTTY ? 2 : undefined)}\n`);
  }

  /** Data text for stdout (hudi-cli messages such as "Metadata for table x loaded"). */
  text(s: string): void {
    this.io.stdout(s.endsWith('\n') ? s : `${s}\n`);
  }

  /** Titles and hints: stderr, and only when a person is watching it. */
  info(s: string): void {
    if (this.io.isStderrTTY) this.io.stderr(s.endsWith('\n') ? s : `${s}\n`);
  }

  /** Always to stderr, prefixed "warning: " (yellow prefix on a colour terminal). */
  warn(s: string): void {
    const prefix = this.io.colorEnabled && this.io.isStderrTTY ? yellow('warning:') : 'warning:';
    this.io.stderr(`${prefix} ${s}${s.endsWith('\n') ? '' : '\n'}`);
  }
}
