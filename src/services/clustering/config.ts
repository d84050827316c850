// The clustering settings Hudi reads (HoodieClusteringConfig, format-services-write.md §2.1) from the
// table's properties, a properties file and --hoodieConfigs, our flags overriding them.
import { TblError } from '../../errors/index.ts';

export type LayoutStrategy = 'linear' | 'z-order' | 'hilbert';
export type PartitionFilterMode = 'NONE' | 'RECENT_DAYS' | 'SELECTED_PARTITIONS' | 'DAY_ROLLING';

export const CLUSTERING_KEYS = {
  smallFileLimit: 'hoodie.clustering.plan.strategy.small.file.limit',
  targetFileMaxBytes: 'hoodie.clustering.plan.strategy.target.file.max.bytes',
  maxBytesPerGroup: 'hoodie.clustering.plan.strategy.max.bytes.per.group',
  maxNumGroups: 'hoodie.clustering.plan.strategy.max.num.groups',
  singleGroup: 'hoodie.clustering.plan.strategy.single.group.clustering.enabled',
  sortColumns: 'hoodie.clustering.plan.strategy.sort.columns',
  filterMode: 'hoodie.clustering.plan.partition.filter.mode',
  lookback: 'hoodie.clustering.plan.strategy.daybased.lookback.partitions',
  skipFromLatest: 'hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions',
  beginPartition: 'hoodie.clustering.plan.strategy.cluster.begin.partition',
  endPartition: 'hoodie.clustering.plan.strategy.cluster.end.partition',
  regex: 'hoodie.clustering.plan.strategy.partition.regex.pattern',
  selected: 'hoodie.clustering.plan.strategy.partition.selected',
  layout: 'hoodie.layout.optimize.strategy',
  parquetMaxFileSize: 'hoodie.parquet.max.file.size',
  executionStrategy: 'hoodie.clustering.execution.strategy.class',
  indexType: 'hoodie.index.type',
  bucketEngine: 'hoodie.index.bucket.engine',
} as const;

/** Written into the plan as strategy.strategyClassName (what Spark's HoodieClusteringJob runs). */
export const SPARK_SORT_AND_SIZE = 'org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy';

const MB = 1024 * 1024;

export interface ClusteringConfig {
  smallFileLimit: number;
  targetFileMaxBytes: number;
  maxBytesPerGroup: number;
  maxNumGroups: number;
  singleGroupClustering: boolean;
  sortColumns: string[];
  layout: LayoutStrategy;
  /** size a slice without base file counts as when grouping (hoodie.parquet.max.file.size) */
  parquetMaxFileSize: number;
  filterMode: PartitionFilterMode;
  lookbackPartitions: number;
  skipFromLatestPartitions: number;
  beginPartition?: string;
  endPartition?: string;
  regex?: string;
  selected?: string[];
  executionStrategy: string;
}

/** What the command line sets; undefined = the key's value (or Hudi's default). */
export interface ClusteringFlags {
  smallFileLimit?: number;
  targetFileMaxBytes?: number;
  maxBytesPerGroup?: number;
  maxNumGroups?: number;
  sortColumns?: string[];
  layout?: string;
  partitions?: string[];
  partitionRegex?: string;
  recentDays?: number;
}

function num(props: ReadonlyMap<string, string>, key: string, dflt: number): number {
  const v = props.get(key);
  if (v === undefined || v.trim() === '') return dflt;
  const n = Number(v.trim());
  if (!Number.isFinite(n) || !Number.isInteger(n)) throw new TblError('usage', `${key}=${v}: expected an integer`);
  return n;
}

export function layoutOf(v: string): LayoutStrategy {
  switch (v.trim().toUpperCase().replaceAll('-', '').replaceAll('_', '')) {
    case 'LINEAR':
      return 'linear';
    case 'ZORDER':
      return 'z-order';
    case 'HILBERT':
      return 'hilbert';
    default:
      throw new TblError('usage', `layout ${JSON.stringify(v)}: expected linear, z-order or hilbert`);
  }
}

