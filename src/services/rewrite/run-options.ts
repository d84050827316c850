// The options of a run that rewrites file slices (compaction, clustering): which plan, how long, how
// parallel, how the new base files are encoded and where each group's work runs.
import type { ParquetCodec } from '../../parquet/write.ts';
import type { ServiceOptions } from '../transaction.ts';
import type { FileGroupWorkers } from './worker-run.ts';

export interface RewriteRunOptions extends ServiceOptions {
  /** the instant to run (default: the earliest pending plan, as Hudi's compactor and clustering job) */
  instant?: string;
  /** stop (and roll this attempt back) when exceeded */
  maxDurationMs?: number;
  /** file groups (compaction) or groups (clustering) rewritten in parallel (default 2) */
  parallelism?: number;
  codec?: ParquetCodec;
  /** zlib level of GZIP pages, 1–9 (default 6, what Hudi's GzipCodec writes); lower is faster and larger */
  gzipLevel?: number;
  /** rows per row group of the new base files (default 100,000: what the incremental writer holds per group) */
  rowGroupSize?: number;
  /** with --wait: poll interval while another process runs the plan */
  pollMs?: number;
  /**
   * where each group is rewritten: 'auto' (default) a worker thread with a heap capped from the
   * group's input size when the bundled worker is there, else in-process; 'always'; 'never'
   */
  fileGroupWorkers?: FileGroupWorkers;
  /** the bundled rewrite worker (tests and benches; default rewrite-worker.js beside the bundle) */
  workerUrl?: URL;
  /** 'rows' rewrites every group through the row path (tests compare it with the packed path); default 'auto' */
  mergePath?: 'auto' | 'rows';
}
