import type { TScan } from '@perimeter/contracts';
import { scansApi } from './scans-api.ts';

export const startScanApi = scansApi.injectEndpoints({
  endpoints: (b) => ({
    startScan: b.mutation<TScan, string>({
      query: (id) => ({ url: '/main/start_created_abstract_scan', method: 'POST', body: { id } }),
      invalidatesTags: ['Scans', 'ScanProgress', 'Dashboard'],
    }),
  }),
});

export const { useStartScanMutation } = startScanApi;