function list(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const out = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return out.length > 0 ? out : undefined;
}

/** The settings from `props` (table properties, then the props file, then --hoodieConfigs) and the flags. */
export function clusteringConfig(props: ReadonlyMap<string, string>, flags: ClusteringFlags = {}): ClusteringConfig {
  const mode = (props.get(CLUSTERING_KEYS.filterMode) ?? 'NONE').trim().toUpperCase();
  if (!['NONE', 'RECENT_DAYS', 'SELECTED_PARTITIONS', 'DAY_ROLLING'].includes(mode)) {
    throw new TblError('usage', `${CLUSTERING_KEYS.filterMode}=${mode}: expected NONE, RECENT_DAYS, SELECTED_PARTITIONS or DAY_ROLLING`);
  }
  const c: ClusteringConfig = {
    smallFileLimit: flags.smallFileLimit ?? num(props, CLUSTERING_KEYS.smallFileLimit, 300 * MB),
    targetFileMaxBytes: flags.targetFileMaxBytes ?? num(props, CLUSTERING_KEYS.targetFileMaxBytes, 1024 * MB),
    maxBytesPerGroup: flags.maxBytesPerGroup ?? num(props, CLUSTERING_KEYS.maxBytesPerGroup, 2048 * MB),
    maxNumGroups: flags.maxNumGroups ?? num(props, CLUSTERING_KEYS.maxNumGroups, 30),
    singleGroupClustering: (props.get(CLUSTERING_KEYS.singleGroup) ?? 'true').trim().toLowerCase() !== 'false',
    sortColumns: flags.sortColumns ?? list(props.get(CLUSTERING_KEYS.sortColumns)) ?? [],
    layout: layoutOf(flags.layout ?? props.get(CLUSTERING_KEYS.layout) ?? 'linear'),
    parquetMaxFileSize: num(props, CLUSTERING_KEYS.parquetMaxFileSize, 120 * MB),
    filterMode: mode as PartitionFilterMode,
    lookbackPartitions: num(props, CLUSTERING_KEYS.lookback, 2),
    skipFromLatestPartitions: num(props, CLUSTERING_KEYS.skipFromLatest, 0),
    beginPartition: props.get(CLUSTERING_KEYS.beginPartition),
    endPartition: props.get(CLUSTERING_KEYS.endPartition),
    regex: flags.partitionRegex ?? props.get(CLUSTERING_KEYS.regex),
    selected: flags.partitions ?? list(props.get(CLUSTERING_KEYS.selected)),
    executionStrategy: props.get(CLUSTERING_KEYS.executionStrategy) ?? SPARK_SORT_AND_SIZE,
  };
  if (flags.recentDays !== undefined) {
    c.filterMode = 'RECENT_DAYS';
    c.lookbackPartitions = flags.recentDays;
  }
  for (const [k, v] of [['small file limit', c.smallFileLimit], ['target file max bytes', c.targetFileMaxBytes], ['max bytes per group', c.maxBytesPerGroup], ['max num groups', c.maxNumGroups]] as const) {
    if (v <= 0) throw new TblError('usage', `clustering ${k} must be positive, got ${v}`);
  }
  if (c.regex !== undefined) {
    try {
      new RegExp(c.regex);
    } catch (e) {
      throw new TblError('usage', `partition regex ${JSON.stringify(c.regex)}: ${(e as Error).message}`);
    }
  }
  return c;
}

/** The plan's strategy params (getStrategyParams): the sort columns, and our layout so a later run sorts the same way. */
export function strategyParams(c: ClusteringConfig): Record<string, string> {
  const out: Record<string, string> = {};
  if (c.sortColumns.length > 0) out[CLUSTERING_KEYS.sortColumns] = c.sortColumns.join(',');
  if (c.sortColumns.length > 0 && c.layout !== 'linear') out[CLUSTERING_KEYS.layout] = c.layout === 'z-order' ? 'ZORDER' : 'HILBERT';
  return out;
}
