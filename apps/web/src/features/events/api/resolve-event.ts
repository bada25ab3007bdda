import type { TEvent, TScanSubclass } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import type { TResolveReason } from '../hooks/use-events-params.ts';

export type TResolveEventArgs = { scan_subclass: TScanSubclass; event_id: string; reason: TResolveReason };

export const resolveEventApi = api.injectEndpoints({
  endpoints: (b) => ({
    resolveEvent: b.mutation<TEvent, TResolveEventArgs>({
      query: (body) => ({ url: '/main/resolve_abstract_scan_event', method: 'POST', body }),
      invalidatesTags: ['Events', 'Dashboard'],
    }),
  }),
});

export const { useResolveEventMutation } = resolveEventApi;
