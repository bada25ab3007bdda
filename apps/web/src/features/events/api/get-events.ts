import type { TAllEventsBody, TEventsPage } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export type TEventsArgs = {
  /** With a scan id: that scan's findings (get_one_…); without: all the user's findings. */
  scanId?: string;
  limit: number;
  offset: number;
  body: TAllEventsBody;
};

export const getEventsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getEvents: b.query<TEventsPage, TEventsArgs>({
      query: ({ scanId, limit, offset, body }) =>
        scanId
          ? {
              url: '/main/get_one_user_abstract_scan_events',
              method: 'POST',
              params: { limit, offset },
              body: { ...body, id: scanId },
            }
          : {
              url: '/main/get_all_user_abstract_scan_events',
              method: 'POST',
              params: { limit, offset },
              body,
            },
      providesTags: ['Events'],
    }),
  }),
});

export const { useGetEventsQuery } = getEventsApi;
