import type { TPlanKey } from '@perimeter/contracts';
import { useGetBillingStateQuery } from '../../billing/index.ts';
import { needsOneTimePayment } from '../new-scan-fns.ts';

/**
 * Whether the card step is needed before a scan can start (try_it only): the server's count of paid
 * one-time scans not used yet (`usage.one_time_scans_left`), read afresh each time the page opens.
 */
export function useOneTimePayment(plan: TPlanKey) {
  const skip = plan !== 'try_it';
  const billing = useGetBillingStateQuery(undefined, { skip, refetchOnMountOrArgChange: true });
  if (skip) return { isLoading: false, isError: false, needed: false, refetch: () => undefined };
  return {
    isLoading: billing.isLoading,
    isError: billing.isError,
    error: billing.error,
    needed: needsOneTimePayment(plan, billing.data),
    refetch: () => void billing.refetch(),
  };
}
