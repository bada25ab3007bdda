import type { TOk, TTokenRefreshBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** Revokes the refresh token on the server; the client clears its session whatever the answer. */
export const logoutApi = api.injectEndpoints({
  endpoints: (b) => ({
    logoutSession: b.mutation<TOk, TTokenRefreshBody>({
      query: (body) => ({ url: '/users/auth/logout/', method: 'POST', body }),
    }),
  }),
});
