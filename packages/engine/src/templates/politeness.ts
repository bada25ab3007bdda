/** Politeness controls shared by every protocol of a template run. */

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A global request rate: requests are spaced so that at most `perSecond` start each second. */
export class RateLimiter {
  private next = 0;
  constructor(private readonly perSecond: number) {}

  /** False when there is no limit: callers skip `acquire` (no await, no microtask). */
  get isLimited(): boolean {
    return Number.isFinite(this.perSecond) && this.perSecond > 0;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (!Number.isFinite(this.perSecond) || this.perSecond <= 0) return;
    const interval = 1000 / this.perSecond;
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + interval;
    if (at - now >= 1) await sleep(at - now, signal);
  }
}

/** A counting semaphore. */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.take();
  }

  /** A slot now, or undefined when all are taken (the caller then awaits `acquire`). */
  tryAcquire(): (() => void) | undefined {
    return this.active < this.limit && this.waiters.length === 0 ? this.take() : undefined;
  }

  private take(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters.shift()?.();
    };
  }

  get idle(): boolean {
    return this.active === 0 && this.waiters.length === 0;
  }
}

export interface UnresponsiveHost {
  host: string;
  errors: number;
  lastError: string;
}

/**
 * Per-host concurrency and error budget: after `errorBudget` failed requests (timeouts,
 * refused connections) a host is skipped for the rest of the run and listed in the summary.
 */
export class HostGate {
  private readonly semaphores = new Map<string, Semaphore>();
  private readonly errors = new Map<string, { count: number; last: string }>();

  constructor(
    private readonly perHost: number,
    private readonly errorBudget: number,
  ) {}

  isBlocked(host: string): boolean {
    const e = this.errors.get(host);
    return e !== undefined && e.count >= this.errorBudget;
  }

  async acquire(host: string): Promise<() => void> {
    const now = this.tryAcquire(host);
    if (now) return now;
    const sem = this.semaphoreOf(host);
    return this.wrap(host, sem, await sem.acquire());
  }

  /** A slot on `host` without waiting, or undefined when the host is at its limit. */
  tryAcquire(host: string): (() => void) | undefined {
    const sem = this.semaphoreOf(host);
    const release = sem.tryAcquire();
    return release ? this.wrap(host, sem, release) : undefined;
  }

  private semaphoreOf(host: string): Semaphore {
    let s = this.semaphores.get(host);
    if (!s) {
      s = new Semaphore(this.perHost);
      this.semaphores.set(host, s);
    }
    return s;
  }

  private wrap(host: string, sem: Semaphore, release: () => void): () => void {
    return () => {
      release();
      // Bounded memory: forget idle hosts' semaphores.
      if (sem.idle && this.semaphores.get(host) === sem) this.semaphores.delete(host);
    };
  }

  recordError(host: string, message: string): void {
    const e = this.errors.get(host) ?? { count: 0, last: '' };
    e.count++;
    e.last = message;
    this.errors.set(host, e);
  }

  unresponsive(): UnresponsiveHost[] {
    return [...this.errors.entries()]
      .filter(([, e]) => e.count >= this.errorBudget)
      .map(([host, e]) => ({ host, errors: e.count, lastError: e.last }));
  }
}

export class HostSkippedError extends Error {
  constructor(readonly host: string) {
    super(`host ${host} skipped: error budget exhausted`);
    this.name = 'HostSkippedError';
  }
}

export { sleep };
