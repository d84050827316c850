import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMan } from '../commands/man.ts';
import { COMMANDS } from '../commands/registry.ts';
import { VERSION } from '../commands/version.ts';

describe('man page', () => {
  it('man/tblcli.1 is what the registry generates (run `npm run man` after changing commands)', async () => {
    const checkedIn = readFileSync(join(import.meta.dirname, '..', 'man', 'tblcli.1'), 'utf8');
    expect(checkedIn).toBe(await generateMan(COMMANDS, VERSION));
  });
  it('documents every command, exit code and JSON field list', async () => {
    const page = await generateMan(COMMANDS, VERSION);
    for (const c of COMMANDS) expect(page).toContain(`.B ${c.name.replace(/-/g, '\\-')}`);
    for (const code of ['0', '1', '2', '3', '4', '130']) expect(page).toContain(`.B ${code}\n`);
    expect(page).toContain('JSON fields: commitTime, totalBytesWritten');
  });
});
