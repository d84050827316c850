// The write stats of every write instant, as compact per-file-group records: which instants touched a
// file group (in timeline order), whether one created it, whether its stats name paths. Paths are kept
// only for touches that can appear in a finding (creators, writers overlapping another writer, writes
// after a pending plan); every stat path leaves a 32-bit fingerprint, so a lookup by path re-reads only
// the instants that may name it.

/** Growable Int32 column. */
export class IntColumn {
  private a = new Int32Array(1024);
  length = 0;

  push(v: number): number {
    if (this.length === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length] = v;
    return this.length++;
  }

  get(i: number): number {
    return this.a[i]!;
  }

  set(i: number, v: number): void {
    this.a[i] = v;
  }
}

export const CREATED = 1;
export const HAS_PATH = 2;

/** FNV-1a of the last path segment of `p` (what a listed file name is matched against). */
export function nameFingerprint(p: string): number {
  let h = 0x811c9dc5;
  for (let i = p.lastIndexOf('/') + 1; i < p.length; i++) h = Math.imul(h ^ p.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Touches {
  /** file groups named by write stats, in the order first touched */
  readonly groupPartition: string[] = [];
  readonly groupFileId: string[] = [];
  private readonly index = new Map<string, Map<string, number>>();
  private readonly head = new IntColumn();
  private readonly tail = new IntColumn();
  /** per touch: file group, index into scan.writes, flags, next touch of the same group (-1: none) */
  readonly group = new IntColumn();
  readonly write = new IntColumn();
  readonly flags = new IntColumn();
  private readonly next = new IntColumn();
  /** paths of the touches that keep them */
  readonly kept = new Map<number, string[]>();
  /** per write: sorted fingerprints of its stat paths */
  readonly fingerprints: (Uint32Array | undefined)[] = [];
  private lastPartition: string | undefined;
  private lastMap: Map<string, number> | undefined;

  get groups(): number {
    return this.groupFileId.length;
  }

  get size(): number {
    return this.group.length;
  }

  groupOf(partition: string, fileId: string): number {
    const m = partition === this.lastPartition ? this.lastMap : this.index.get(partition);
    return m?.get(fileId) ?? -1;
  }

  /** The touch of (`partition`, `fileId`) by write `w`, created on the first stat. Writes arrive in timeline order. */
  touch(partition: string, fileId: string, w: number): number {
    let m = partition === this.lastPartition ? this.lastMap : this.index.get(partition);
    if (!m) this.index.set(partition, (m = new Map()));
    this.lastPartition = partition;
    this.lastMap = m;
    let g = m.get(fileId);
    if (g === undefined) {
      g = this.groupFileId.length;
      m.set(fileId, g);
      this.groupPartition.push(partition);
      this.groupFileId.push(fileId);
      this.head.push(-1);
      this.tail.push(-1);
    }
    const last = this.tail.get(g);
    if (last >= 0 && this.write.get(last) === w) return last;
    const t = this.group.push(g);
    this.write.push(w);
    this.flags.push(0);
    this.next.push(-1);
    if (last < 0) this.head.set(g, t);
    else this.next.set(last, t);
    this.tail.set(g, t);
    return t;
  }

  /** Touches of a file group, oldest write first. */
  *of(g: number): Generator<number> {
    for (let t = this.head.get(g); t >= 0; t = this.next.get(t)) yield t;
  }

  /** First touch of a group, then nextOf(t) until -1 (the generator-free form of `of`). */
  first(g: number): number {
    return this.head.get(g);
  }

  nextOf(t: number): number {
    return this.next.get(t);
  }

  has(t: number, flag: number): boolean {
    return (this.flags.get(t) & flag) !== 0;
  }

  /** Whether write `w` may have a stat whose path ends in `name` (false is certain). */
  mayName(w: number, name: string): boolean {
    const fp = this.fingerprints[w];
    if (!fp) return false;
    const h = nameFingerprint(name);
    let lo = 0;
    let hi = fp.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = fp[mid]!;
      if (v === h) return true;
      if (v < h) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}
