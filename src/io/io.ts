// The streams and terminal facts every command writes through. Decided once (systemIO) and injected,
// so tests run the whole CLI in-process with makeTestIO.

export interface IO {
  /** Text, or UTF-8 bytes the stream may keep (big tables are written as encoded chunks). */
  stdout: (s: string | Uint8Array) => void;
  stderr: (s: string) => void;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  /** Colour allowed at all; Output still only colours a TTY (piped output never carries ANSI). */
  colorEnabled: boolean;
  columns: number;
  /** screen height (what a pager decides on); 24 when unknown */
  rows: number;
  /** stdout is a terminal a pager may take over (never for in-memory test IO unless asked) */
  pager: boolean;
  stdin?: NodeJS.ReadableStream;
}

type Env = Record<string, string | undefined>;

/** One of the process's output streams as systemIO uses it. */
export interface StdStream {
  isTTY: boolean;
  columns: number | undefined;
  rows?: number | undefined;
  write(s: string | Uint8Array): void;
}

/** Node's own process.stdout/stderr (the CLI passes its descriptor writers, commands/stdio.ts). */
export function nodeStream(s: NodeJS.WriteStream): StdStream {
  return {
    isTTY: s.isTTY === true,
    get columns() {
      return s.isTTY ? s.columns : undefined;
    },
    get rows() {
      return s.isTTY ? s.rows : undefined;
    },
    write: (x) => void s.write(x),
  };
}

/**
 * The real process streams.
 *   TBLCLI_FORCE_TTY  set (not "", "0", "false") → treat stdout and stderr as terminals (like
 *                     GH_FORCE_TTY); a number also sets the width.
 *   NO_COLOR          set and non-empty → no colour (no-color.org), wins over everything.
 *   FORCE_COLOR       set (not "0"/"false") → colour even with TERM=dumb.
 *   otherwise colour when stdout is a TTY and TERM is not "dumb".
 */
export function systemIO(env: Env = process.env, std?: { out: StdStream; err: StdStream }): IO {
  const force = env.TBLCLI_FORCE_TTY;
  const forced = force !== undefined && force !== '' && force !== '0' && force.toLowerCase() !== 'false';
  const out = std?.out ?? nodeStream(process.stdout);
  const err = std?.err ?? nodeStream(process.stderr);
  const isStdoutTTY = forced || out.isTTY;
  const isStderrTTY = forced || err.isTTY;
  const forcedCols = forced && /^\d+$/.test(force!) ? Number(force) : undefined;
  const envCols = env.COLUMNS && /^\d+$/.test(env.COLUMNS) ? Number(env.COLUMNS) : undefined;
  const columns = forcedCols ?? out.columns ?? envCols ?? 80;
  const envRows = env.LINES && /^\d+$/.test(env.LINES) ? Number(env.LINES) : undefined;
  const rows = out.rows ?? envRows ?? 24;

  let colorEnabled: boolean;
  const fc = env.FORCE_COLOR;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') colorEnabled = false;
  else if (fc !== undefined && fc !== '0' && fc.toLowerCase() !== 'false') colorEnabled = true;
  else colorEnabled = isStdoutTTY && env.TERM !== 'dumb';

  return {
    stdout: out.write,
    stderr: err.write,
    isStdoutTTY,
    isStderrTTY,
    colorEnabled,
    columns,
    rows,
    pager: isStdoutTTY,
    // a getter: touching process.stdin builds a stream (and a pipe handle) that most commands never read
    get stdin() {
      return process.stdin;
    },
  };
}

/** In-memory IO for tests (gh's iostreams.Test): not a TTY, 100 columns, no colour unless asked. */
export function makeTestIO(opts: { tty?: boolean; columns?: number; rows?: number; color?: boolean; pager?: boolean } = {}): {
  io: IO;
  out(): string;
  err(): string;
} {
  let out = '';
  let err = '';
  const tty = opts.tty ?? false;
  const utf8 = new TextDecoder();
  const io: IO = {
    stdout: (s) => {
      out += typeof s === 'string' ? s : utf8.decode(s, { stream: true });
    },
    stderr: (s) => {
      err += s;
    },
    isStdoutTTY: tty,
    isStderrTTY: tty,
    colorEnabled: opts.color ?? false,
    columns: opts.columns ?? 100,
    rows: opts.rows ?? 24,
    pager: opts.pager ?? false,
  };
  return { io, out: () => out, err: () => err };
}
