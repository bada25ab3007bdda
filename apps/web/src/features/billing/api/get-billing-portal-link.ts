import type { TPortalLink } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getBillingPortalLinkApi = api.injectEndpoints({
  endpoints: (b) => ({
    getBillingPortalLink: b.mutation<TPortalLink, void>({
      query: () => ({ url: '/users/get_billing_portal_link', method: 'GET' }),
    }),
  }),
});

export const { useGetBillingPortalLinkMutation } = getBillingPortalLinkApi;
