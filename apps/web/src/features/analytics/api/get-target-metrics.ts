import type { TTargetMetrics } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export type TTargetMetricsArgs = { days: number; user_target_id?: string };

export const getTargetMetricsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getTargetMetrics: b.query<TTargetMetrics, TTargetMetricsArgs>({
      query: (params) => ({ url: '/main/get_target_metrics', params }),
      providesTags: ['TargetMetrics'],
    }),
  }),
});

export const { useGetTargetMetricsQuery } = getTargetMetricsApi;
