/** the sized first slab at most (past it the copies continue in further slabs) */
const FIRST_SLAB_MAX = 256 * 1024 * 1024;

/**
 * Copies of many small byte arrays packed into shared slabs: one allocation per slab instead of one
 * typed array backing store per copy (archival copies 10,000 instant files of ~4 kB; a backing store
 * each cost ~10 µs and most of the run's garbage collection). A copy lives as long as any copy of its slab.
 */
export class ByteArena {
  private slab = new Uint8Array(0);
  private at = 0;

  /**
   * `expectedCopies`: the first slab is sized for that many copies like the first one (twice over: pages
   * never written are never touched), so copies of similar sizes lie end to end in it.
   */
  constructor(
    private readonly slabBytes = 8 * 1024 * 1024,
    private readonly expectedCopies = 0,
  ) {}

  copy(b: Uint8Array): Uint8Array {
    const n = b.length;
    // no slab yet: this is the first copy
    if (this.slab.length === 0 && this.expectedCopies > 0) this.slab = new Uint8Array(Math.max(this.slabBytes, Math.min(FIRST_SLAB_MAX, 2 * Math.max(n, 64) * this.expectedCopies)));
    // a large copy gets its own buffer rather than wasting the rest of a slab
    if (4 * n > Math.max(this.slabBytes, this.slab.length)) return new Uint8Array(b);
    if (this.at + n > this.slab.length) {
      this.slab = new Uint8Array(this.slabBytes);
      this.at = 0;
    }
    const out = this.slab.subarray(this.at, this.at + n);
    out.set(b);
    this.at += n;
    return out;
  }
}
