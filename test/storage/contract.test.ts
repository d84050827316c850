// One Storage contract, run against the local file system and against the WebHDFS client talking
// to the test server in WebHDFS and HttpFS modes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage, resolveLocation } from '../../src/storage/index.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { storageContract, type ContractFixture } from './storage-contract.ts';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'tblcli-contract-'));

storageContract('LocalStorage', async (): Promise<ContractFixture> => {
  const root = tempDir();
  return { storage: new LocalStorage(), root, close: async () => rmSync(root, { recursive: true, force: true }) };
});

for (const mode of ['webhdfs', 'httpfs'] as const) {
  storageContract(`WebHDFS client (${mode} test server, page size 4)`, async (): Promise<ContractFixture> => {
    const dir = tempDir();
    const server = await startWebHdfsServer({ root: dir, pageSize: 4, mode });
    const loc = await resolveLocation(server.uri('/warehouse'), { httpfs: mode === 'httpfs', user: 'tblcli', retryDelayMs: 5 });
    return {
      storage: loc.storage,
      root: loc.path,
      close: async () => {
        await loc.storage.close();
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
