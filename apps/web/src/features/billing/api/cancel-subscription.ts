import type { TBillingState } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const cancelSubscriptionApi = api.injectEndpoints({
  endpoints: (b) => ({
    cancelSubscription: b.mutation<TBillingState, void>({
      query: () => ({ url: '/users/billing/cancel_subscription', method: 'POST' }),
      invalidatesTags: ['Billing'],
    }),
  }),
});

export const { useCancelSubscriptionMutation } = cancelSubscriptionApi;
