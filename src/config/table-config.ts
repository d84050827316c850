import { crc32 } from './crc32.ts';
import { TblError } from '../errors/index.ts';

export type TableType = 'COPY_ON_WRITE' | 'MERGE_ON_READ';

/** Table versions this build reads; 0.x = 3..7 (layout 1), 1.x = 8..9 (layout 2). */
export const SUPPORTED_TABLE_VERSIONS = [3, 4, 5, 6, 7, 8, 9] as const;

export const KEYS = {
  name: 'hoodie.table.name',
  database: 'hoodie.database.name',
  type: 'hoodie.table.type',
  version: 'hoodie.table.version',
  initialVersion: 'hoodie.table.initial.version',
  layoutVersion: 'hoodie.timeline.layout.version',
  timelinePath: 'hoodie.timeline.path',
  historyPath: 'hoodie.timeline.history.path',
  archiveFolder: 'hoodie.archivelog.folder',
  recordKeyFields: 'hoodie.table.recordkey.fields',
  precombineField: 'hoodie.table.precombine.field',
  orderingFields: 'hoodie.table.ordering.fields',
  partitionFields: 'hoodie.table.partition.fields',
  keygenClass: 'hoodie.table.keygenerator.class',
  keygenType: 'hoodie.table.keygenerator.type',
  hiveStyle: 'hoodie.datasource.write.hive_style_partitioning',
  urlEncode: 'hoodie.datasource.write.partitionpath.urlencode',
  dropPartitionColumns: 'hoodie.datasource.write.drop.partition.columns',
  baseFileFormat: 'hoodie.table.base.file.format',
  baseFileFormatAlt: 'hoodie.table.ro.file.format',
  logFileFormat: 'hoodie.table.log.file.format',
  populateMetaFields: 'hoodie.populate.meta.fields',
  createSchema: 'hoodie.table.create.schema',
  timezone: 'hoodie.table.timeline.timezone',
  cdcEnabled: 'hoodie.table.cdc.enabled',
  partitionMetafileBaseFormat: 'hoodie.partition.metafile.use.base.format',
  payloadClass: 'hoodie.compaction.payload.class',
  legacyPayloadClass: 'hoodie.table.legacy.payload.class',
  mergeMode: 'hoodie.record.merge.mode',
  mergeStrategyId: 'hoodie.record.merge.strategy.id',
  metadataPartitions: 'hoodie.table.metadata.partitions',
  metadataPartitionsInflight: 'hoodie.table.metadata.partitions.inflight',
  indexDefsPath: 'hoodie.table.index.defs.path',
  bootstrapBasePath: 'hoodie.bootstrap.base.path',
  tableFormat: 'hoodie.table.format',
  checksum: 'hoodie.table.checksum',
} as const;

