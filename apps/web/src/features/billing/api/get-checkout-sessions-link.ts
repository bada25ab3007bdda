import type { TCheckoutLink, TCheckoutLinkQuery } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getCheckoutSessionsLinkApi = api.injectEndpoints({
  endpoints: (b) => ({
    // A GET with side effects (it opens a checkout session): a mutation so it never caches.
    getCheckoutSessionsLink: b.mutation<TCheckoutLink, TCheckoutLinkQuery>({
      query: ({ plan, period, promo_code }) => ({
        url: '/users/get_checkout_sessions_link',
        method: 'GET',
        params: { plan, period, ...(promo_code ? { promo_code } : {}) },
      }),
    }),
  }),
});

export const { useGetCheckoutSessionsLinkMutation } = getCheckoutSessionsLinkApi;
