import type { TDashboardInfo } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getDashboardInfoApi = api.injectEndpoints({
  endpoints: (b) => ({
    getDashboardInfo: b.query<TDashboardInfo, void>({
      query: () => '/main/get_dashboard_info',
      providesTags: ['Dashboard'],
    }),
  }),
});

export const { useGetDashboardInfoQuery } = getDashboardInfoApi;
