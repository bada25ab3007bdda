import {
  SCAN_SUBCLASS_VALUES,
  type TDashboardInfo,
  type TSeverityCounts,
  type TTargetMetrics,
  type TTargetMetricsQuery,
  zeroSeverityCounts,
} from '@perimeter/contracts';
import { notFound } from '../../lib/errors.ts';
import type { AppContext } from '../../server/context.ts';
import { localDate } from '../schedules/schedules-fns.ts';
import { addCount, dateRange, riskGrade, riskScore, severityTimeline } from './dashboard-fns.ts';
import * as repo from './dashboard-repo.ts';

const TOP_HOSTS = 10;
const TREND_DAYS = 30;
const TOP_TECHNOLOGIES = 10;
const TOP_PORTS = 15;
const TOP_LEAK_SOURCES = 10;

function groupCounts<K extends string>(
  rows: Array<{ severity: string; n: number } & Record<K, string>>,
  key: K,
) {
  const map = new Map<string, TSeverityCounts>();
  for (const r of rows) {
    const c = map.get(r[key]) ?? zeroSeverityCounts();
    addCount(c, r.severity, r.n);
    map.set(r[key], c);
  }
  return map;
}

const total = (c: TSeverityCounts) => Object.values(c).reduce((a, b) => a + b, 0);

export async function dashboardInfo(
  ctx: AppContext,
  userId: string,
  now = new Date(),
): Promise<TDashboardInfo> {
  const tz = await repo.userTz(ctx.db, userId);
  const since = new Date(now.getTime() - (TREND_DAYS - 1) * 86_400_000);
  const [targets, statusRows, sevRows, targetRows, hostRows, trendRows] = await Promise.all([
    repo.targetRows(ctx.db, userId),
    repo.scansByStatus(ctx.db, userId),
    repo.openBySeverity(ctx.db, userId),
    repo.openByTarget(ctx.db, userId),
    repo.openByHost(ctx.db, userId),
    repo.newAndFixedPerDay(ctx.db, userId, tz, new Date(`${localDate(since, tz)}T00:00:00Z`)),
  ]);

  const byStatus = { running: 0, pending: 0, done: 0, created: 0, canceled: 0 };
  let lastScan: Date | null = null;
  for (const r of statusRows) {
    if (r.status in byStatus) byStatus[r.status as keyof typeof byStatus] = r.n;
    const last = r.last ? new Date(r.last) : null;
    if (last && (!lastScan || last > lastScan)) lastScan = last;
  }
  const open = zeroSeverityCounts();
  for (const r of sevRows) addCount(open, r.severity, r.n);

  const perTarget = groupCounts(targetRows, 'target_id');
  const targetsRisk = targets
    .filter((t) => !t.disabled)
    .map((t) => {
      const c = perTarget.get(t.id) ?? zeroSeverityCounts();
      const score = riskScore(c);
      return {
        user_target_id: t.id,
        target: t.displayName,
        target_type: t.targetType,
        risk_score: score,
        grade: riskGrade(score),
        open_findings: c,
      };
    })
    .sort((a, b) => b.risk_score - a.risk_score || a.target.localeCompare(b.target));

  const hosts = [...groupCounts(hostRows, 'host').entries()]
    .map(([host, c]) => ({
      host,
      risk_score: riskScore(c),
      grade: riskGrade(riskScore(c)),
      open_findings: c,
    }))
    .sort(
      (a, b) =>
        b.risk_score - a.risk_score ||
        total(b.open_findings) - total(a.open_findings) ||
        a.host.localeCompare(b.host),
    )
    .slice(0, TOP_HOSTS);

  const trend = new Map(
    dateRange(localDate(since, tz), localDate(now, tz)).map((d) => [d, { date: d, new: 0, fixed: 0 }]),
  );
  for (const r of trendRows) {
    const point = trend.get(r.day);
    if (point) point[r.kind] += r.n;
  }

  return {
    targets: {
      total: targets.length,
      by_type: {
        domain: targets.filter((t) => t.targetType === 'domain').length,
        peer: targets.filter((t) => t.targetType === 'peer').length,
        network: targets.filter((t) => t.targetType === 'network').length,
      },
      verified: targets.filter((t) => t.verified).length,
      disabled: targets.filter((t) => t.disabled).length,
    },
    scans: {
      total: Object.values(byStatus).reduce((a, b) => a + b, 0),
      by_status: byStatus,
      last_scan_at: lastScan?.toISOString() ?? null,
    },
    open_findings: open,
    open_total: total(open),
    new_vs_fixed: [...trend.values()],
    top_risky_hosts: hosts,
    targets_risk: targetsRisk,
    risk_score: targetsRisk[0]?.risk_score ?? 0,
  };
}

