import type { TScanProgress } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getScanProgressApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScanProgress: b.query<TScanProgress, string>({
      query: (id) => ({ url: '/main/get_user_abstract_scan_progress', params: { id } }),
      providesTags: (_r, _e, id) => [{ type: 'ScanProgress', id }],
    }),
  }),
});

export const { useGetScanProgressQuery } = getScanProgressApi;
