import { schedulesApi } from './schedules-api.ts';

export const deleteScanScheduleApi = schedulesApi.injectEndpoints({
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
