// The merged log map of a slice kept compact (issue 6): per record key only what the merge decisions
// need (ordering, delete flag) and where the record's Avro bytes are (its block's content, read once
// and kept as raw bytes); the full record is decoded only when it is emitted. Keys, orderings and delete
// flags come straight from the Avro bytes (avro-scan.ts) where the schema allows, else from avsc's
// decode. Same block stack, delta-merge rule and stats as scanLogRecords, so mergeFileSlice and
// compaction agree row for row.
import { avroFieldPlan, decodeAvroRecord, decodeBlockContent, isDataBlock, readAvroContentHeader, readAvroFields, utf8View, type LogBlock } from '../logfile/index.ts';
import type { MergeConfig } from './config.ts';
import type { Storage } from '../storage/index.ts';
import type { Ordering } from './ordering.ts';
import { NATURAL } from './ordering.ts';
import {
  collectLogBlocks,
  deltaReplaces,
  emptyStats,
  isDeleteRow,
  orderingOf,
  recordKeyOf,
  schemaTypes,
  type MergedSlice,
  type MergeOptions,
  type MergeStats,
  type Row,
  type SliceFiles,
} from './scan.ts';

/** An Avro data block's content and writer schema, shared by the entries of its records. */
interface AvroSource {
  content: Uint8Array;
  schema: string;
}

/**
 * One log record of the map: a delete, a decoded row (parquet/HFile blocks) or Avro bytes to decode on
 * use. It is its own Ordering (values and a shared classes array), one object less per key.
 */
export class LogMapEntry implements Ordering {
  /** set by a merge when a base row with this key was seen (compaction's merge, not the scan) */
  matched = false;
  constructor(
    readonly key: string,
    readonly values: unknown[],
    readonly classes: Ordering['classes'],
    readonly deleted: boolean,
    private readonly source: AvroSource | undefined,
    private readonly start: number,
    private readonly end: number,
    private readonly row: Row | undefined,
  ) {}

  get ordering(): Ordering {
    return this;
  }

  /** Where the record's Avro bytes are (Avro data blocks): content[start, end) in the block's writer schema. */
  avroBytes(): { content: Uint8Array; schema: string; start: number; end: number } | undefined {
    if (this.deleted || this.row || !this.source) return undefined;
    return { content: this.source.content, schema: this.source.schema, start: this.start, end: this.end };
  }

  /** The full record (a fresh object per call for Avro records); undefined for deletes. */
  record(): Row | undefined {
    if (this.deleted) return undefined;
    if (this.row) return this.row;
    return decodeAvroRecord(this.source!.content.subarray(this.start, this.end), this.source!.schema) as Row;
  }
}

/** One classes array per distinct list of classes (a few per slice) instead of one per record. */
class ClassLists {
  private readonly lists = new Map<string, Ordering['classes']>();
  of(classes: Ordering['classes']): Ordering['classes'] {
    const id = classes.join(',');
    let c = this.lists.get(id);
    if (!c) this.lists.set(id, (c = classes));
    return c;
  }
}

/** A delete record without a key: counted as a log record, never applied. */
const NULL_KEY_DELETE = new LogMapEntry('', NATURAL.values, NATURAL.classes, true, undefined, 0, 0, undefined);

export interface LogMap {
  /** by record key, in first-seen order (inserts come out in arrival order) */
  entries: Map<string, LogMapEntry>;
  stats: MergeStats;
  notes: MergedSlice['notes'];
}

/** [start, end) of each record's Avro bytes in an Avro data block's content (already validated by the reader). */
function recordSpans(content: Uint8Array, count: number): Int32Array {
  const { contentVersion } = readAvroContentHeader(content);
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const spans = new Int32Array(2 * count);
  let pos = contentVersion >= 2 ? 8 : 4;
  for (let i = 0; i < count; i++) {
    const len = dv.getInt32(pos);
    spans[2 * i] = pos + 4;
    spans[2 * i + 1] = pos + 4 + len;
    pos += 4 + len;
  }
  return spans;
}

/**
 * An Avro data block read by the byte reader: its entries, or the error computing them threw (a
 * config error, thrown when the block is used: the decode path throws it there, and only for blocks
 * that count).
 */
interface ScannedAvro {
  entries: LogMapEntry[];
  failed: boolean;
  error?: unknown;
}

