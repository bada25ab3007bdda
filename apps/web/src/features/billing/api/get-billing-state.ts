import type { TBillingState } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const getBillingStateApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    getBillingState: b.query<TBillingState, void>({
      query: () => '/users/billing/state',
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetBillingStateQuery } = getBillingStateApi;
