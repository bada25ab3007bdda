import type { TSeverityCounts } from '@perimeter/contracts';
import { zeroSeverityCounts } from '@perimeter/contracts';

/** Weight of one open finding by severity (docs/risk-score.md). */
export const RISK_WEIGHTS: Record<keyof TSeverityCounts, number> = {
  critical: 10,
  high: 5,
  medium: 2,
  low: 0.5,
  informational: 0,
  unknown: 0.5,
};
/** The weighted sum at which the score reaches 1 − 1/e ≈ 63. */
export const RISK_SCALE = 20;
/** One open critical finding puts a target at least here. */
export const CRITICAL_FLOOR = 70;

export function weightedSum(c: TSeverityCounts): number {
  return (Object.keys(RISK_WEIGHTS) as Array<keyof TSeverityCounts>).reduce(
    (s, k) => s + RISK_WEIGHTS[k] * c[k],
    0,
  );
}

/** 0 (nothing open) … 100: saturating in the weighted count, with a floor for any open critical. */
export function riskScore(c: TSeverityCounts): number {
  const s = weightedSum(c);
  const score = Math.round(100 * (1 - Math.exp(-s / RISK_SCALE)));
  return c.critical > 0 ? Math.max(CRITICAL_FLOOR, score) : score;
}

export function riskGrade(score: number): 'A' | 'B' | 'C' | 'D' | 'F' {
  if (score < 10) return 'A';
  if (score < 30) return 'B';
  if (score < 60) return 'C';
  if (score < 85) return 'D';
  return 'F';
}

/** Adds a (severity, n) row into counts, tolerating the engine's `info`. */
export function addCount(c: TSeverityCounts, severity: string, n: number) {
  const key = (severity === 'info' ? 'informational' : severity) as keyof TSeverityCounts;
  if (key in c) c[key] += n;
  else c.unknown += n;
}

/** Every local date from `from` to `to` inclusive (YYYY-MM-DD), for gap-free series. */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (
    let d = new Date(`${from}T00:00:00Z`);
    d <= new Date(`${to}T00:00:00Z`);
    d = new Date(d.getTime() + 86_400_000)
  ) {
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

/**
 * Findings by severity summed over targets, on each date a scan finished: every target counts
 * with its latest scan up to that date (its last result holds until it is scanned again).
 * `series` are per target, each sorted by date; a later scan the same day replaces an earlier one.
 */
export function severityTimeline(
  series: ReadonlyArray<ReadonlyArray<{ date: string; findings: TSeverityCounts }>>,
): Array<{ date: string; findings: TSeverityCounts }> {
  const dates = [...new Set(series.flatMap((s) => s.map((p) => p.date)))].filter(Boolean).sort();
  const keys = Object.keys(RISK_WEIGHTS) as Array<keyof TSeverityCounts>;
  return dates.map((date) => {
    const findings = zeroSeverityCounts();
    for (const s of series) {
      const latest = s.filter((p) => p.date && p.date <= date).at(-1);
      if (latest) for (const k of keys) findings[k] += latest.findings[k];
    }
    return { date, findings };
  });
}
