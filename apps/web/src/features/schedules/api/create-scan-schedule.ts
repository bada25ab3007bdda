import type { TCreateScheduleBody, TScanSchedule } from '@perimeter/contracts';
import { schedulesApi } from './schedules-api.ts';

export const createScanScheduleApi = schedulesApi.injectEndpoints({
  endpoints: (b) => ({
    createScanSchedule: b.mutation<TScanSchedule, TCreateScheduleBody>({
      query: (body) => ({ url: '/users/create_scan_schedule', method: 'POST', body }),
      invalidatesTags: ['Schedules', 'ScheduleOverview'],
    }),
  }),
});

export const { useCreateScanScheduleMutation } = createScanScheduleApi;
