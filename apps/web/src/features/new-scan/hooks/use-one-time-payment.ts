import type { TARGET_TYPES, TPlanKey, TScan, TScanStatus } from '@perimeter/contracts';
import { useGetBillingStateQuery } from '../../billing/api/get-billing-state.ts';
import { useGetScansStatsQuery } from '../../scans/api/get-scans-stats.ts';
import { needsOneTimePayment } from '../new-scan-fns.ts';

const STARTED: readonly TScanStatus[] = ['pending', 'running', 'done', 'canceled'];

/** When a started scan began: a queued scan has no start time yet, so it counts as started now. */
function startedAt(scan: TScan, now: string): string | null {
  return scan.started_at ?? (scan.status === 'pending' ? now : null);
}

/**
 * Whether the card step is needed before a scan can start (try_it only): reads the billing state
 * (paid one-time checkouts) and the user's latest started scan of each target type.
 */
export function useOneTimePayment(plan: TPlanKey) {
  const skip = plan !== 'try_it';
  const billing = useGetBillingStateQuery(undefined, { skip });
  const query = (targets_type: (typeof TARGET_TYPES)[number]) => ({
    limit: 5,
    offset: 0,
    targets_type,
    status: STARTED,
    sort_key: 'started_at' as const,
    sort_order: 'desc' as const,
  });
  const domain = useGetScansStatsQuery(query('domain'), { skip });
  const peer = useGetScansStatsQuery(query('peer'), { skip });
  const network = useGetScansStatsQuery(query('network'), { skip });
  const all = [billing, domain, peer, network];
  if (skip) return { isLoading: false, isError: false, needed: false, refetch: () => undefined };
  const now = new Date().toISOString();
  const starts = [domain, peer, network]
    .flatMap((q) => q.data?.items ?? [])
    .map((s) => startedAt(s, now))
    .filter((s): s is string => s !== null)
    .sort();
  return {
    isLoading: all.some((q) => q.isLoading),
    isError: all.some((q) => q.isError),
    error: all.find((q) => q.isError)?.error,
    needed: needsOneTimePayment(plan, billing.data, starts.at(-1) ?? null),
    refetch: () => {
      for (const q of all) void q.refetch();
    },
  };
}
