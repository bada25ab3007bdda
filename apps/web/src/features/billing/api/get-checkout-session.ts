import type { TCheckoutSession } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getCheckoutSessionApi = api.injectEndpoints({
  endpoints: (b) => ({
    getCheckoutSession: b.query<TCheckoutSession, string>({
      query: (sessionId) => ({ url: '/users/billing/checkout_session', params: { session_id: sessionId } }),
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetCheckoutSessionQuery } = getCheckoutSessionApi;
