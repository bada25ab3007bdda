import type { TScan } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const cancelScanApi = api.injectEndpoints({
  endpoints: (b) => ({
    cancelScan: b.mutation<TScan, string>({
      query: (id) => ({ url: '/main/cancel_running_abstract_scan', method: 'POST', body: { id } }),
      invalidatesTags: ['Scans', 'ScanProgress', 'Dashboard'],
    }),
  }),
});

export const { useCancelScanMutation } = cancelScanApi;
