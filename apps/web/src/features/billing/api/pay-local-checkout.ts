import type { TCheckoutSession, TLocalPayBody } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const payLocalCheckoutApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    payLocalCheckout: b.mutation<TCheckoutSession, TLocalPayBody>({
      query: (body) => ({ url: '/users/billing/local_pay', method: 'POST', body }),
      invalidatesTags: ['Billing'],
    }),
  }),
});

export const { usePayLocalCheckoutMutation } = payLocalCheckoutApi;
