import { zeroSeverityCounts } from '@perimeter/contracts';
import { describe, expect, it } from 'vitest';
import { dateRange, riskGrade, riskScore, severityTimeline } from './dashboard-fns.ts';

const counts = (o: Partial<ReturnType<typeof zeroSeverityCounts>>) => ({ ...zeroSeverityCounts(), ...o });

describe('risk score (docs/risk-score.md)', () => {
  it.each([
    [{}, 0, 'A'],
    [{ informational: 50 }, 0, 'A'],
    [{ low: 1 }, 2, 'A'],
    [{ medium: 1 }, 10, 'B'],
    [{ high: 1 }, 22, 'B'],
    [{ high: 2, medium: 3 }, 55, 'C'],
    [{ critical: 1 }, 70, 'D'],
    [{ critical: 2, high: 2 }, 78, 'D'],
    [{ critical: 4, high: 4 }, 95, 'F'],
    [{ medium: 200 }, 100, 'F'],
  ])('%j → %i (%s)', (c, score, grade) => {
    expect(riskScore(counts(c))).toBe(score);
    expect(riskGrade(riskScore(counts(c)))).toBe(grade);
  });
  it('never decreases when a finding is added', () => {
    let c = zeroSeverityCounts();
    let last = 0;
    for (const s of ['low', 'medium', 'high', 'critical', 'unknown', 'high'] as const) {
      c = { ...c, [s]: c[s] + 1 };
      expect(riskScore(c)).toBeGreaterThanOrEqual(last);
      last = riskScore(c);
    }
  });
  it('date ranges are gap-free', () => {
    expect(dateRange('2026-02-27', '2026-03-02')).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
  });
});

describe('severity timeline', () => {
  it('sums each target’s latest scan up to the date, carrying results forward', () => {
    const a = [
      { date: '2026-03-01', findings: counts({ high: 2 }) },
      { date: '2026-03-01', findings: counts({ high: 1 }) },
      { date: '2026-03-05', findings: counts({ low: 1 }) },
    ];
    const b = [{ date: '2026-03-03', findings: counts({ critical: 1 }) }];
    expect(severityTimeline([a, b])).toEqual([
      { date: '2026-03-01', findings: counts({ high: 1 }) },
      { date: '2026-03-03', findings: counts({ high: 1, critical: 1 }) },
      { date: '2026-03-05', findings: counts({ low: 1, critical: 1 }) },
    ]);
    expect(severityTimeline([])).toEqual([]);
  });
});
