import type { TUser } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getUserApi = api.injectEndpoints({
  endpoints: (b) => ({
    getUser: b.query<TUser, void>({ query: () => '/users/user/', providesTags: ['User'] }),
  }),
});