function list(v: string | undefined): string[] {
  if (v === undefined) return [];
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function bool(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  return v.trim().toLowerCase() === 'true';
}

export interface TableConfig {
  /** every key as stored, in file order */
  props: Map<string, string>;
  name: string;
  databaseName?: string;
  type: TableType;
  version: number;
  initialVersion?: number;
  layoutVersion: 1 | 2;
  /** relative to .hoodie (layout 2) */
  timelinePath: string;
  /** relative to the timeline dir (layout 2) */
  historyPath: string;
  /** relative to .hoodie (layout 1 archive) */
  archiveFolder: string;
  recordKeyFields: string[];
  /** ordering.fields (1.1) or the deprecated precombine.field */
  orderingFields: string[];
  partitionFields: string[];
  keyGenerator?: string;
  hiveStylePartitioning: boolean;
  urlEncodePartitioning: boolean;
  baseFileFormat: string;
  logFileFormat: string;
  populateMetaFields: boolean;
  createSchema?: string;
  timezone: 'LOCAL' | 'UTC';
  payloadClass?: string;
  mergeMode?: string;
  metadataPartitions: string[];
  metadataPartitionsInflight: string[];
  checksum?: string;
  /** set when the stored checksum does not match CRC32("<db>.<name>") */
  checksumMismatch?: { stored: string; expected: string };
}

/** CRC32 of "<database>.<table>" as HoodieTableConfig.generateChecksum does. */
export function tableChecksum(database: string | undefined, name: string): string {
  return String(crc32(Buffer.from(`${database ?? ''}.${name}`, 'utf8')));
}

/** Builds the typed view of hoodie.properties; `path` is only for messages. */
export function toTableConfig(props: Map<string, string>, path: string): TableConfig {
  const get = (k: string) => {
    const v = props.get(k);
    return v === undefined ? undefined : v.trim();
  };
  const name = get(KEYS.name);
  if (!name) {
    throw new TblError('config', `${path}: missing required key ${KEYS.name}`, { path, key: KEYS.name });
  }
  const versionRaw = get(KEYS.version);
  if (versionRaw === undefined) {
    throw new TblError('config', `${path}: missing required key ${KEYS.version}`, { path, key: KEYS.version });
  }
  const version = /^\d+$/.test(versionRaw) ? Number(versionRaw) : NaN;
  if (!(SUPPORTED_TABLE_VERSIONS as readonly number[]).includes(version)) {
    throw new TblError('config', `${path}: unsupported table version '${versionRaw}' (${KEYS.version}); supported: 3-9`, {
      path,
      key: KEYS.version,
    });
  }
  const typeRaw = (get(KEYS.type) ?? 'COPY_ON_WRITE').toUpperCase();
  if (typeRaw !== 'COPY_ON_WRITE' && typeRaw !== 'MERGE_ON_READ') {
    throw new TblError('config', `${path}: unknown table type '${get(KEYS.type)}' (${KEYS.type})`, { path, key: KEYS.type });
  }
  const layoutRaw = get(KEYS.layoutVersion);
  let layoutVersion: 1 | 2 = version >= 8 ? 2 : 1;
  if (layoutRaw !== undefined && layoutRaw !== '') {
    if (layoutRaw !== '0' && layoutRaw !== '1' && layoutRaw !== '2') {
      throw new TblError('config', `${path}: unknown timeline layout version '${layoutRaw}' (${KEYS.layoutVersion})`, {
        path,
        key: KEYS.layoutVersion,
      });
    }
    layoutVersion = layoutRaw === '2' ? 2 : 1;
  }
  const database = get(KEYS.database);
  const ordering = list(get(KEYS.orderingFields));
  const tz = (get(KEYS.timezone) ?? 'LOCAL').toUpperCase();
  const cfg: TableConfig = {
    props,
    name,
    databaseName: database || undefined,
    type: typeRaw,
    version,
    initialVersion: get(KEYS.initialVersion) ? Number(get(KEYS.initialVersion)) : undefined,
    layoutVersion,
    timelinePath: get(KEYS.timelinePath) || 'timeline',
    historyPath: get(KEYS.historyPath) || 'history',
    archiveFolder: get(KEYS.archiveFolder) || 'archived',
    recordKeyFields: list(get(KEYS.recordKeyFields)),
    orderingFields: ordering.length > 0 ? ordering : list(get(KEYS.precombineField)),
    partitionFields: list(get(KEYS.partitionFields)).map((f) => f.split(':')[0]!),
    keyGenerator: get(KEYS.keygenType) ?? get(KEYS.keygenClass),
    hiveStylePartitioning: bool(get(KEYS.hiveStyle), false),
    urlEncodePartitioning: bool(get(KEYS.urlEncode), false),
    baseFileFormat: (get(KEYS.baseFileFormat) ?? get(KEYS.baseFileFormatAlt) ?? 'PARQUET').toUpperCase(),
    logFileFormat: (get(KEYS.logFileFormat) ?? 'HOODIE_LOG').toUpperCase(),
    populateMetaFields: bool(get(KEYS.populateMetaFields), true),
    createSchema: get(KEYS.createSchema),
    timezone: tz === 'UTC' ? 'UTC' : 'LOCAL',
    payloadClass: get(KEYS.payloadClass),
    mergeMode: get(KEYS.mergeMode),
    metadataPartitions: list(get(KEYS.metadataPartitions)),
    metadataPartitionsInflight: list(get(KEYS.metadataPartitionsInflight)),
    checksum: get(KEYS.checksum),
  };
  if (cfg.checksum !== undefined) {
    const expected = tableChecksum(database, name);
    if (expected !== cfg.checksum) cfg.checksumMismatch = { stored: cfg.checksum, expected };
  }
  return cfg;
}
