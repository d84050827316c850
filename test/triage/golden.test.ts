// The output of `collisions`, `orphans`, `doctor` and `metrics` (JSON, plus the doctor text and the
// Prometheus text) on the demo table, a demo table with many planted findings (zoo.ts) and every
// hudi-rs fixture table, pinned byte for byte against golden files generated before the scan was
// rewritten for large tables (issue 22): same findings, same severities, same JSON.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAVE_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { demoTable } from './support.ts';
import { setAllMtimes, zooTable } from './zoo.ts';

const G = (name: string) => join(import.meta.dirname, 'golden', `${name}.json`);
const NOW = new Date('2026-01-01T12:00:00Z');
const LATER = new Date(NOW.getTime() + 2 * 86_400_000);

const BASIC: string[][] = [
  ['collisions', '--json'],
  ['orphans', '--json'],
  ['doctor', '--json'],
  ['doctor'],
  ['metrics', '--format', 'json'],
  ['metrics'],
];
const ZOO_EXTRA: string[][] = [
  ['collisions', '--bucket-index', '4', '--json'],
  ['collisions', '--keys', '--json'],
  ['orphans', '--dir', 'flink_sink', '--json'],
  ['orphans', '--older-than', '1s', '--json'],
  ['doctor', '--older-than', '30m', '--bucket-index', '4', '--json'],
];

/** Every command's exit code, stdout (parsed when JSON) and stderr, with the table path replaced. */
async function outputs(dir: string, commands: string[][], now: Date): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const argv of commands) {
    const r = await runCli([...argv, '--path', dir], { now });
    const norm = (s: string) => s.replaceAll(dir, '<table>');
    const json = argv.includes('--json') || argv.includes('json');
    out[argv.join(' ')] = { exitCode: r.exitCode, stdout: json ? JSON.parse(norm(r.stdout)) : norm(r.stdout), stderr: norm(r.stderr) };
  }
  return `${JSON.stringify(out, null, 1)}\n`;
}

describe('triage golden outputs', () => {
  for (const version of [6, 8] as const) {
    it(`demo table v${version}`, async () => {
      const { dir } = await demoTable(version, NOW);
      setAllMtimes(dir, new Date(NOW.getTime() - 5_000));
      await expect(await outputs(dir, BASIC, NOW)).toMatchFileSnapshot(G(`demo-v${version}`));
      await expect(await outputs(dir, BASIC, LATER)).toMatchFileSnapshot(G(`demo-v${version}-later`));
    });
    it(`zoo table v${version}`, async () => {
      const dir = await zooTable(version, NOW);
      await expect(await outputs(dir, [...BASIC, ...ZOO_EXTRA], NOW)).toMatchFileSnapshot(G(`zoo-v${version}`));
      await expect(await outputs(dir, [...BASIC, ...ZOO_EXTRA], LATER)).toMatchFileSnapshot(G(`zoo-v${version}-later`));
    });
  }
});

describe.skipIf(!HAVE_FIXTURES)('triage golden outputs on the hudi-rs fixture tables', () => {
  for (const id of HAVE_FIXTURES ? allTableIds() : []) {
    it(id, async () => {
      const commands = BASIC.filter((c) => c.join(' ') !== 'doctor'); // the text render is pinned on the demo tables
      await expect(await outputs(table(id), commands, new Date('2030-01-01T00:00:00Z'))).toMatchFileSnapshot(G(`fixtures/${id.replaceAll('/', '__')}`));
    });
  }
});
