import type { TBillingState } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const cancelSubscriptionApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    cancelSubscription: b.mutation<TBillingState, void>({
      query: () => ({ url: '/users/billing/cancel_subscription', method: 'POST' }),
      invalidatesTags: ['Billing'],
    }),
  }),
});

export const { useCancelSubscriptionMutation } = cancelSubscriptionApi;
