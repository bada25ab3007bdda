import type { TScanSchedule, TUpdateScheduleBody } from '@perimeter/contracts';
import { schedulesApi } from './schedules-api.ts';

export const updateScanScheduleApi = schedulesApi.injectEndpoints({
  endpoints: (b) => ({
    updateScanSchedule: b.mutation<TScanSchedule, TUpdateScheduleBody>({
      query: (body) => ({ url: '/users/update_scan_schedule', method: 'PATCH', body }),
      invalidatesTags: ['Schedules', 'ScheduleOverview'],
    }),
  }),
});

export const { useUpdateScanScheduleMutation } = updateScanScheduleApi;
