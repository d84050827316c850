import { TblError } from '../../errors/index.ts';
import type { Location, StorageOptions } from '../resolve.ts';

// Replaced by the WebHDFS client (issue 3).
export async function openWebHdfs(uri: string, _opts: StorageOptions): Promise<Location> {
  throw new TblError('unsupported', `WebHDFS storage is not available yet: ${uri}`, { path: uri });
}
