import type { TLoginBody, TLoginResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const loginApi = api.injectEndpoints({
  endpoints: (b) => ({
    login: b.mutation<TLoginResponse, TLoginBody>({
      query: (body) => ({ url: '/users/auth/login/', method: 'POST', body }),
    }),
  }),
});
