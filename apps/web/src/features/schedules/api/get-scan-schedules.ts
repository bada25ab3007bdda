import type { TScanSchedule } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getScanSchedulesApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScanSchedules: b.query<{ results: TScanSchedule[]; count: number }, void>({
      query: () => '/users/get_user_scan_schedules',
      providesTags: ['Schedules'],
    }),
  }),
});

export const { useGetScanSchedulesQuery } = getScanSchedulesApi;
