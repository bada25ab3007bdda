import type { TCreateScanBody, TScan } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** POST /main/create_abstract_scan: the scan is stored with status `created`. */
export const createScanApi = api.injectEndpoints({
  endpoints: (b) => ({
    createScan: b.mutation<TScan, TCreateScanBody>({
      query: (body) => ({ url: '/main/create_abstract_scan', method: 'POST', body }),
      // Billing: a try_it scan uses one paid one-time payment (usage.one_time_scans_left).
      invalidatesTags: ['Scans', 'Dashboard', 'Billing'],
    }),
  }),
});

export const { useCreateScanMutation } = createScanApi;
