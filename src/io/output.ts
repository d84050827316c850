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

import {
  bold,
  buildTable,
  renderDelimited,
  renderFlipTable,
  renderJson,
  yellow,
  type ColumnSpec,
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
