/**
 * Everything a change to one target makes stale: every target list (new scan, Reports, analytics,
 * schedules), the target details, the dashboard and the plan usage.
 */
export const TARGET_CHANGE_TAGS = ['Targets', 'TargetInfo', 'Dashboard', 'Billing'] as const;
