// The merged log map of a slice kept compact (issue 6): per record key only what the merge decisions
// need (ordering, delete flag) and where the record's Avro bytes are (its block's content, read once
// and kept as raw bytes), in typed arrays (log-index.ts); the full record is decoded only when it is
// emitted. Keys, orderings and delete flags come straight from the Avro bytes (avro-scan.ts) where the
// schema allows, else from avsc's decode. Same block stack, delta-merge rule and stats as
// scanLogRecords, so mergeFileSlice and compaction agree row for row.
import { avroFieldPlan, decodeBlockContent, isDataBlock, readAvroContentHeader, readAvroFields, utf8Slice, utf8View, type LogBlock } from '../logfile/index.ts';
import type { MergeConfig } from './config.ts';
import type { Storage } from '../storage/index.ts';
import type { Ordering } from './ordering.ts';
import { javaClassOf, NATURAL } from './ordering.ts';
import { collectLogBlocks, emptyStats, isDeleteRow, orderingOf, recordKeyOf, schemaTypes, type MergedSlice, type MergeOptions, type MergeStats, type Row, type SliceFiles } from './scan.ts';
import { BlockRecords, LogIndex, type AvroSource } from './log-index.ts';

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

export interface LogMap {
  /** by record key, in first-seen order (inserts come out in arrival order) */
  index: LogIndex;
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
 * An Avro data block read by the byte reader: its records, or the error computing them threw (a
 * config error, thrown when the block is used: the decode path throws it there, and only for blocks
 * that count).
 */
interface ScannedAvro {
  records?: BlockRecords;
  error?: unknown;
}

/** orderingOf(row) has `o`'s values and classes (checked without building it: most records repeat the last one's). */
function sameOrdering(o: Ordering, row: Row, config: MergeConfig, types: Map<string, string>): boolean {
  const fields = config.orderingFields;
  if (fields.length === 0) return true;
  if (o.values.length !== fields.length) return false;
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]!;
    const v = row[f] === undefined ? null : row[f];
    if (!Object.is(v, o.values[k]) || javaClassOf(v, types.get(f)) !== o.classes[k]) return false;
  }
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

/** True when bytes [s, e) are ASCII (their string is the bytes, whatever the decoder). */
function ascii(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (b[i]! >= 0x80) return false;
  return true;
}

/**
 * The records of an Avro data block from their bytes, each record read once (wanted fields read, the
 * rest skipped and checked the way avsc reads them), a non-null ASCII meta key taken as its bytes;
 * undefined when the schema is not one the byte reader handles or a record does not read exactly: the
 * caller decodes the block with avsc, which gives the same values or the error.
 */
