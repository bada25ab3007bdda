import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestRate } from './politeness.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** Starts one acquisition per endpoint at once on a fake clock; each endpoint's start times (ms). */
async function startTimes(rate: RequestRate, endpoints: string[]): Promise<Map<string, number[]>> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const t0 = performance.now();
  const times = new Map<string, number[]>();
  const all = endpoints.map((e) =>
    rate.acquire(e).then(() => times.set(e, [...(times.get(e) ?? []), Math.round(performance.now() - t0)])),
  );
  await vi.runAllTimersAsync();
  await Promise.all(all);
  return times;
}

describe('RequestRate: how fast a template run sends requests', () => {
  it('gives each host its own budget by default: a host gets the rate, a run over many hosts is not slowed by the others', async () => {
    const times = await startTimes(new RequestRate(10), [
      'a.test:80',
      'b.test:80',
      'a.test:80',
      'b.test:80',
      'a.test:80',
    ]);
    expect(times.get('a.test:80')).toEqual([0, 100, 200]);
    expect(times.get('b.test:80')).toEqual([0, 100]);
  });

  it('counts a host once whatever its ports and however its name is spelt (IPv6 too)', async () => {
    const times = await startTimes(new RequestRate(10), [
      'a.test:80',
      'A.TEST:443',
      'a.test',
      '[::1]:80',
      '[::1]:8443',
      '127.0.0.1:80',
    ]);
    expect([...times.get('a.test:80')!, ...times.get('A.TEST:443')!, ...times.get('a.test')!]).toEqual([
      0, 100, 200,
    ]);
    expect([...times.get('[::1]:80')!, ...times.get('[::1]:8443')!]).toEqual([0, 100]);
    expect(times.get('127.0.0.1:80')).toEqual([0]);
  });

  it('with `scan`, one budget across every host (as nuclei’s -rate-limit)', async () => {
    const times = await startTimes(new RequestRate(10, 'scan'), [
      'a.test:80',
      'b.test:80',
      'c.test:80',
      'a.test:80',
    ]);
    expect([...times.values()].flat().sort((x, y) => x - y)).toEqual([0, 100, 200, 300]);
  });

  it('waits for nothing without a rate', async () => {
    const rate = new RequestRate(0);
    expect(rate.isLimited).toBe(false);
    const times = await startTimes(rate, ['a.test:80', 'a.test:80', 'a.test:80']);
    expect(times.get('a.test:80')).toEqual([0, 0, 0]);
  });

  it('forgets hosts whose budget is unused once there are many, without letting one host go faster', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const rate = new RequestRate(10);
    const size = () => (rate as unknown as { perHost: Map<string, unknown> }).perHost.size;
    for (let i = 0; i < 1500; i++) await rate.acquire(`h${i}.test:80`);
    // All 1,500 spent their turn this instant: none may be forgotten yet.
    expect(size()).toBe(1500);
    const busy = rate.acquire('h0.test:80');
    await vi.advanceTimersByTimeAsync(100);
    await busy;
    await vi.advanceTimersByTimeAsync(100);
    // A new host finds the others' budgets unused by now: they are forgotten.
    await rate.acquire('new.test:80');
    expect(size()).toBeLessThanOrEqual(2);
    const t0 = performance.now();
    const starts: number[] = [];
    const two = [rate.acquire('h0.test:443'), rate.acquire('h0.test:80')].map((p) =>
      p.then(() => starts.push(Math.round(performance.now() - t0))),
    );
    await vi.runAllTimersAsync();
    await Promise.all(two);
    expect(starts).toEqual([0, 100]);
  });
});
