/**
 * Runs `fn` over a lazy source with at most `limit` tasks in flight and yields results as
 * tasks finish. Memory stays bounded by `limit` whatever the size of the source: a new task
 * starts only when the consumer asks for more (unlike lib/async's, which starts the next at
 * once and buffers what is not consumed yet). A failed task yields nothing.
 *
 * Finished tasks queue their results and wake the consumer (O(1) per task): racing the tasks
 * in flight (`Promise.race`) added a reaction to each of them per task, `limit` allocations
 * per task and more per slow one.
 */
export async function* mapConcurrent<T, R>(
  source: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<R[]>,
  signal?: AbortSignal,
): AsyncGenerator<R> {
  const it = source[Symbol.iterator]();
  const finished: R[][] = [];
  let running = 0;
  let done = false;
  let wake: (() => void) | undefined;
  const settle = (results: R[]) => {
    running--;
    finished.push(results);
    const w = wake;
    wake = undefined;
    w?.();
  };
  const failed = () => settle([]);
  let next = 0;
  // A finished task's results count against the limit until they are taken.
  const start = () => {
    while (!done && running + finished.length - next < limit && !signal?.aborted) {
      const n = it.next();
      if (n.done) {
        done = true;
        break;
      }
      running++;
      fn(n.value).then(settle, failed);
    }
  };
  start();
  while (running > 0 || next < finished.length) {
    if (next === finished.length) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      continue;
    }
    const results = finished[next] as R[];
    finished[next++] = [];
    start();
    // A consumed prefix is dropped now and then, not on every task (shift is O(n)).
    if (next > 1024) {
      finished.splice(0, next);
      next = 0;
    }
    // Not `yield*`: over an array it wraps each step in an async-from-sync iterator.
    for (let i = 0; i < results.length; i++) yield results[i] as R;
  }
}
