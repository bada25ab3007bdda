/**
 * Runs `fn` over a lazy source with at most `limit` tasks in flight and yields results as
 * tasks finish. Memory stays bounded by `limit` whatever the size of the source.
 */
export async function* mapConcurrent<T, R>(
  source: Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<R[]>,
  signal?: AbortSignal,
): AsyncGenerator<R> {
  const it = source[Symbol.iterator]();
  const running = new Map<number, Promise<{ id: number; results: R[] }>>();
  let nextId = 0;
  let done = false;
  const start = () => {
    while (!done && running.size < limit && !signal?.aborted) {
      const n = it.next();
      if (n.done) {
        done = true;
        break;
      }
      const id = nextId++;
      running.set(
        id,
        fn(n.value).then(
          (results) => ({ id, results }),
          () => ({ id, results: [] }),
        ),
      );
    }
  };
  start();
  while (running.size > 0) {
    const { id, results } = await Promise.race(running.values());
    running.delete(id);
    start();
    yield* results;
  }
}
