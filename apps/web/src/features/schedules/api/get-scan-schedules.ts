import type { TScanSchedule } from '@perimeter/contracts';
import { schedulesApi } from './schedules-api.ts';

export const getScanSchedulesApi = schedulesApi.injectEndpoints({
  endpoints: (b) => ({
    getScanSchedules: b.query<{ results: TScanSchedule[]; count: number }, void>({
      query: () => '/users/get_user_scan_schedules',
      providesTags: ['Schedules'],
    }),
  }),
});

export const { useGetScanSchedulesQuery } = getScanSchedulesApi;
