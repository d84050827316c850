// A spinner on a terminal's stderr for work that turns out slow (reading a big timeline over
// WebHDFS): nothing for the first two seconds, then what is being done and for how long, redrawn
// ten times a second, cleared when the work settles. Never in pipes (stdout stays data either way).
import type { Ctx } from './context.ts';

const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

export async function spin<T>(ctx: Ctx, what: string, work: Promise<T>, opts: { afterMs?: number; frameMs?: number } = {}): Promise<T> {
  if (!ctx.io.isStderrTTY) return work;
  const started = Date.now();
  let frame = 0;
  let shown = false;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const draw = () => {
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const line = `${FRAMES[frame++ % FRAMES.length]} ${what} (${secs} s)`;
    ctx.io.stderr(`\r${[...line].slice(0, Math.max(10, ctx.io.columns - 1)).join('')}\u001b[K`);
    shown = true;
  };
  const delay = setTimeout(() => {
    draw();
    ticker = setInterval(draw, opts.frameMs ?? 100);
  }, opts.afterMs ?? 2000);
  try {
    return await work;
  } finally {
    clearTimeout(delay);
    if (ticker) clearInterval(ticker);
    if (shown) ctx.io.stderr('\r\u001b[K');
  }
}
