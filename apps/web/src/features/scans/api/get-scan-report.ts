import type { TReport } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** The report of one scan as data (summary, what changed, restricted-plan state). */
export const getScanReportApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScanReport: b.query<TReport, string>({
      query: (id) => ({ url: '/main/get_user_events_data_report', params: { id } }),
      providesTags: (_r, _e, id) => [{ type: 'ScanReport', id }],
    }),
  }),
});

export const { useGetScanReportQuery } = getScanReportApi;
