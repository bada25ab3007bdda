import { z } from 'zod';
import { ZScanSubclass } from './scans.ts';
import { ZSeverityCounts, ZUserTargetId } from './targets.ts';

export const ZRiskGrade = z.enum(['A', 'B', 'C', 'D', 'F']);

export const ZTargetRisk = z.object({
  user_target_id: z.string(),
  target: z.string(),
  target_type: z.string(),
  /** 0 … 100, docs/risk-score.md. */
  risk_score: z.number().int(),
  grade: ZRiskGrade,
  open_findings: ZSeverityCounts,
});

/** GET /main/get_dashboard_info */
export const ZDashboardInfo = z.object({
  targets: z.object({
    total: z.number().int(),
    by_type: z.object({ domain: z.number().int(), peer: z.number().int(), network: z.number().int() }),
    verified: z.number().int(),
    disabled: z.number().int(),
  }),
  scans: z.object({
    total: z.number().int(),
    by_status: z.object({
      running: z.number().int(),
      pending: z.number().int(),
      done: z.number().int(),
      created: z.number().int(),
      canceled: z.number().int(),
    }),
    last_scan_at: z.string().nullable(),
  }),
  open_findings: ZSeverityCounts,
  open_total: z.number().int(),
  /** Last 30 local days: findings first seen and findings fixed per day. */
  new_vs_fixed: z.array(z.object({ date: z.string(), new: z.number().int(), fixed: z.number().int() })),
  top_risky_hosts: z.array(
    z.object({
      host: z.string(),
      risk_score: z.number().int(),
      grade: ZRiskGrade,
      open_findings: ZSeverityCounts,
    }),
  ),
  targets_risk: z.array(ZTargetRisk),
  /** The user's overall score: the worst target's. */
  risk_score: z.number().int(),
});
export type TDashboardInfo = z.infer<typeof ZDashboardInfo>;

/** GET /main/get_target_metrics */
export const ZTargetMetricsQuery = z.strictObject({
  user_target_id: ZUserTargetId.optional(),
  days: z.coerce.number().int().min(1).max(730).optional().default(90),
});
export type TTargetMetricsQuery = z.infer<typeof ZTargetMetricsQuery>;

const ZDayCount = z.object({ date: z.string(), new: z.number().int(), fixed: z.number().int() });

export const ZTargetMetrics = z.object({
  days: z.number().int(),
  /** The period in the user's time zone, YYYY-MM-DD, both inclusive. */
  from: z.string(),
  to: z.string(),
  targets: z.array(
    ZTargetRisk.extend({
      series: z.array(
        z.object({
          scan_id: z.string(),
          date: z.string(),
          /** Findings the scan saw on this target. */
          findings: ZSeverityCounts,
          total: z.number().int(),
          new: z.number().int(),
          fixed: z.number().int(),
          /** The score of what that scan saw. */
          risk_score: z.number().int(),
        }),
      ),
    }),
  ),
  /**
   * Everything below covers the chosen target (or every enabled target) over the period.
   * Findings first seen / fixed per local day, every day of the period present.
   */
  new_vs_fixed: z.array(ZDayCount),
  /**
   * On each day a scan finished: the findings by severity of each target's latest scan up to
   * that day, summed over the targets (a target keeps its last result until it is scanned again).
   */
  severity_timeline: z.array(z.object({ date: z.string(), findings: ZSeverityCounts })),
  /** Findings seen or fixed in the period, per subclass and severity (every subclass present). */
  by_class: z.array(
    z.object({ subclass: ZScanSubclass, findings: ZSeverityCounts, total: z.number().int() }),
  ),
  /** From each target's latest finished scan in the period: host names running a technology (top 10). */
  top_technologies: z.array(z.object({ name: z.string(), hosts: z.number().int() })),
  /** From the same scans: host names with each port open (top 15). */
  open_ports: z.array(z.object({ port: z.number().int(), hosts: z.number().int() })),
  /** Leaked credentials seen in the period per leak source (top 10). */
  leak_sources: z.array(z.object({ source: z.string(), leaks: z.number().int() })),
});
export type TTargetMetrics = z.infer<typeof ZTargetMetrics>;
