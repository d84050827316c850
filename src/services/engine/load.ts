// Engine settings from a command's flags, the environment and the --engine-conf file.
import { TblError } from '../../errors/index.ts';
import { LocalStorage } from '../../storage/index.ts';
import { joinPath } from '../../util/index.ts';
import { parseEngineConf } from './conf-file.ts';
import { engineOf, resolveEngineSettings, type EngineName, type EngineSettings, type SettingKey, type SettingSources } from './settings.ts';

export interface LoadedEngine {
  engine: EngineName;
  /** undefined for the local engine */
  settings?: EngineSettings;
}

/** Settings that are also options of a local run. */
const LOCAL_TOO = new Set<SettingKey>(['engine', 'parallelism']);

/** `confPath` (the --engine-conf flag) wins over TBLCLI_ENGINE_CONF; relative paths are from `cwd`. */
export async function loadEngineSettings(args: { flags: Partial<Record<SettingKey, unknown>>; env: Record<string, string | undefined>; cwd: string; confPath?: string }): Promise<LoadedEngine> {
  const confPath = args.confPath ?? (args.env.TBLCLI_ENGINE_CONF || undefined);
  let file: SettingSources['file'];
  if (confPath) {
    const abs = confPath.startsWith('/') ? confPath : joinPath(args.cwd, confPath);
    let text: string;
    try {
      text = new TextDecoder().decode(await new LocalStorage().readFile(abs));
    } catch (e) {
      throw new TblError('usage', `engine conf ${confPath}: ${(e as Error).message.replace(/^read \S+: /, '')}`, { path: confPath, cause: e });
    }
    file = { path: confPath, entries: parseEngineConf(text, confPath) };
  }
  const src: SettingSources = { flags: args.flags, env: args.env, file };
  const engine = engineOf(src);
  if (engine === 'local') {
    const given = (Object.keys(args.flags) as SettingKey[]).filter((k) => !LOCAL_TOO.has(k) && args.flags[k] !== undefined);
    if (given.length > 0) throw new TblError('usage', `--${given[0]} needs --engine spark or flink (the local engine is tblcli itself)`);
    return { engine };
  }
  return { engine, settings: resolveEngineSettings(engine, src) };
}
