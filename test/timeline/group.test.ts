// groupInstants over a real directory listing (LocalStorage, lazy statuses): one instant per
// (requested time, comparable action) in its latest state, completion time from the layout-2 name
// or the completed file's mtime (layout 1, read only when asked).
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalStorage } from '../../src/storage/index.ts';
import fc from 'fast-check';
import { ACTIONS, groupInstants, parseInstantFileName } from '../../src/timeline/index.ts';
import { parseSlowly } from '../../src/timeline/instant.ts';

function dirWith(names: string[], dirs: string[] = []): string {
  const d = mkdtempSync(join(tmpdir(), 'tblcli-group-'));
  for (const n of names) writeFileSync(join(d, n), '');
  for (const n of dirs) mkdirSync(join(d, n));
  return d;
}

const brief = (i: { requestedTime: string; action: string; state: string; effectiveAction: string; files: object }) =>
  `${i.requestedTime} ${i.action}/${i.effectiveAction} ${i.state} [${Object.keys(i.files).sort().join(',')}]`;

describe('groupInstants', () => {
  const storage = new LocalStorage();

  it('layout 1: states merge, a compaction completes as a commit, two actions at one time stay apart, 14- and 17-digit times order as Hudi', async () => {
    const d = dirWith(
      [
        '20250101000000000.deltacommit.requested',
        '20250101000000000.deltacommit.inflight',
        '20250101000000000.deltacommit',
        '20250102000000000.compaction.requested',
        '20250102000000000.compaction.inflight',
        '20250102000000000.commit',
        '20250103000000000.clean.requested',
        '20250103000000000.commit.requested',
        '20250103000000000.inflight',
        '20250103000000.rollback',
        'hoodie.properties',
      ],
      ['archived', '20250104000000000.commit'],
    );
    const instants = groupInstants(await storage.list(d, { lazyStatus: true }), { layout: 1, timezone: 'UTC' });
    expect(instants.map(brief)).toEqual([
      '20250101000000000 deltacommit/deltacommit COMPLETED [COMPLETED,INFLIGHT,REQUESTED]',
      '20250102000000000 commit/compaction COMPLETED [COMPLETED,INFLIGHT,REQUESTED]',
      '20250103000000 rollback/rollback COMPLETED [COMPLETED]',
      '20250103000000000 clean/clean REQUESTED [REQUESTED]',
      '20250103000000000 commit/commit INFLIGHT [INFLIGHT,REQUESTED]',
    ]);
  });

  it('layout 1: completion time is the completed file mtime in the table timezone, read on access; JSON carries it', async () => {
    const d = dirWith(['20250101000000000.commit.requested', '20250101000000000.commit', '20250102000000000.commit.requested']);
    const at = new Date(Date.UTC(2025, 0, 1, 0, 0, 7, 250));
    utimesSync(join(d, '20250101000000000.commit'), at, at);
    const [done, pending] = groupInstants(await storage.list(d, { lazyStatus: true }), { layout: 1, timezone: 'UTC' });
    expect(done!.completionTime).toBe('20250101000007250');
    expect(pending!.completionTime).toBeUndefined();
    expect(JSON.parse(JSON.stringify(done))).toMatchObject({ requestedTime: '20250101000000000', completionTime: '20250101000007250', state: 'COMPLETED' });
  });

  it('layout 2: completion time from the file name', async () => {
    const d = dirWith(['20250101000000000.deltacommit.requested', '20250101000000000.deltacommit.inflight', '20250101000000000_20250101000009000.deltacommit']);
    const [i] = groupInstants(await storage.list(d, { lazyStatus: true }), { layout: 2, timezone: 'UTC' });
    expect(i!.completionTime).toBe('20250101000009000');
    expect(brief(i!)).toBe('20250101000000000 deltacommit/deltacommit COMPLETED [COMPLETED,INFLIGHT,REQUESTED]');
  });
});

describe('parseInstantFileName fast path', () => {
  it('agrees with the regex parse on valid and invalid names, both layouts (results and error messages)', () => {
    const outcome = (f: () => unknown) => {
      try {
        return { ok: f() };
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    const suffixes = [
      ...ACTIONS.flatMap((a) => [`.${a}`, `.${a}.requested`, `.${a}.inflight`]),
      '.inflight', '.requested', '.commit.crc', '.frobnicate', '.commit.done', '.commit.inflight.x', '', '.', '.deltacommit.', 'x.commit',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom('20250101000000000', '20250101000000', '1', '0020250101000000000'),
        fc.constantFrom('', '_20250101000001000', '_', '_x', '_1'),
        fc.constantFrom(...suffixes),
        fc.constantFrom(1 as const, 2 as const),
        (time, completion, suffix, layout) => {
          const name = time + completion + suffix;
          expect(outcome(() => parseInstantFileName(name, layout, `/t/${name}`)), name).toEqual(outcome(() => parseSlowly(name, layout, `/t/${name}`)));
        },
      ),
      { numRuns: 3000 },
    );
    for (const name of ['hoodie.properties', 'archived', '.aux', '_x.commit']) expect(parseInstantFileName(name, 2)).toBeUndefined();
  });
});
