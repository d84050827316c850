// `--json[=fields]`: an array of objects keyed by column key, with RAW values (numbers stay numbers,
// bytes stay bytes, null stays null). Field order follows the --json list when one is given.

import { TblError } from '../errors/index.ts';
import type { TableModel } from './table-model.ts';

export function renderJson(model: TableModel, opts: { pretty: boolean; fields?: string[] }): string {
  const indices = selectFields(model.keys, opts.fields);
  const objects = model.rawRows.map((raw) => {
    const o: Record<string, unknown> = {};
    for (const i of indices) o[model.keys[i]!] = raw[i];
    return o;
  });
  return JSON.stringify(objects, null, opts.pretty ? 2 : undefined);
}

/** Column indices for the requested fields (all when none); unknown names are a usage error. */
export function selectFields(keys: string[], fields?: string[]): number[] {
  if (!fields || fields.length === 0) return keys.map((_, i) => i);
  const out: number[] = [];
  for (const f of fields) {
    const i = keys.indexOf(f);
    if (i < 0) {
      throw new TblError('usage', `Unknown JSON field '${f}'. Available fields: ${keys.join(', ')}`, { key: f });
    }
    if (!out.includes(i)) out.push(i);
  }
  return out;
}
