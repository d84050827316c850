// Which merge semantics a table uses (format-data.md §5.2–5.4), from hoodie.properties.
import { TblError } from '../errors/index.ts';

/** 'commit': the later-processed record wins; 'event': the larger ordering value wins (ties → later). */
export type MergeRule = 'commit' | 'event';

export interface MergeConfig {
  tableVersion: number;
  /** ordering (precombine) fields, compared lexicographically */
  orderingFields: string[];
  /** log vs log (always pre-combine semantics in the log scanner) */
  deltaMerge: MergeRule;
  /** base vs merged log record (combineAndGetUpdateValue) */
  finalMerge: MergeRule;
  /** a data record deleted earlier is revived by any newer data record (0.x payload semantics) */
  naturalOrderAfterDelete: boolean;
  populateMetaFields: boolean;
  recordKeyFields: string[];
  /** DefaultHoodieRecordPayload custom delete marker */
  deleteField?: string;
  deleteMarker?: string;
  /** how the semantics were chosen, for `--merge` output and errors */
  describe: string;
}

const OVERWRITE_LATEST = 'org.apache.hudi.common.model.OverwriteWithLatestAvroPayload';
const EVENT_PAYLOADS = new Set([
  'org.apache.hudi.common.model.DefaultHoodieRecordPayload',
  'org.apache.hudi.common.model.EventTimeAvroPayload',
]);

function list(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function fromPayload(payload: string, ordering: string[], version: number): Pick<MergeConfig, 'deltaMerge' | 'finalMerge' | 'describe'> {
  if (payload === OVERWRITE_LATEST) {
    // the 0.x quirk: log records pre-combine by ordering value, but the surviving one overwrites the base
    return { deltaMerge: ordering.length > 0 && version < 8 ? 'event' : 'commit', finalMerge: 'commit', describe: `payload ${payload}` };
  }
  if (EVENT_PAYLOADS.has(payload)) return { deltaMerge: 'event', finalMerge: 'event', describe: `payload ${payload}` };
  throw new TblError('unsupported', `payload class ${payload} is not supported by the offline merger`, {
    key: 'hoodie.compaction.payload.class',
    hint: 'supported: OverwriteWithLatestAvroPayload, DefaultHoodieRecordPayload, EventTimeAvroPayload',
  });
}

export function mergeConfigFromProperties(props: Record<string, string>): MergeConfig {
  const tableVersion = Number(props['hoodie.table.version'] ?? '6');
  const orderingFields = list(props['hoodie.table.ordering.fields'] ?? props['hoodie.table.precombine.field']);
  const common = {
    tableVersion,
    orderingFields,
    naturalOrderAfterDelete: tableVersion < 8,
    populateMetaFields: (props['hoodie.populate.meta.fields'] ?? 'true') !== 'false',
    recordKeyFields: list(props['hoodie.table.recordkey.fields']),
    deleteField: props['hoodie.payload.delete.field'],
    deleteMarker: props['hoodie.payload.delete.marker'],
  };
  const payload = props['hoodie.table.legacy.payload.class'] ?? props['hoodie.compaction.payload.class'];
  if (tableVersion >= 8) {
    const mode = props['hoodie.record.merge.mode'] ?? (orderingFields.length > 0 ? 'EVENT_TIME_ORDERING' : 'COMMIT_TIME_ORDERING');
    if (mode === 'EVENT_TIME_ORDERING') return { ...common, deltaMerge: 'event', finalMerge: 'event', describe: mode };
    if (mode === 'COMMIT_TIME_ORDERING') return { ...common, deltaMerge: 'commit', finalMerge: 'commit', describe: mode };
    if (mode === 'CUSTOM' && payload) return { ...common, ...fromPayload(payload, orderingFields, tableVersion) };
    throw new TblError('unsupported', `record merge mode ${mode} is not supported by the offline merger`, { key: 'hoodie.record.merge.mode' });
  }
  return { ...common, ...fromPayload(payload ?? OVERWRITE_LATEST, orderingFields, tableVersion) };
}
