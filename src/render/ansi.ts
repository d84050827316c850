// A tiny ANSI helper instead of chalk: two escape codes are all we need, and it keeps startup free
// of any import cost.

// Same pattern fliptables uses to ignore colour when measuring (`\u001B\[[;\d]*m`).
const ANSI_SGR = /\u001b\[[;\d]*m/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI_SGR, '');
}

/** Visible width the way FlipTable measures it: UTF-16 length with SGR codes removed. */
export function visibleLength(s: string): number {
  return stripAnsi(s).length;
}

export function bold(s: string): string {
  return `\u001b[1m${s}\u001b[22m`;
}

export function yellow(s: string): string {
  return `\u001b[33m${s}\u001b[39m`;
}
