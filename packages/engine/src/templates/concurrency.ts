/**
 * Runs `fn` over a lazy source with at most `limit` tasks in flight and yields each task's
 * results (one list per task, as the task returned it) as tasks finish. Memory stays bounded by
 * `limit` whatever the size of the source: a new task starts only when the consumer asks for
 * more (unlike lib/async's, which starts the next at once and buffers what is not consumed
 * yet). A failed task yields nothing.
 *
 * Finished tasks queue their results and wake the consumer (O(1) per task): racing the tasks
 * in flight (`Promise.race`) added a reaction to each of them per task, `limit` allocations
 * per task and more per slow one.
 */
export function mapConcurrent<T, R>(
  source: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<R[]>,
  signal?: AbortSignal,
): ConcurrentResults<T, R> {
  return new ConcurrentResults(source[Symbol.iterator](), limit, fn, signal);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * mapConcurrent's results. A plain iterator, not an async generator: it hands on one list per
 * template task (a cluster's members' items together), and a generator's suspend, resume and
 * awaited yield cost more than the rest of the hand-over (the same reasoning as
 * http-protocol.ts's HttpResponses).
 */
export class ConcurrentResults<T, R> implements AsyncIterableIterator<R[]> {
  /** Finished tasks' results, in finishing order; the first `taken` are taken. */
  private finished: R[][] = [];
  private taken = 0;
  private running = 0;
  private exhausted = false;
  private ended = false;
  /** The consumer waiting for a task to finish (one `next()` at a time, as for-await asks). */
  private waiting: ((step: IteratorResult<R[], undefined>) => void) | undefined;
  private readonly settle = (results: R[]) => this.taskEnded(results);
  private readonly failed = () => this.taskEnded([]);

  constructor(
    private readonly it: Iterator<T>,
    private readonly limit: number,
    private readonly fn: (item: T) => Promise<R[]>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.start();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<R[], undefined>> {
    const step = this.step();
    if (step) return Promise.resolve(step);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The consumer stopped: nothing more starts, and what is in flight is not handed on. */
  return(_value?: unknown): Promise<IteratorResult<R[], undefined>> {
    this.end();
    return Promise.resolve(DONE);
  }

  /** The next task's results, the end, or undefined while tasks are still running. */
  private step(): IteratorResult<R[], undefined> | undefined {
    if (this.ended) return DONE;
    if (this.taken < this.finished.length) {
      const value = this.finished[this.taken] as R[];
      this.finished[this.taken++] = [];
      // A consumed prefix is dropped now and then, not on every task (shift is O(n)).
      if (this.taken > 1024) {
        this.finished.splice(0, this.taken);
        this.taken = 0;
      }
      this.start();
      return { value, done: false };
    }
    if (this.running > 0) return undefined;
    this.end();
    return DONE;
  }

  private end(): void {
    this.ended = true;
    this.exhausted = true;
    this.finished = [];
  }

  // A finished task's results count against the limit until they are taken.
  private start(): void {
    while (
      !this.exhausted &&
      this.running + this.finished.length - this.taken < this.limit &&
      !this.signal?.aborted
    ) {
      const n = this.it.next();
      if (n.done) {
        this.exhausted = true;
        break;
      }
      this.running++;
      this.fn(n.value).then(this.settle, this.failed);
    }
  }

  private taskEnded(results: R[]): void {
    this.running--;
    if (this.ended) return;
    this.finished.push(results);
    const waiting = this.waiting;
    if (!waiting) return;
    const step = this.step();
    if (!step) return;
    this.waiting = undefined;
    waiting(step);
  }
}
