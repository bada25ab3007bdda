import { type Dispatcher, Pool } from 'undici';

/**
 * Keep-alive connection pools, one per origin, with a cap on how many origins keep theirs.
 * undici's Agent keeps every origin's pool until its last connection idles out: a scan that
 * moves quickly across thousands of hosts would hold the connections (and their parsers and
 * buffers) of every host it touched in the last keep-alive period. Here the origin used least
 * recently is let go (its pool closes once its requests are done) when a new origin would pass
 * the cap; a later request to it opens a new pool. The scanner works through hosts in batches
 * (template-scanner.ts), so a cap of two batches never closes a pool still in use.
 */
export class OriginPools {
  private readonly pools = new Map<string, { pool: Pool; used: number }>();
  private tick = 0;

  constructor(
    private readonly options: Pool.Options,
    private readonly maxOrigins: number,
  ) {}

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = options.origin as string;
    let entry = this.pools.get(origin);
    if (!entry) {
      if (this.pools.size >= this.maxOrigins) this.evictOne();
      const pool = new Pool(origin, this.options);
      entry = { pool, used: 0 };
      this.pools.set(origin, entry);
      // As undici's Agent does: an origin whose last connection closed (idle) lets its pool go.
      pool.on('disconnect', () => {
        const stats = pool.stats;
        if (stats.connected > 0 || stats.pending > 0 || this.pools.get(origin)?.pool !== pool) return;
        this.pools.delete(origin);
        void pool.close().catch(() => {});
      });
    }
    entry.used = ++this.tick;
    return entry.pool.dispatch(options, handler);
  }

  /** Origins holding a pool now. */
  get size(): number {
    return this.pools.size;
  }

  /**
   * Closes the least recently used origin's pool, approximately: the map is in creation order,
   * and an old entry used since the last half of the cap's worth of requests gets a second
   * chance at the end (no reordering on the request path).
   */
  private evictOne(): void {
    const recent = this.tick - this.maxOrigins / 2;
    let victim: string | undefined;
    // At most one pass: re-inserted entries come round again.
    for (let left = this.pools.size; left > 0; left--) {
      const [origin, entry] = this.pools.entries().next().value as [string, { pool: Pool; used: number }];
      victim ??= origin;
      if (entry.used <= recent) {
        victim = origin;
        break;
      }
      this.pools.delete(origin);
      this.pools.set(origin, entry);
    }
    if (victim === undefined) return;
    const entry = this.pools.get(victim);
    this.pools.delete(victim);
    void entry?.pool.close().catch(() => {});
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.close()));
  }
}
