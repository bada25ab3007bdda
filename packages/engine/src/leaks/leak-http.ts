import { RateLimiter, sleep } from '../lib/async.ts';
import { type LeakErrorCode, LeakSourceError } from './leak-types.ts';

export interface LeakHttpOptions {
  /** API base URL (the provider's by default; a local server in tests). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Minimum time between two requests to this provider. */
  minIntervalMs: number;
  timeoutMs?: number;
  /** How often to retry after a 429 (waiting Retry-After, capped by maxRetryWaitMs). */
  retries?: number;
  maxRetryWaitMs?: number;
  userAgent?: string;
}

const STATUS_CODE: Record<number, LeakErrorCode> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
};

/** A rate-limited JSON client that turns provider answers into clear scan-log messages. */
export class LeakHttpClient {
  private readonly pacing: RateLimiter;
  private readonly fetchImpl: typeof fetch;

  constructor(
    readonly source: string,
    private readonly options: LeakHttpOptions,
    private readonly explain: Partial<Record<number, string>> = {},
  ) {
    this.fetchImpl = options.fetch ?? fetch;
    this.pacing = new RateLimiter(options.minIntervalMs > 0 ? 1000 / options.minIntervalMs : 0);
  }

  message(status: number, retryAfter?: string | null): string {
    const base: Record<number, string> = {
      401: `${this.source}: API key rejected (401 Unauthorized) — check the key in the configuration`,
      403: `${this.source}: access denied (403 Forbidden) — the plan or credits do not allow this query`,
      404: `${this.source}: not found (404)`,
      429: `${this.source}: rate limit reached (429 Too Many Requests)${retryAfter ? `, retry after ${retryAfter} s` : ''}`,
    };
    return this.explain[status] ?? base[status] ?? `${this.source}: unexpected answer (HTTP ${status})`;
  }

  /** Sends a request; returns undefined for 404 when `notFoundIsEmpty`. */
  async json(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown; notFoundIsEmpty?: boolean },
    signal?: AbortSignal,
  ): Promise<unknown> {
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      await this.pacing.acquire(signal);
      let res: Response;
      try {
        const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 15000);
        res = await this.fetchImpl(`${this.options.baseUrl.replace(/\/$/, '')}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            accept: 'application/json',
            'user-agent': this.options.userAgent ?? 'perimeter-scan',
            ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...init.headers,
          },
          ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (err) {
        throw new LeakSourceError(
          this.source,
          'unreachable',
          `${this.source}: cannot reach ${this.options.baseUrl} (${(err as Error).message})`,
        );
      }
      if (res.status === 404 && init.notFoundIsEmpty) {
        await res.body?.cancel();
        return undefined;
      }
      if (res.status === 429 && attempt < retries) {
        const after = Number(res.headers.get('retry-after') ?? '1');
        await res.body?.cancel();
        await sleep(
          Math.min((Number.isFinite(after) ? after : 1) * 1000, this.options.maxRetryWaitMs ?? 10000),
          signal,
        );
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new LeakSourceError(
          this.source,
          STATUS_CODE[res.status] ?? 'bad_response',
          this.message(res.status, res.headers.get('retry-after')),
          res.status,
        );
      }
      try {
        return await res.json();
      } catch {
        throw new LeakSourceError(this.source, 'bad_response', `${this.source}: the answer is not JSON`);
      }
    }
  }
}
