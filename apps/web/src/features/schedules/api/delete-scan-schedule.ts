import { api } from '../../../lib/api-client.ts';

export const deleteScanScheduleApi = api.injectEndpoints({
  endpoints: (b) => ({
    deleteScanSchedule: b.mutation<unknown, string>({
      query: (id) => ({
        url: '/users/delete_scan_schedule',
        method: 'DELETE',
        params: { scan_schedule_id: id },
      }),
      invalidatesTags: ['Schedules', 'ScheduleOverview'],
    }),
  }),
});

export const { useDeleteScanScheduleMutation } = deleteScanScheduleApi;
