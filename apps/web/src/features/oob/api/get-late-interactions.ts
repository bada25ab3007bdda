import type { TLateInteractions } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** GET /main/get_abstract_scan_late_interactions: call-backs that reached the server after the scan ended. */
export const getLateInteractionsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getLateInteractions: b.query<TLateInteractions, string>({
      query: (id) => ({ url: '/main/get_abstract_scan_late_interactions', params: { id } }),
    }),
  }),
});

export const { useGetLateInteractionsQuery } = getLateInteractionsApi;
