// Golden outputs of the rendered tables, TTY (bold header on a colour terminal) and piped (plain),
// compared byte for byte with reviewed files under test/commands/golden/.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { makeCtx, runArgv } from '../../commands/main.ts';
import { makeTestIO } from '../../src/io/index.ts';

const G = (name: string) => join(import.meta.dirname, 'golden', name);

async function render(argv: string[], tty: boolean): Promise<string> {
  const t = makeTestIO({ tty, color: tty, columns: 200 });
  const ctx = makeCtx({ io: t.io, env: {}, now: () => new Date('2026-01-01T00:00:00Z'), stateDir: '/nonexistent-state' });
  const code = await runArgv(argv, ctx);
  expect(code, t.err()).toBe(0);
  return t.out();
}

const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const MOR6 = 'sample_table/mor/parquet/v6_nonpartitioned_rollback';

describe.skipIf(!HAVE_FIXTURES)('golden renders', () => {
  const cases: [string, string, string[]][] = [
    ['commits-show', MOR8, ['commits', 'show']],
    ['commits-show-extra', MOR6, ['commits', 'show', '--includeExtraMetadata']],
    ['compactions-show-all', MOR8, ['compactions', 'show', 'all']],
    ['compaction-show', MOR8, ['compaction', 'show', '--instant', '20251220210129235']],
    ['timeline-show-active', MOR8, ['timeline', 'show', 'active']],
    ['timeline-show-active-rollback', MOR6, ['timeline', 'show', 'active', '--show-rollback-info', '--show-time-seconds']],
    ['commits-show-sorted', MOR8, ['commits', 'show', '--sortBy', 'Total Bytes Written', '--desc', '--limit', '3']],
    ['commits-show-headeronly', MOR8, ['commits', 'show', '--headeronly']],
  ];
  for (const [name, id, argv] of cases) {
    it(`${name} piped`, async () => {
      const out = await render([...argv, '--path', table(id)], false);
      expect(out).not.toMatch(/\u001b\[/);
      await expect(out).toMatchFileSnapshot(G(`${name}.txt`));
    });
  }
  it('TTY output is the same box with a bold header on a colour terminal', async () => {
    const argv = ['commits', 'show', '--path', table(MOR8)];
    const tty = await render(argv, true);
    const piped = await render(argv, false);
    expect(tty).toContain('\u001b[1m');
    expect(tty.replace(/\u001b\[[0-9;]*m/g, '')).toBe(piped);
    await expect(tty).toMatchFileSnapshot(G('commits-show.tty.txt'));
  });
  it('csv and tsv keep the same columns with a header line', async () => {
    const csv = await render(['commits', 'show', '--format', 'csv', '--path', table(MOR8)], false);
    expect(csv.split('\n')[0]).toBe(
      'CommitTime,Total Bytes Written,Total Files Added,Total Files Updated,Total Partitions Written,Total Records Written,Total Update Records Written,Total Errors',
    );
    await expect(csv).toMatchFileSnapshot(G('commits-show.csv'));
    const tsv = await render(['timeline', 'show', 'active', '--format', 'tsv', '--path', table(MOR8)], false);
    expect(tsv.split('\n')[0]).toBe('No.\tInstant\tAction\tState\tRequested Time\tInflight Time\tCompleted Time');
  });
});
