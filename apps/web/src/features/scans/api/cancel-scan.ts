import type { TScan } from '@perimeter/contracts';
import { scansApi } from './scans-api.ts';

export const cancelScanApi = scansApi.injectEndpoints({
  endpoints: (b) => ({
    cancelScan: b.mutation<TScan, string>({
      query: (id) => ({ url: '/main/cancel_running_abstract_scan', method: 'POST', body: { id } }),
      invalidatesTags: ['Scans', 'ScanProgress', 'Dashboard'],
    }),
  }),
});

export const { useCancelScanMutation } = cancelScanApi;
