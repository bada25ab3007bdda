import type { TOk, TRegistrationBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const registrationApi = api.injectEndpoints({
  endpoints: (b) => ({
    register: b.mutation<TOk, TRegistrationBody>({
      query: (body) => ({ url: '/users/auth/registration/', method: 'POST', body }),
    }),
  }),
});

export const { useRegisterMutation } = registrationApi;
