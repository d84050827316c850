import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMan } from '../commands/man.ts';
import { allCommands, FAMILY_ORDER, FIRST_WORDS, loadFamily } from '../commands/registry.ts';
import { VERSION } from '../commands/version.ts';

describe('man page', () => {
  it('man/tblcli.1 is what the registry generates (run `npm run man` after changing commands)', async () => {
    const checkedIn = readFileSync(join(import.meta.dirname, '..', 'man', 'tblcli.1'), 'utf8');
    expect(checkedIn).toBe(await generateMan(await allCommands(), VERSION));
  });
  it('documents every command, exit code and JSON field list', async () => {
    const commands = await allCommands();
    const page = await generateMan(commands, VERSION);
    for (const c of commands) expect(page).toContain(`.B ${c.name.replace(/-/g, '\\-')}`);
    for (const code of ['0', '1', '2', '3', '4', '130']) expect(page).toContain(`.B ${code}\n`);
    expect(page).toContain('JSON fields: commitTime, totalBytesWritten');
  });
});

describe('command registry', () => {
  it('FIRST_WORDS names, for every first word of a command or alias, exactly the families defining one (in help order)', async () => {
    const found: Record<string, string[]> = {};
    for (const f of FAMILY_ORDER) {
      for (const c of await loadFamily(f)) {
        for (const n of [c.name, ...(c.aliases ?? [])]) {
          const w = n.split(' ')[0]!;
          found[w] ??= [];
          if (!found[w]!.includes(f)) found[w]!.push(f);
        }
      }
    }
    expect(Object.fromEntries(Object.entries(FIRST_WORDS).sort())).toEqual(Object.fromEntries(Object.entries(found).sort()));
  });
});
