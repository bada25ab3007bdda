import { describe, expect, it } from 'vitest';
import { mapConcurrent } from './concurrency.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('mapConcurrent (template tasks)', () => {
  it('keeps at most `limit` in flight, yields in finishing order and skips failed tasks', async () => {
    let inFlight = 0;
    let most = 0;
    const delays = [30, 5, 20, 1, 12, 8, 3, 25, 2, 16];
    const out: number[] = [];
    for await (const results of mapConcurrent(delays.keys(), 3, async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, delays[i]));
      inFlight--;
      if (i === 4) throw new Error('task failed');
      return [i, i + 100];
    })) {
      // Each task's results together, as one list.
      if (results.length > 0) expect(results[1]).toBe((results[0] as number) + 100);
      out.push(...results);
    }
    expect(most).toBe(3);
    // Every task's results, none of the failed one's.
    expect(out.filter((n) => n < 100).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9]);
    for (const n of out.filter((v) => v < 100)) expect(out.indexOf(n + 100)).toBe(out.indexOf(n) + 1);
    // The short tasks first: task 1 (5 ms) ends before task 0 (30 ms).
    expect(out.indexOf(1)).toBeLessThan(out.indexOf(0));
  });

  it('starts a new task only when the consumer asks for more (bounded whatever the source)', async () => {
    let started = 0;
    function* endless() {
      for (let i = 0; ; i++) yield i;
    }
    const gen = mapConcurrent(endless(), 4, async (i) => {
      started++;
      return [i];
    });
    await gen.next();
    for (let k = 0; k < 20; k++) await tick();
    // The four first, and one more for the one result taken.
    expect(started).toBe(5);
    await gen.return(undefined);
  });

  it('starts nothing more once the signal aborts, and ends with the tasks in flight', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    for await (const results of mapConcurrent(
      [1, 2, 3, 4, 5, 6].values(),
      2,
      async (i) => {
        if (i === 2) ac.abort();
        await tick();
        return [i];
      },
      ac.signal,
    ))
      seen.push(...results);
    expect(seen.sort()).toEqual([1, 2]);
  });
});