function scanAvroBlock(content: Uint8Array, schema: string, config: MergeConfig, classLists: ClassLists, exact: boolean): ScannedAvro | undefined {
  const plan = avroFieldPlan(schema, wantedFields(config));
  if (!plan) return undefined;
  // with the meta key in the schema, the record key fields are read only for records whose meta key is null
  const first = config.populateMetaFields ? avroFieldPlan(schema, firstWanted(config)) : undefined;
  const keyed = first !== undefined && first.names.includes('_hoodie_record_key');
  // the meta key's bytes, not its string, unless a delete or ordering rule reads that field as a value
  const keySlot = keyed && config.deleteField !== '_hoodie_record_key' && !config.orderingFields.includes('_hoodie_record_key') ? first.names.indexOf('_hoodie_record_key') : -1;
  const span = new Int32Array(2);
  const types = schemaTypes(schema);
  const buf = utf8View(content);
  const { contentVersion, recordCount } = readAvroContentHeader(content);
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  // (a record takes at least its 4-byte length: a corrupt count cannot size the arrays)
  const records = new BlockRecords({ content, schema, exact }, Math.min(recordCount, content.length >> 2));
  let error: unknown;
  const values: unknown[] = plan.names.map(() => undefined);
  // one row object holding the wanted fields the schema has; the rest stay undefined as in a decoded row
  const row: Row = {};
  // consecutive records often carry the same ordering: one object for them (records never change it)
  let last: Ordering | undefined;
  let pos = contentVersion >= 2 ? 8 : 4;
  for (let i = 0; i < recordCount; i++) {
    if (pos + 4 > content.length) return undefined;
    const len = dv.getInt32(pos);
    const start = pos + 4;
    const end = start + len;
    if (len < 0 || end > content.length) return undefined;
    pos = end;
    let p = keyed ? first : plan;
    if (!readAvroFields(p, content, buf, start, end, values, span, keySlot)) return undefined;
    if (error !== undefined) continue; // the rest of the block is only checked
    for (let f = 0; f < p.names.length; f++) row[p.names[f]!] = values[f];
    const byBytes = keySlot >= 0 && values[keySlot] === true;
    if (keyed && (row._hoodie_record_key === null || row._hoodie_record_key === undefined)) {
      p = plan;
      readAvroFields(p, content, buf, start, end, values);
      for (let f = 0; f < p.names.length; f++) row[p.names[f]!] = values[f];
    }
    let key: string | undefined;
    if (!byBytes || !ascii(content, span[0]!, span[1]!)) {
      if (byBytes) row._hoodie_record_key = utf8Slice(buf, span[0]!, span[1]!);
      try {
        key = recordKeyOf(row, config);
      } catch (e) {
        error = e;
        continue;
      }
    }
    let ordering: Ordering;
    if (last && sameOrdering(last, row, config, types)) ordering = last;
    else {
      const o = orderingOf(row, config, types);
      ordering = last = { values: o.values, classes: classLists.of(o.classes) };
    }
    const deleted = isDeleteRow(row, config);
    if (key === undefined) records.addBytes(content, span[0]!, span[1]!, ordering, deleted, start, end);
    else records.addKey(key, ordering, deleted, start, end);
  }
  return error !== undefined ? { error } : { records };
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
        s = block.header.SCHEMA === undefined ? undefined : scanAvroBlock(content, block.header.SCHEMA, opts.config, classLists, opts.exact === true);
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
    await decodeBlockContent(content, path, block, { decodeHFile: opts.decodeHFile, exactValues: opts.exact });
  };
  const compact = async (path: string, block: LogBlock): Promise<BlockRecords> => {
    if (block.type === 'DELETE_BLOCK') {
      const out = new BlockRecords(undefined, block.deletes?.length);
      for (const d of block.deletes ?? []) {
        const ordering: Ordering = d.recordKey === null || d.orderingVal === null ? NATURAL : { values: [d.orderingVal], classes: classLists.of([d.orderingClass]) };
        out.addKey(d.recordKey, ordering, true);
      }
      delete block.deletes;
      return out;
    }
    const s = scanned.get(block);
    if (s) {
      scanned.delete(block);
      if (s.error !== undefined) throw s.error;
      return s.records!;
    }
    const types = schemaTypes(block.header.SCHEMA);
    const records = (isDataBlock(block.type) ? block.records : undefined) ?? [];
    let source: AvroSource | undefined;
    let spans: Int32Array | undefined;
    if (block.type === 'AVRO_DATA_BLOCK' && records.length > 0) {
      // keep the bytes, not the objects: the content readContent read, else read once more (the reader's read is its own)
      const content = contents.get(block) ?? (await storage.readRange(path, block.contentOffset, block.contentLength));
      contents.delete(block);
      source = { content, schema: block.header.SCHEMA!, exact: opts.exact };
      spans = recordSpans(content, records.length);
    }
    const out = new BlockRecords(source, records.length);
    for (let i = 0; i < records.length; i++) {
      const row = records[i] as Row;
      const key = recordKeyOf(row, opts.config);
      const o = orderingOf(row, opts.config, types);
      const ordering = { values: o.values, classes: classLists.of(o.classes) };
      if (isDeleteRow(row, opts.config)) out.addKey(key, ordering, true);
      else if (spans) out.addKey(key, ordering, false, spans[2 * i]!, spans[2 * i + 1]!);
      else out.addKey(key, ordering, false, 0, 0, row);
    }
    delete block.records;
    return out;
  };
  const stack = await collectLogBlocks(storage, logFiles, opts, stats, notes, compact, byteScan ? readContent : undefined);

  let records = 0;
  for (const { data } of stack) records += data?.count ?? 0;
  const index = new LogIndex(records);
  for (const { path, block, data } of stack) {
    if (block.corrupt) {
      notes.push({ path, offset: block.offset, note: `corrupt block ignored: ${block.corrupt.reason}` });
      continue;
    }
    if (!data) continue;
    for (let i = 0; i < data.count; i++) {
      stats.totalLogRecords += 1;
      index.merge(data, i, opts.config);
    }
  }
  return { index, stats, notes };
}