function sameValues(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** The top-level fields recordKeyOf, orderingOf and isDeleteRow can look at. */
function wantedFields(config: MergeConfig): string[] {
  const out = new Set<string>(['_hoodie_record_key', ...config.recordKeyFields, ...config.orderingFields, '_hoodie_is_deleted']);
  if (config.deleteField) out.add(config.deleteField);
  return [...out];
}

/** Those of them needed for every record: the record key fields only count when the meta key is null. */
function firstWanted(config: MergeConfig): string[] {
  const out = new Set<string>(['_hoodie_record_key', ...config.orderingFields, '_hoodie_is_deleted']);
  if (config.deleteField) out.add(config.deleteField);
  return [...out];
}

/**
 * The entries of an Avro data block from its records' bytes, each record read once (wanted fields
 * read, the rest skipped and checked the way avsc reads them); undefined when the schema is not one
 * the byte reader handles or a record does not read exactly: the caller decodes the block with avsc,
 * which gives the same values or the error.
 */
function scanAvroBlock(content: Uint8Array, schema: string, config: MergeConfig, classLists: ClassLists): ScannedAvro | undefined {
  const plan = avroFieldPlan(schema, wantedFields(config));
  if (!plan) return undefined;
  // with the meta key in the schema, the record key fields are read only for records whose meta key is null
  const first = config.populateMetaFields ? avroFieldPlan(schema, firstWanted(config)) : undefined;
  const keyed = first !== undefined && first.names.includes('_hoodie_record_key');
  const types = schemaTypes(schema);
  const source: AvroSource = { content, schema };
  const buf = utf8View(content);
  const { contentVersion, recordCount } = readAvroContentHeader(content);
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const entries: LogMapEntry[] = [];
  let failed = false;
  let error: unknown;
  const values: unknown[] = plan.names.map(() => undefined);
  // one row object holding the wanted fields the schema has; the rest stay undefined as in a decoded row
  const row: Row = {};
  let last: unknown[] | undefined;
  let lastClasses: Ordering['classes'] | undefined;
  let pos = contentVersion >= 2 ? 8 : 4;
  for (let i = 0; i < recordCount; i++) {
    if (pos + 4 > content.length) return undefined;
    const len = dv.getInt32(pos);
    const start = pos + 4;
    const end = start + len;
    if (len < 0 || end > content.length) return undefined;
    pos = end;
    let p = keyed ? first : plan;
    if (!readAvroFields(p, content, buf, start, end, values)) return undefined;
    if (failed) continue; // the rest of the block is only checked
    for (let f = 0; f < p.names.length; f++) row[p.names[f]!] = values[f];
    if (keyed && (row._hoodie_record_key === null || row._hoodie_record_key === undefined)) {
      p = plan;
      readAvroFields(p, content, buf, start, end, values);
      for (let f = 0; f < p.names.length; f++) row[p.names[f]!] = values[f];
    }
    let key: string;
    try {
      key = recordKeyOf(row, config);
    } catch (e) {
      failed = true;
      error = e;
      continue;
    }
    const ordering = orderingOf(row, config, types);
    // consecutive records often carry the same ordering values: share one array (entries never change it)
    let vals = ordering.values;
    if (last && vals !== last && sameValues(last, vals)) vals = last;
    else last = vals;
    const classes = lastClasses && sameValues(lastClasses, ordering.classes) ? lastClasses : (lastClasses = classLists.of(ordering.classes));
    if (isDeleteRow(row, config)) entries.push(new LogMapEntry(key, vals, classes, true, undefined, 0, 0, undefined));
    else entries.push(new LogMapEntry(key, vals, classes, false, source, start, end, undefined));
  }
  return failed ? { entries: [], failed, error } : { entries, failed };
}

export interface LogMapOptions {
  /**
   * Read Avro data blocks' keys, orderings and delete flags from their bytes (default true); false
   * decodes every record with avsc, the reference path (blocks the byte reader does not handle take it anyway).
   */
  byteScan?: boolean;
  /** counts Avro data blocks by how they were read (tests check the byte path is taken) */
  counts?: { bytes: number; decoded: number };
}

/** scanLogRecords' merged log map, with Avro records held as their bytes. */
export async function scanLogMap(storage: Storage, logFiles: SliceFiles['logFiles'], opts: MergeOptions, how: LogMapOptions = {}): Promise<LogMap> {
  const stats = emptyStats();
  const notes: MergedSlice['notes'] = [];
  const classLists = new ClassLists();
  const entry = (key: string, o: Ordering, deleted: boolean, source?: AvroSource, start = 0, end = 0, row?: Row) =>
    new LogMapEntry(key, o.values, classLists.of(o.classes), deleted, source, start, end, row);
  const byteScan = how.byteScan !== false;
  // by block: what readContent made of an Avro data block's content (read once, through storage.readRange)
  const scanned = new WeakMap<LogBlock, ScannedAvro>();
  const contents = new WeakMap<LogBlock, Uint8Array>();
  const readContent = async (path: string, block: LogBlock): Promise<void> => {
    if (!isDataBlock(block.type) && block.type !== 'DELETE_BLOCK') return;
    const content = await storage.readRange(path, block.contentOffset, block.contentLength);
    if (block.type === 'AVRO_DATA_BLOCK' && content.length === block.contentLength) {
      let s: ScannedAvro | undefined;
      try {
        s = block.header.SCHEMA === undefined ? undefined : scanAvroBlock(content, block.header.SCHEMA, opts.config, classLists);
      } catch {
        s = undefined; // (a stack overflow on a deeply nested record, say): avsc's decode decides
      }
      if (s) {
        scanned.set(block, s);
        if (how.counts) how.counts.bytes += 1;
        return;
      }
      contents.set(block, content);
      if (how.counts) how.counts.decoded += 1;
    }
    await decodeBlockContent(content, path, block, opts);
  };
  const compact = async (path: string, block: LogBlock): Promise<LogMapEntry[]> => {
    const out: LogMapEntry[] = [];
    if (block.type === 'DELETE_BLOCK') {
      for (const d of block.deletes ?? []) {
        if (d.recordKey === null) {
          out.push(NULL_KEY_DELETE);
          continue;
        }
        const ordering: Ordering = d.orderingVal === null ? NATURAL : { values: [d.orderingVal], classes: [d.orderingClass] };
        out.push(entry(d.recordKey, ordering, true));
      }
      delete block.deletes;
      return out;
    }
    if (!isDataBlock(block.type)) return out;
    const s = scanned.get(block);
    if (s) {
      scanned.delete(block);
      if (s.failed) throw s.error;
      return s.entries;
    }
    const types = schemaTypes(block.header.SCHEMA);
    const records = block.records ?? [];
    let source: AvroSource | undefined;
    let spans: Int32Array | undefined;
    if (block.type === 'AVRO_DATA_BLOCK' && records.length > 0) {
      // keep the bytes, not the objects: the content readContent read, else read once more (the reader's read is its own)
      const content = contents.get(block) ?? (await storage.readRange(path, block.contentOffset, block.contentLength));
      contents.delete(block);
      source = { content, schema: block.header.SCHEMA! };
      spans = recordSpans(content, records.length);
    }
    for (let i = 0; i < records.length; i++) {
      const row = records[i] as Row;
      const key = recordKeyOf(row, opts.config);
      const ordering = orderingOf(row, opts.config, types);
      if (isDeleteRow(row, opts.config)) out.push(entry(key, ordering, true));
      else if (spans) out.push(entry(key, ordering, false, source, spans[2 * i]!, spans[2 * i + 1]!));
      else out.push(entry(key, ordering, false, undefined, 0, 0, row));
    }
    delete block.records;
    return out;
  };
  const stack = await collectLogBlocks(storage, logFiles, opts, stats, notes, compact, byteScan ? readContent : undefined);

  const entries = new Map<string, LogMapEntry>();
  for (const { path, block, data } of stack) {
    if (block.corrupt) {
      notes.push({ path, offset: block.offset, note: `corrupt block ignored: ${block.corrupt.reason}` });
      continue;
    }
    for (const e of data ?? []) {
      stats.totalLogRecords += 1;
      if (e === NULL_KEY_DELETE) continue;
      const cur = entries.get(e.key);
      if (!cur || deltaReplaces(cur.deleted, cur.ordering, e.deleted, e.ordering, opts.config)) entries.set(e.key, e);
    }
  }
  return { entries, stats, notes };
}
