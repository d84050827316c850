// Test-only ViewTimeline built straight from a fixture table's timeline directory (JSON commits via
// JSON.parse, Avro ones via avsc's container decoder). The real adapter lives in src/timeline.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import type { ViewTimeline } from '../../../src/fs-view/index.ts';

function readAvroContainer(path: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown>[] = [];
    avro
      .createFileDecoder(path)
      .on('data', (r: Record<string, unknown>) => out.push(r))
      .on('error', reject)
      .on('end', () => resolve(out));
  });
}

/** Commit metadata of an instant file: JSON (layout 1 commits) or an Avro container. */
export async function readInstantMetadata(path: string): Promise<Record<string, unknown> | undefined> {
  if (statSync(path).size === 0) return undefined;
  const head = readFileSync(path).subarray(0, 4);
  if (head[0] === 0x4f && head[1] === 0x62 && head[2] === 0x6a && head[3] === 1) return (await readAvroContainer(path))[0];
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

function unwrap(v: unknown): unknown {
  // avsc 'auto' wrapUnions leaves ambiguous unions as {type: value}
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const ks = Object.keys(v);
    if (ks.length === 1 && /^(array|map|string|org\.)/.test(ks[0]!)) return (v as Record<string, unknown>)[ks[0]!];
  }
  return v;
}

export interface TestTimeline extends ViewTimeline {
  dir: string;
  /** completed instants in requested-time order with their metadata */
  metadata: Map<string, Record<string, unknown> | undefined>;
}

export async function loadTestTimeline(basePath: string): Promise<TestTimeline> {
  const props = readFileSync(join(basePath, '.hoodie/hoodie.properties'), 'utf8');
  const layout = /hoodie\.timeline\.layout\.version=2/.test(props) ? 2 : 1;
  const dir = layout === 2 ? join(basePath, '.hoodie/timeline') : join(basePath, '.hoodie');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const completed: ViewTimeline['completedInstants'] = [];
  const completion = new Map<string, string>();
  const metadata = new Map<string, Record<string, unknown> | undefined>();
  const replaced: ViewTimeline['replacedFileGroups'] = [];
  const done = new Set<string>();
  for (const n of names.sort()) {
    const m = /^(\d+)(?:_(\d+))?\.(commit|deltacommit|replacecommit)$/.exec(n);
    if (!m) continue;
    const [, rt, ct, action] = m as unknown as [string, string, string | undefined, string];
    done.add(rt);
    completed.push({ requestedTime: rt, action, completionTime: ct });
    if (ct) completion.set(rt, ct);
    const md = await readInstantMetadata(join(dir, n));
    metadata.set(rt, md);
    if (action === 'replacecommit' && md) {
      const p2r = (unwrap(md.partitionToReplaceFileIds) ?? {}) as Record<string, unknown>;
      for (const [partition, ids] of Object.entries(p2r)) {
        for (const fileId of (unwrap(ids) as string[]) ?? []) replaced.push({ partition, fileId, byInstant: rt });
      }
    }
  }
  const pendingCompactions: ViewTimeline['pendingCompactions'] = [];
  for (const n of names.sort()) {
    const m = /^(\d+)\.compaction\.requested$/.exec(n);
    if (!m || done.has(m[1]!)) continue;
    const plan = await readInstantMetadata(join(dir, n));
    const ops = ((unwrap(plan?.operations) as Record<string, unknown>[] | undefined) ?? []).map((o) => ({
      partitionPath: String(unwrap(o.partitionPath) ?? ''),
      fileId: String(unwrap(o.fileId)),
      baseInstantTime: String(unwrap(o.baseInstantTime) ?? ''),
    }));
    pendingCompactions.push({ instant: m[1]!, operations: ops });
  }
  return {
    dir,
    layout,
    completedInstants: completed,
    completionTimeOf: (t) => completion.get(t),
    replacedFileGroups: replaced,
    pendingCompactions,
    metadata,
  };
}

export function tableProperties(basePath: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(basePath, '.hoodie/hoodie.properties'), 'utf8').split('\n')) {
    const m = /^([^#=]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!.replace(/\\:/g, ':');
  }
  return out;
}
