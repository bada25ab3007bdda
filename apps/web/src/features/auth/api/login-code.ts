import type { TLoginCodeBody, TSessionResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const loginCodeApi = api.injectEndpoints({
  endpoints: (b) => ({
    loginCode: b.mutation<TSessionResponse, TLoginCodeBody>({
      query: (body) => ({ url: '/users/auth/login/code/', method: 'POST', body }),
    }),
  }),
});
