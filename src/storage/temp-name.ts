import { randomBytes } from 'node:crypto';

/** Name prefix of tblcli's in-progress files (writeNew, replace), written beside the file they become. */
export const TEMP_PREFIX = '.tblcli-tmp-';

/** A fresh temp file name, unique to this process and call. */
export function tempFileName(): string {
  return `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
}
