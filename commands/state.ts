// The remembered `connect --path`, in $XDG_STATE_HOME/tblcli (default ~/.local/state/tblcli).
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultStateDir(env: Record<string, string | undefined>): string {
  if (env.TBLCLI_STATE_DIR) return env.TBLCLI_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'tblcli');
}

export interface SavedState {
  path?: string;
  tableName?: string;
  connectedAt?: string;
}

// node:fs/promises is imported when needed: it is not free at start-up.
export async function loadState(dir: string): Promise<SavedState> {
  const { readFile } = await import('node:fs/promises');
  try {
    return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as SavedState;
  } catch {
    return {};
  }
}

export async function saveState(dir: string, s: SavedState): Promise<void> {
  const { mkdir, rename, writeFile } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `state.json.${process.pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify(s, null, 2)}\n`);
  await rename(tmp, join(dir, 'state.json'));
}
