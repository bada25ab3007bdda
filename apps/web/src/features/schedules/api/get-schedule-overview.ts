import type { TScheduleOverview } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** Spec §7/§9: the runs of the next 30 days, `by_end_of_month=false&days_ahead=30`. */
export const OVERVIEW_PARAMS = { by_end_of_month: false, days_ahead: 30 } as const;

export const getScheduleOverviewApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScheduleOverview: b.query<TScheduleOverview, void>({
      query: () => ({ url: '/users/get_schedule_overview', params: OVERVIEW_PARAMS }),
      providesTags: ['ScheduleOverview'],
    }),
  }),
});

export const { useGetScheduleOverviewQuery } = getScheduleOverviewApi;
