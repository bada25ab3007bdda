/** Politeness controls shared by every protocol of a template run. */
import { RateLimiter, Semaphore } from '../lib/async.ts';

export { RateLimiter, type Semaphore };

const MAX_IDLE_SEMAPHORES = 1024;

/** Over what a template run's request rate is counted: each host on its own, or the whole scan. */
export type RateScope = 'host' | 'scan';

/**
 * The request rate of a template run: `perSecond` starts per host name (each host gets its own
 * budget, whatever its ports: a host never receives more than `perSecond` requests a second from
 * the run, and a run over many hosts is not slowed by the hosts it is not touching), or per scan
 * (one budget across every host of the run, as nuclei's `-rate-limit`). Endpoints are `host:port`, as the
 * host gate's; a DNS template's endpoint is its DNS server.
 */
export class RequestRate {
  private readonly perHost = new Map<string, RateLimiter>();
  private readonly whole: RateLimiter;

  constructor(
    private readonly perSecond: number,
    private readonly scope: RateScope = 'host',
  ) {
    this.whole = new RateLimiter(perSecond);
  }

  /** False when there is no limit: callers may skip `acquire` (no await, no microtask). */
  get isLimited(): boolean {
    return this.whole.isLimited;
  }

  /** Resolves at this request's turn on `endpoint`'s budget; rejects with AbortedError when `signal` aborts first. */
  acquire(endpoint: string, signal?: AbortSignal): Promise<void> {
    return this.limiterOf(endpoint).acquire(signal);
  }

  private limiterOf(endpoint: string): RateLimiter {
    if (this.scope === 'scan' || !this.whole.isLimited) return this.whole;
    const host = hostOf(endpoint);
    let limiter = this.perHost.get(host);
    if (!limiter) {
      // Bounded memory: hosts whose budget is unused by now are forgotten once there are many.
      if (this.perHost.size >= MAX_IDLE_SEMAPHORES)
        for (const [h, l] of this.perHost) if (l.idle) this.perHost.delete(h);
      limiter = new RateLimiter(this.perSecond);
      this.perHost.set(host, limiter);
    }
    return limiter;
  }
}

/** `host:port`, `[v6]:port` or a bare host → the host, lower-cased. */
function hostOf(endpoint: string): string {
  const colon = endpoint.lastIndexOf(':');
  const bare =
    colon > 0 && endpoint.indexOf(':') === colon
      ? endpoint.slice(0, colon)
      : endpoint.startsWith('[')
        ? endpoint.slice(0, endpoint.indexOf(']') + 1)
        : endpoint;
  return bare.toLowerCase();
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
    const sem = await this.enter(host);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave(host, sem);
    };
  }

  /**
   * A slot on `host` without waiting — the host's semaphore, to give back with `leave` — or
   * undefined when the host is at its limit (no closure per request, unlike `acquire`).
   */
  tryEnter(host: string): Semaphore | undefined {
    const sem = this.semaphoreOf(host);
    return sem.tryTake() ? sem : undefined;
  }

  /** A slot on `host`, waiting for one; give it back with `leave`. */
  async enter(host: string): Promise<Semaphore> {
    const sem = this.semaphoreOf(host);
    await sem.take();
    return sem;
  }

  leave(host: string, sem: Semaphore): void {
    sem.release();
    // Bounded memory: idle hosts' semaphores are forgotten once there are many (not at every
    // release: a host with one request at a time would get a new semaphore per request).
    if (this.semaphores.size > MAX_IDLE_SEMAPHORES && sem.idle && this.semaphores.get(host) === sem)
      this.semaphores.delete(host);
  }

  private semaphoreOf(host: string): Semaphore {
    let s = this.semaphores.get(host);
    if (!s) {
      s = new Semaphore(this.perHost);
      this.semaphores.set(host, s);
    }
    return s;
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
