import type { TDashboardInfo, TScan } from '@perimeter/contracts';
import { useEffect, useMemo, useState } from 'react';
import { useGetScansStatsQuery } from '../../scans/index.ts';

const RECENT = 5;
const POLL_MS = 5000;

/**
 * The scans list is per target type on the server: ask for the newest few of each type the user
 * has targets of, and merge them. Polls while one of them is pending or running.
 */
export function useRecentScans(byType: TDashboardInfo['targets']['by_type'] | undefined) {
  const args = (type: 'domain' | 'peer' | 'network') => ({
    limit: RECENT,
    offset: 0,
    targets_type: type,
    sort_key: 'created_at' as const,
    sort_order: 'desc' as const,
  });
  const [pollingInterval, setPollingInterval] = useState(0);
  const domain = useGetScansStatsQuery(args('domain'), { skip: !byType?.domain, pollingInterval });
  const peer = useGetScansStatsQuery(args('peer'), { skip: !byType?.peer, pollingInterval });
  const network = useGetScansStatsQuery(args('network'), { skip: !byType?.network, pollingInterval });
  const all = [domain, peer, network];

  const scans = useMemo(
    () =>
      [...(domain.data?.items ?? []), ...(peer.data?.items ?? []), ...(network.data?.items ?? [])]
        .sort((a: TScan, b: TScan) => b.created_at.localeCompare(a.created_at))
        .slice(0, RECENT),
    [domain.data, peer.data, network.data],
  );
  const isActive = scans.some((s) => s.status === 'running' || s.status === 'pending');
  useEffect(() => setPollingInterval(isActive ? POLL_MS : 0), [isActive]);

  return {
    scans,
    isActive,
    isLoading: all.some((q) => q.isLoading),
    isError: all.some((q) => q.isError),
    refetch: () => {
      for (const q of all) if (!q.isUninitialized) void q.refetch();
    },
  };
}
