export { openTable, openTableAt, type Table, type OpenOptions } from './open.ts';
