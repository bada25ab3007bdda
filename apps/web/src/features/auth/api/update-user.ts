import type { TUpdateUserBody, TUser } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const updateUserApi = api.injectEndpoints({
  endpoints: (b) => ({
    updateUser: b.mutation<TUser, TUpdateUserBody>({
      query: (body) => ({ url: '/users/user/', method: 'PUT', body }),
    }),
  }),
});

export const { useUpdateUserMutation } = updateUserApi;
