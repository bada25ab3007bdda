import type { TCheckoutSession } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const getCheckoutSessionApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    getCheckoutSession: b.query<TCheckoutSession, string>({
      query: (sessionId) => ({ url: '/users/billing/checkout_session', params: { session_id: sessionId } }),
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetCheckoutSessionQuery } = getCheckoutSessionApi;
