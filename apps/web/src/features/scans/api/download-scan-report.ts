import type { TFileReportBody } from '@perimeter/contracts';
import type { TFileResult } from '../../../lib/api-client.ts';
import { api } from '../../../lib/api-client.ts';

/** A downloaded report as an object URL (a string keeps the Blob out of the store); revoke it once saved. */
export type TReportFile = { url: string; filename: string | null };

/** The report file of a scan (PDF, CSV or JSON); the server names it in Content-Disposition. */
export const downloadScanReportApi = api.injectEndpoints({
  endpoints: (b) => ({
    downloadScanReport: b.mutation<TReportFile, TFileReportBody>({
      query: (body) => ({ url: '/main/get_user_events_file_report', method: 'POST', body }),
      transformResponse: (file: TFileResult) => ({
        url: URL.createObjectURL(file.blob),
        filename: file.filename,
      }),
    }),
  }),
});

export const { useDownloadScanReportMutation } = downloadScanReportApi;
