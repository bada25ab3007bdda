import type { TCreateScheduleBody, TScanSchedule } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const createScanScheduleApi = api.injectEndpoints({
  endpoints: (b) => ({
    createScanSchedule: b.mutation<TScanSchedule, TCreateScheduleBody>({
      query: (body) => ({ url: '/users/create_scan_schedule', method: 'POST', body }),
      invalidatesTags: ['Schedules', 'ScheduleOverview'],
    }),
  }),
});

export const { useCreateScanScheduleMutation } = createScanScheduleApi;
