import { api } from '../../../lib/api-client.ts';

/**
 * The app's one RTK Query API with the tags the targets screen reads and changes: a change to a
 * target also refreshes the new-scan and Reports target lists, the analytics and schedules
 * target choices, the dashboard and the plan usage.
 */
export const targetsApi = api.enhanceEndpoints({
  addTagTypes: ['Targets', 'TargetInfo', 'OwnedTargets', 'Dashboard', 'Billing', 'Scans'],
});

/** Everything a change to one target makes stale. */
export const TARGET_CHANGE_TAGS = ['Targets', 'TargetInfo', 'OwnedTargets', 'Dashboard', 'Billing'] as const;
