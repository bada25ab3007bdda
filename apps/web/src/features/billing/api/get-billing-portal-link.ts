import type { TPortalLink } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const getBillingPortalLinkApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    getBillingPortalLink: b.mutation<TPortalLink, void>({
      query: () => ({ url: '/users/get_billing_portal_link', method: 'GET' }),
    }),
  }),
});

export const { useGetBillingPortalLinkMutation } = getBillingPortalLinkApi;
