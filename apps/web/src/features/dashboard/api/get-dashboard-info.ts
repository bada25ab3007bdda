import type { TDashboardInfo } from '@perimeter/contracts';
import { scansApi } from '../../scans/api/scans-api.ts';

export const getDashboardInfoApi = scansApi.injectEndpoints({
  endpoints: (b) => ({
    getDashboardInfo: b.query<TDashboardInfo, void>({
      query: () => '/main/get_dashboard_info',
      providesTags: ['Dashboard'],
    }),
  }),
});

export const { useGetDashboardInfoQuery } = getDashboardInfoApi;
