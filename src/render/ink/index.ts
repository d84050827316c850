// The ink apps. This module (and through it ink and react) is loaded only by `tblcli browse`.
import React from 'react';
import { render } from 'ink';
import { BrowseApp } from './browse-app.tsx';
import type { BrowseSource } from './types.ts';

export { BrowseApp, screenLines, filtered } from './browse-app.tsx';
export type { BrowseSource, BrowseData, BrowseItem, DrillLevel, DoctorView, DoctorLine } from './types.ts';

/** Runs the browser on the terminal (alternate screen) until q or Ctrl-C. */
export async function runBrowse(source: BrowseSource, opts: { watchMs?: number; stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream }): Promise<void> {
  opts.stdout.write('\u001b[?1049h\u001b[H');
  try {
    const app = render(React.createElement(BrowseApp, { source, watchMs: opts.watchMs }), {
      stdout: opts.stdout,
      stdin: opts.stdin,
      exitOnCtrlC: true,
      patchConsole: false,
    });
    await app.waitUntilExit();
  } finally {
    opts.stdout.write('\u001b[?1049l');
  }
}
