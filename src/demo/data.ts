// The demo table's schema and deterministic rows (no randomness: the same `now` gives the same table).
import { createHash } from 'node:crypto';
import { withHoodieMetaFields, type AvroRecordSchema } from '../parquet/write.ts';

export const DEMO_TABLE = 'demo_orders';
export const DEMO_DATABASE = 'default';
export const PARTITION_FIELD = 'region';
export const REGIONS = ['us', 'eu', 'apac'] as const;

/** The table schema as Spark's Avro conversion writes it (nullable user fields, `[T, "null"]`). */
export const TABLE_SCHEMA: AvroRecordSchema = {
  type: 'record',
  name: `${DEMO_TABLE}_record`,
  namespace: `hoodie.${DEMO_TABLE}`,
  fields: [
    { name: 'order_id', type: ['string', 'null'] },
    { name: 'customer', type: ['string', 'null'] },
    { name: 'amount', type: ['double', 'null'] },
    { name: 'status', type: ['string', 'null'] },
    { name: 'ts', type: ['long', 'null'] },
    { name: 'region', type: ['string', 'null'] },
  ],
};

/** Writer schema of base files and log blocks: meta fields first. */
export const WRITER_SCHEMA: AvroRecordSchema = withHoodieMetaFields(TABLE_SCHEMA);

export interface OrderRow {
  order_id: string;
  customer: string;
  amount: number;
  status: string;
  ts: number;
  region: string;
}

/** A stable UUID-shaped id from a seed, so fileIds are reproducible. */
export function stableUuid(seed: string): string {
  const h = createHash('sha1').update(`tblcli-demo:${seed}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** fileId = <uuid>-<n> (FSUtils.createNewFileId). */
export function demoFileId(seed: string): string {
  return `${stableUuid(seed)}-0`;
}

const CUSTOMERS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'wonka'];

export function makeOrders(region: string, first: number, count: number, tsMillis: number): OrderRow[] {
  return Array.from({ length: count }, (_, i) => {
    const n = first + i;
    return {
      order_id: `ord-${region}-${String(n).padStart(4, '0')}`,
      customer: CUSTOMERS[(n * 3 + region.length) % CUSTOMERS.length]!,
      amount: Math.round((17.5 + n * 13.25 + region.length) * 100) / 100,
      status: 'NEW',
      ts: tsMillis + i,
      region,
    };
  });
}