export async function targetMetrics(
  ctx: AppContext,
  userId: string,
  query: TTargetMetricsQuery,
  now = new Date(),
): Promise<TTargetMetrics> {
  const tz = await repo.userTz(ctx.db, userId);
  const since = new Date(now.getTime() - query.days * 86_400_000);
  const all = await repo.targetRows(ctx.db, userId);
  const targets = query.user_target_id
    ? all.filter((t) => t.id === query.user_target_id)
    : all.filter((t) => !t.disabled);
  if (query.user_target_id && targets.length === 0) throw notFound('Target not found.');
  const ids = targets.map((t) => t.id);
  const [runs, counts, openRows, dayRows, classRows, leakRows] = await Promise.all([
    repo.finishedScansOfTargets(ctx.db, userId, since, query.user_target_id),
    repo.perScanTargetCounts(ctx.db, userId, since),
    repo.openByTarget(ctx.db, userId),
    repo.newAndFixedPerDayOf(ctx.db, userId, ids, tz, since),
    repo.findingsByClass(ctx.db, userId, ids, since),
    repo.leaksBySource(ctx.db, userId, ids, since, TOP_LEAK_SOURCES),
  ]);
  // The scope (technologies, ports) of each target's latest finished scan in the period.
  const latestScan = new Map<string, string>();
  for (const r of runs) if (ids.includes(r.targetId)) latestScan.set(r.targetId, r.scanId);
  const scopeScans = [...new Set(latestScan.values())];
  const [techRows, portRows] = await Promise.all([
    repo.technologiesOfScans(ctx.db, userId, scopeScans, TOP_TECHNOLOGIES),
    repo.portsOfScans(ctx.db, userId, scopeScans, TOP_PORTS),
  ]);
  const key = (scanId: string, targetId: string) => `${scanId}|${targetId}`;
  const seen = new Map<string, { c: TSeverityCounts; fresh: number }>();
  for (const r of counts.seen) {
    const k = key(r.scan_id, r.target_id);
    const v = seen.get(k) ?? { c: zeroSeverityCounts(), fresh: 0 };
    addCount(v.c, r.severity, r.seen);
    v.fresh += r.fresh;
    seen.set(k, v);
  }
  const fixed = new Map(counts.fixed.map((r) => [key(r.scan_id, r.target_id), r.n]));
  const open = groupCounts(openRows, 'target_id');
  const from = localDate(since, tz);
  const to = localDate(now, tz);
  const perTarget = targets.map((t) => {
    const c = open.get(t.id) ?? zeroSeverityCounts();
    const score = riskScore(c);
    return {
      user_target_id: t.id,
      target: t.displayName,
      target_type: t.targetType,
      risk_score: score,
      grade: riskGrade(score),
      open_findings: c,
      series: runs
        .filter((r) => r.targetId === t.id)
        .map((r) => {
          const v = seen.get(key(r.scanId, t.id)) ?? { c: zeroSeverityCounts(), fresh: 0 };
          return {
            scan_id: r.scanId,
            date: r.finishedAt ? localDate(r.finishedAt, tz) : '',
            findings: v.c,
            total: total(v.c),
            new: v.fresh,
            fixed: fixed.get(key(r.scanId, t.id)) ?? 0,
            risk_score: riskScore(v.c),
          };
        }),
    };
  });

  const days = new Map(dateRange(from, to).map((d) => [d, { date: d, new: 0, fixed: 0 }]));
  for (const r of dayRows) {
    const point = days.get(r.day);
    if (point) point[r.kind] += r.n;
  }
  const byClass = new Map(SCAN_SUBCLASS_VALUES.map((sc) => [sc, zeroSeverityCounts()]));
  for (const r of classRows) {
    const c = byClass.get(r.subclass as (typeof SCAN_SUBCLASS_VALUES)[number]);
    if (c) addCount(c, r.severity, r.n);
  }

  return {
    days: query.days,
    from,
    to,
    targets: perTarget,
    new_vs_fixed: [...days.values()],
    severity_timeline: severityTimeline(perTarget.map((t) => t.series)),
    by_class: [...byClass.entries()].map(([subclass, findings]) => ({
      subclass,
      findings,
      total: total(findings),
    })),
    top_technologies: techRows,
    open_ports: portRows,
    leak_sources: leakRows,
  };
}
