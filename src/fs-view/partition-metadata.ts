// `.hoodie_partition_metadata` (format-data.md §1.8): a java.util.Properties text file, or a zero-row
// parquet/orc file whose footer carries the same two keys. Readers try text, then parquet, then orc.
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';
import { PARTITION_METAFILE } from './names.ts';

export interface PartitionMetadata {
  /** which file was read */
  file: string;
  format: 'text' | 'parquet';
  commitTime?: string;
  partitionDepth?: number;
  properties: Record<string, string>;
}

/** java.util.Properties text: `#` / `!` comments, `key=value` or `key: value`, backslash escapes. */
export function parseJavaProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.replace(/^\s+/, '');
    const m = /^((?:\\.|[^=:\s\\])*)\s*[=:\s]?\s*(.*)$/.exec(line);
    if (!m) continue;
    const unescape = (s: string) =>
      s.replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_, u: string | undefined, c: string | undefined) =>
        u ? String.fromCharCode(Number.parseInt(u, 16)) : c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 'f' ? '\f' : c!,
      );
    out[unescape(m[1]!)] = unescape(m[2]!);
  }
  return out;
}

function fromProps(file: string, format: 'text' | 'parquet', properties: Record<string, string>): PartitionMetadata {
  const depth = properties.partitionDepth;
  return {
    file,
    format,
    commitTime: properties.commitTime,
    partitionDepth: depth === undefined ? undefined : Number(depth),
    properties,
  };
}

/** Reads the partition metadata of `partitionDir`, or undefined when the directory has none. */
export async function readPartitionMetadata(storage: Storage, partitionDir: string): Promise<PartitionMetadata | undefined> {
  const text = joinPath(partitionDir, PARTITION_METAFILE);
  if (await storage.exists(text)) {
    const bytes = await storage.readFile(text);
    return fromProps(text, 'text', parseJavaProperties(new TextDecoder().decode(bytes)));
  }
  const pq = `${text}.parquet`;
  if (await storage.exists(pq)) {
    // the parquet reader (hyparquet + codecs) loads only for this rare variant
    const { readParquetInfo } = await import('../parquet/read.ts');
    const info = await readParquetInfo(storage, pq);
    const props: Record<string, string> = {};
    for (const k of ['commitTime', 'partitionDepth']) if (info.keyValue[k] !== undefined) props[k] = info.keyValue[k]!;
    return fromProps(pq, 'parquet', props);
  }
  if (await storage.exists(`${text}.orc`)) {
    throw new TblError('unsupported', `ORC partition metadata ${text}.orc cannot be read`, { path: `${text}.orc` });
  }
  return undefined;
}
