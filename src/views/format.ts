// Converters hudi-cli registers per column.
import type { Raw } from '../render/index.ts';
import { humanReadableByteCount } from '../util/index.ts';

export const bytesHuman = (v: Raw): string => (v === null ? 'null' : humanReadableByteCount(Number(v)));
