import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortedError, Channel, RateLimiter, Semaphore } from './async.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** Starts `n` acquisitions at once on a fake clock; returns each one's start time (ms). */
async function startTimes(limiter: RateLimiter, n: number): Promise<number[]> {
  const t0 = performance.now();
  const times: number[] = [];
  const all = Array.from({ length: n }, () =>
    limiter.acquire().then(() => times.push(performance.now() - t0)),
  );
  await vi.runAllTimersAsync();
  await Promise.all(all);
  return times.sort((a, b) => a - b);
}

describe('RateLimiter', () => {
  it('never lets more than perSecond start in any one-second window, and keeps that pace', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const times = await startTimes(new RateLimiter(5), 12);
    expect(times[0]).toBe(0);
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(5);
    // Evenly spaced: the twelfth start is 11 intervals of 200 ms after the first.
    expect(times.at(-1)).toBeCloseTo(2200, 0);
  });

  it('waits for nothing without a limit', async () => {
    const limiter = new RateLimiter(0);
    expect(limiter.isLimited).toBe(false);
    let done = 0;
    await Promise.all(Array.from({ length: 1000 }, () => limiter.acquire().then(() => done++)));
    expect(done).toBe(1000);
    expect(new RateLimiter(Number.POSITIVE_INFINITY).isLimited).toBe(false);
  });

  it('gives up its wait when the scan stops', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const limiter = new RateLimiter(1);
    await limiter.acquire();
    const ac = new AbortController();
    const waiting = limiter.acquire(ac.signal);
    ac.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('Semaphore', () => {
  it('hands out its slots, then queues takers in order', async () => {
    const s = new Semaphore(2);
    expect(s.tryTake()).toBe(true);
    expect(s.tryTake()).toBe(true);
    expect(s.tryTake()).toBe(false);
    const order: number[] = [];
    const a = s.take().then(() => order.push(1));
    const b = s.take().then(() => order.push(2));
    s.release();
    await a;
    expect(order).toEqual([1]);
    s.release();
    await b;
    expect(order).toEqual([1, 2]);
    s.release();
    s.release();
    expect(s.idle).toBe(true);
  });
});

describe('Channel', () => {
  it('makes a producer wait (room) while max items are unread, until the reader takes one or it closes', async () => {
    const ch = new Channel<number>();
    ch.push(1);
    expect(ch.room(2)).toBeUndefined();
    ch.push(2);
    const room = ch.room(2);
    expect(room).toBeInstanceOf(Promise);
    let freed = false;
    room?.then(() => {
      freed = true;
    });
    const reader = ch[Symbol.asyncIterator]();
    await Promise.resolve();
    expect(freed).toBe(false);
    expect(await reader.next()).toEqual({ value: 1, done: false });
    await room;
    expect(freed).toBe(true);
    ch.push(3);
    const another = ch.room(2);
    ch.close();
    await another;
    expect(ch.room(2)).toBeUndefined();
  });
});
