import net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  candidateOctets,
  freeLoopbackSubnet,
  interleaved,
  interleaveOrder,
  median,
  openingAndSteady,
  overRoundP99,
  percentile,
  subnetIsFree,
} from '../src/bench-kit.ts';

describe('bench kit', () => {
  it('takes medians and nearest-rank percentiles', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    const hundred = Array.from({ length: 100 }, (_v, i) => 100 - i);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile([7], 50)).toBe(7);
  });

  it('counts the requests of each case over the p99 of their own round', () => {
    // Round 1: 1–100 ms over two cases (p99 99 ms: only case 1's 100 ms is over). Round 2 is
    // ten times slower throughout: against one p99 for both rounds all of its slowest would count.
    const round1 = [
      Array.from({ length: 50 }, (_v, i) => i + 1),
      Array.from({ length: 50 }, (_v, i) => i + 51),
    ];
    const round2 = [round1[1]!.map((ms) => ms * 10), round1[0]!.map((ms) => ms * 10)];
    expect(overRoundP99([round1])).toEqual([0, 1]);
    expect(overRoundP99([round1, round2])).toEqual([1, 1]);
    expect(overRoundP99([])).toEqual([]);
  });

  it('splits a closed loop into each client’s first request and the rest', () => {
    expect(openingAndSteady([[900, 10, 12], [800], [], [700, 11]])).toEqual({
      opening: [900, 800, 700],
      steady: [10, 12, 11],
    });
  });

  it('interleaves the sides forwards then backwards, the same number of runs each', async () => {
    expect(interleaveOrder(2, 4)).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    const calls: string[] = [];
    const side = (name: string) => ({
      name,
      run: async (round: number) => {
        calls.push(`${name}${round}`);
        return round;
      },
    });
    const samples = await interleaved([side('a'), side('b'), side('c')], { rounds: 2 });
    expect(calls).toEqual(['a-1', 'b-1', 'c-1', 'a0', 'b0', 'c0', 'c1', 'b1', 'a1']);
    expect(samples.map((s) => s.map((x) => x.value))).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    expect(samples[0]?.[0]?.load).toMatch(/^\d+\.\d\d \d+\.\d\d \d+\.\d\d$/);
  });

  it('sees a listener on one of the lab addresses and skips that subnet', async () => {
    expect(candidateOctets({ BENCH_SUBNETS: '254' })).toEqual([254]);
    expect(candidateOctets({ BENCH_SUBNETS: '0,999' }).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(8000, '127.0.254.10', resolve));
    try {
      expect(await subnetIsFree('127.0.254')).toBe(false);
      await expect(freeLoopbackSubnet([254])).rejects.toThrow(/no free loopback/);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await subnetIsFree('127.0.254')).toBe(true);
  });
});
