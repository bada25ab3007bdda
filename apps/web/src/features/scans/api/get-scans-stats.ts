import type { TScansStats, TScansStatsQuery } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** The query of GET /main/get_user_abstract_scans_stats; the server's defaults fill what is left out. */
export type TScansStatsArgs = Pick<TScansStatsQuery, 'limit' | 'offset' | 'targets_type'> &
  Partial<Omit<TScansStatsQuery, 'limit' | 'offset' | 'targets_type'>>;

export const getScansStatsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScansStats: b.query<TScansStats, TScansStatsArgs>({
      query: (params) => ({ url: '/main/get_user_abstract_scans_stats', params }),
      providesTags: ['Scans'],
    }),
  }),
});

export const { useGetScansStatsQuery } = getScansStatsApi;
