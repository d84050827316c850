import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, table, allTableIds } from './support/fixtures.ts';

describe.skipIf(!HAVE_FIXTURES)('fixture registry', () => {
  it('extracts every table with a .hoodie/hoodie.properties', () => {
    const ids = allTableIds();
    expect(ids).toHaveLength(47);
    for (const id of ids) {
      const base = table(id);
      expect(existsSync(join(base, '.hoodie', 'hoodie.properties')), id).toBe(true);
      expect(readdirSync(base).includes('__MACOSX')).toBe(false);
    }
  });
});
