import type { HttpResponseData } from './http-client.ts';

/** No complete response within the exchange's time limit. */
export class RequestTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** Where a request's outcome goes: its response, or why there is none (called once). */
export interface ResponseReceiver {
  received(res: HttpResponseData): void;
  failed(err: unknown): void;
}

/**
 * One request in flight: its deadline, the scan's signal, and how it settles. It settles the
 * request itself, handing the outcome to its receiver: undici cannot abort a request still
 * queued in a pool (only once a connection took it), so neither the deadline nor the scan's
 * abort may depend on undici.
 * Once a connection took the request, an abort also ends the exchange (undici's abort
 * function, held here: no listener closure per request). Guards are linked in a list (no Set
 * hashing per request) that the client's one sweep timer walks.
 */
export class RequestGuard {
  aborted = false;
  reason: unknown = undefined;
  /** undici's abort of the exchange, once a connection took it. */
  private abortExchange: ((err: Error) => void) | undefined = undefined;
  private settled = false;
  prev: RequestGuard | undefined = undefined;
  next: RequestGuard | undefined = undefined;

  constructor(
    private readonly list: GuardList,
    readonly deadline: number,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    private readonly receiver: ResponseReceiver,
  ) {}

  /** A connection took the request: an abort from now on ends the exchange too. */
  connected(abort: (err: Error) => void): void {
    if (this.aborted) queueMicrotask(() => abort(this.reason as Error));
    else this.abortExchange = abort;
  }

  abort(reason: unknown): void {
    if (this.aborted || this.settled) return;
    this.aborted = true;
    this.reason = reason;
    const abort = this.abortExchange;
    this.abortExchange = undefined;
    // undici destroys the socket or the body stream: the connection goes back to the pool.
    abort?.(reason as Error);
    this.settle(undefined, reason);
  }

  settle(res: HttpResponseData | undefined, err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.list.remove(this);
    if (res) this.receiver.received(res);
    else this.receiver.failed(this.aborted ? this.reason : err);
  }
}

export function noop(): void {}

/** The requests in flight of one client, and the timer that ends them (deadline, scan abort). */
export class GuardList {
  private head: RequestGuard | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(private readonly sweepMs: number) {}

  add(guard: RequestGuard): void {
    guard.next = this.head;
    if (this.head) this.head.prev = guard;
    this.head = guard;
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  remove(guard: RequestGuard): void {
    if (guard.prev) guard.prev.next = guard.next;
    else if (this.head === guard) this.head = guard.next;
    if (guard.next) guard.next.prev = guard.prev;
    guard.prev = undefined;
    guard.next = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (let g = this.head; g; ) {
      const next = g.next;
      if (g.signal?.aborted) g.abort(g.signal.reason);
      else if (now >= g.deadline) g.abort(new RequestTimeoutError(g.timeoutMs));
      g = next;
    }
    if (!this.head) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

// The promise executor is shared (no closure per promise): it hands its functions over here.
let capturedResolve: (value: unknown) => void = noop;
let capturedReject: (reason: unknown) => void = noop;
function capture<V>(resolve: (value: V) => void, reject: (reason: unknown) => void): void {
  capturedResolve = resolve as (value: unknown) => void;
  capturedReject = reject;
}

/** A promise with its settle functions as fields (no closure per promise made to reach them). */
export class Settler<T> {
  readonly promise: Promise<T>;
  protected readonly resolve: (value: T | PromiseLike<T>) => void;
  protected readonly reject: (reason: unknown) => void;

  constructor() {
    this.promise = new Promise<T>(capture);
    this.resolve = capturedResolve;
    this.reject = capturedReject;
  }
}

/** A request's outcome as a promise (`HttpClient.send`). */
export class PromisedResponse extends Settler<HttpResponseData> implements ResponseReceiver {
  received(res: HttpResponseData): void {
    this.resolve(res);
  }

  failed(err: unknown): void {
    this.reject(err);
  }
}
