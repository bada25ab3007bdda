import type { TScanSchedule, TUpdateScheduleBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const updateScanScheduleApi = api.injectEndpoints({
  endpoints: (b) => ({
    updateScanSchedule: b.mutation<TScanSchedule, TUpdateScheduleBody>({
      query: (body) => ({ url: '/users/update_scan_schedule', method: 'PATCH', body }),
      invalidatesTags: ['Schedules', 'ScheduleOverview'],
    }),
  }),
});

export const { useUpdateScanScheduleMutation } = updateScanScheduleApi;
