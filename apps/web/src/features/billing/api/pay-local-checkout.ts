import type { TCheckoutSession, TLocalPayBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const payLocalCheckoutApi = api.injectEndpoints({
  endpoints: (b) => ({
    payLocalCheckout: b.mutation<TCheckoutSession, TLocalPayBody>({
      query: (body) => ({ url: '/users/billing/local_pay', method: 'POST', body }),
      invalidatesTags: ['Billing'],
    }),
  }),
});

export const { usePayLocalCheckoutMutation } = payLocalCheckoutApi;
