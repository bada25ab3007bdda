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
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: undefined, done: true });
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.items.length) {
        yield this.items.shift() as T;
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

/** Counting semaphore. */
export class Semaphore {
  private queue: (() => void)[] = [];
  constructor(private available: number) {}

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.available++;
  }
}

/** Spaces out starts so that at most `perSecond` happen per second (0 = unlimited). */
export class RateLimiter {
  private next = 0;
  constructor(private readonly perSecond: number) {}

  async wait(signal?: AbortSignal): Promise<void> {
    if (this.perSecond <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.perSecond;
    if (at > now) await sleep(at - now, signal);
  }
}
