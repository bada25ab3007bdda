/** Small async helpers shared by the stages: a channel, bounded concurrency, abort-aware sleeps. */

export class AbortedError extends Error {
  constructor(message = 'aborted') {
    super(message);
    this.name = 'AbortError';
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when the signal aborts (never rejects); `dispose` removes the listener. */
export function onAbort(signal: AbortSignal): { promise: Promise<void>; dispose(): void } {
  let dispose = () => {};
  const promise = new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const listener = () => resolve();
    signal.addEventListener('abort', listener, { once: true });
    dispose = () => signal.removeEventListener('abort', listener);
  });
  return { promise, dispose };
}

/** An unbounded multi-producer, single-consumer queue that is async-iterable. */
export class Channel<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | null = null;
  private closed = false;
  private error: unknown = null;
  private roomWaiters: { max: number; resolve: () => void }[] = [];

  /**
   * A producer's backpressure: undefined while fewer than `max` items wait to be read (or the
   * channel is closed), else a promise that resolves once the reader has taken them down to it.
   */
  room(max: number): Promise<void> | undefined {
    if (this.closed || this.items.length < max) return undefined;
    return new Promise((resolve) => this.roomWaiters.push({ max, resolve }));
  }

  private wakeProducers(): void {
    if (this.roomWaiters.length === 0) return;
    const still: typeof this.roomWaiters = [];
    for (const w of this.roomWaiters) {
      if (this.closed || this.items.length < w.max) w.resolve();
      else still.push(w);
    }
    this.roomWaiters = still;
  }

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: item, done: false });
    } else this.items.push(item);
  }

  close(error?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    if (error) this.error = error;
    this.wakeProducers();
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: undefined, done: true });
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.items.length) {
        const item = this.items.shift() as T;
        this.wakeProducers();
        yield item;
        continue;
      }
      if (this.closed) {
        if (this.error) throw this.error;
        return;
      }
      const r = await new Promise<IteratorResult<T>>((resolve) => {
        this.waiting = resolve;
      });
      if (r.done) {
        if (this.error) throw this.error;
        return;
      }
      yield r.value;
    }
  }
}

/**
 * Runs `fn` over `items` with at most `limit` in flight; results stream out as they finish
 * (order not kept). Stops starting new work once the signal aborts.
 */
export async function* mapConcurrent<T, R>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
  signal?: AbortSignal,
): AsyncGenerator<R> {
  const out = new Channel<{ ok: true; value: R } | { ok: false; error: unknown }>();
  const iterator = items[Symbol.iterator]();
  let active = 0;
  let exhausted = false;
  const startNext = (): void => {
    while (!exhausted && active < limit && !signal?.aborted) {
      const next = iterator.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      active++;
      fn(next.value).then(
        (value) => {
          active--;
          out.push({ ok: true, value });
          startNext();
        },
        (error: unknown) => {
          active--;
          out.push({ ok: false, error });
          startNext();
        },
      );
    }
    if ((exhausted || signal?.aborted) && active === 0) out.close();
  };
  startNext();
  for await (const r of out) {
    if (!r.ok) {
      if (r.error instanceof AbortedError) continue;
      throw r.error;
    }
    yield r.value;
  }
}

/** A counting semaphore: `tryTake` for a free slot now (no await), `take` to wait for one. */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  /** Takes a slot when one is free now (give it back with `release`; no closure per slot). */
  tryTake(): boolean {
    if (this.active >= this.limit || this.waiters.length > 0) return false;
    this.active++;
    return true;
  }

  /** Takes a slot, waiting for one (give it back with `release`). */
  async take(): Promise<void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
  }

  release(): void {
    this.active--;
    this.waiters.shift()?.();
  }

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }
}

/**
 * A request rate: starts are spaced `1000 / perSecond` ms apart (on the monotonic clock), so at
 * most `perSecond` start in any second. 0 (or less, or not finite) is no limit. The one pacing
 * of the engine: template requests, rate-limited port scans, leak-source APIs.
 */
export class RateLimiter {
  private next = 0;
  constructor(private readonly perSecond: number) {}

  /** False when there is no limit: callers may skip `acquire` (no await, no microtask). */
  get isLimited(): boolean {
    return Number.isFinite(this.perSecond) && this.perSecond > 0;
  }

  /** Resolves at this caller's turn; rejects with AbortedError when `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (!this.isLimited) return;
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.perSecond;
    // Under a millisecond early is on time: a timer cannot wait less.
    if (at - now >= 1) await sleep(at - now, signal);
  }

  /** True when the next caller would start at once (nobody is waiting for a turn). */
  get idle(): boolean {
    return this.next <= performance.now();
  }
}
