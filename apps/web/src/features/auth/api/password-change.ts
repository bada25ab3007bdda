import type { TOk, TPasswordChangeBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const passwordChangeApi = api.injectEndpoints({
  endpoints: (b) => ({
    changePassword: b.mutation<TOk, TPasswordChangeBody>({
      query: (body) => ({ url: '/users/auth/password/change/', method: 'POST', body }),
    }),
  }),
});

export const { useChangePasswordMutation } = passwordChangeApi;
