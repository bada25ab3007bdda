import type { TBillingState } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getBillingStateApi = api.injectEndpoints({
  endpoints: (b) => ({
    getBillingState: b.query<TBillingState, void>({
      query: () => '/users/billing/state',
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetBillingStateQuery } = getBillingStateApi;
