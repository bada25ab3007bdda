import type { TEvent, TScanSubclass } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export type TUnresolveEventArgs = { scan_subclass: TScanSubclass; event_id: string };

export const unresolveEventApi = api.injectEndpoints({
  endpoints: (b) => ({
    unresolveEvent: b.mutation<TEvent, TUnresolveEventArgs>({
      query: (body) => ({ url: '/main/unresolve_abstract_scan_event', method: 'POST', body }),
      invalidatesTags: ['Events', 'Dashboard'],
    }),
  }),
});

export const { useUnresolveEventMutation } = unresolveEventApi;
