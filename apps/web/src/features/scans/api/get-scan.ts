import type { TScan } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getScanApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScan: b.query<TScan, string>({
      query: (id) => ({ url: '/main/get_abstract_scan', params: { id } }),
      providesTags: (_r, _e, id) => ['Scans', { type: 'Scans', id }],
    }),
  }),
});

export const { useGetScanQuery } = getScanApi;
