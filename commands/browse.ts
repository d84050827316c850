// tblcli browse: the interactive timeline browser (ink, loaded only here).
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec } from './spec.ts';
import { parseDurationOpt } from './spec.ts';
import { openFromOpts } from './shared.ts';

/**
 * ink decides once, when it loads, that CI=true means "no terminal" and then draws only the last
 * frame. browse runs only on a terminal, where a CI variable left in the environment says nothing.
 */
async function withoutCiVariables<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  try {
    return await load();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
}

export const browseSpecs: CommandSpec[] = [
  {
    name: 'browse',
    pager: false,
    summary: 'Interactive timeline browser: filter, search, drill into instants, doctor findings, a time view (read-only; needs a terminal)',
    options: [{ flags: '--watch <duration>', description: 're-read the timeline at this interval (e.g. 5s), so a stuck instant is seen to move or not', parse: parseDurationOpt }],
    async action(ctx, o) {
      if (!ctx.io.isStdoutTTY || !process.stdin.isTTY) {
        throw new TblError('usage', 'browse needs a terminal on stdin and stdout', { hint: 'for a picture in a pipe use `tblcli timeline show active --chart`' });
      }
      const table = await openFromOpts(ctx, o, 'path', { spinner: false }); // the app says it is reading
      const v = await import('../src/views/browse.ts');
      const ink = await withoutCiVariables(() => import('../src/render/ink/index.ts'));
      await ink.runBrowse(v.browseSource(table, o.path as string | undefined, ctx.now), { watchMs: o.watch as number | undefined, stdout: process.stdout, stdin: process.stdin });
    },
  },
];
