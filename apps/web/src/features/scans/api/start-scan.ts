import type { TScan } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const startScanApi = api.injectEndpoints({
  endpoints: (b) => ({
    startScan: b.mutation<TScan, string>({
      query: (id) => ({ url: '/main/start_created_abstract_scan', method: 'POST', body: { id } }),
      invalidatesTags: ['Scans', 'ScanProgress', 'Dashboard'],
    }),
  }),
});

export const { useStartScanMutation } = startScanApi;
