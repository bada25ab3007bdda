import type { TOk, TPasswordResetBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const passwordResetApi = api.injectEndpoints({
  endpoints: (b) => ({
    requestPasswordReset: b.mutation<TOk, TPasswordResetBody>({
      query: (body) => ({ url: '/users/auth/password/reset/', method: 'POST', body }),
    }),
  }),
});

export const { useRequestPasswordResetMutation } = passwordResetApi;
