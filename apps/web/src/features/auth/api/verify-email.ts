import type { TOk } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const verifyEmailApi = api.injectEndpoints({
  endpoints: (b) => ({
    verifyEmail: b.mutation<TOk, { key: string }>({
      query: ({ key }) => ({
        url: `/account/confirm-email/verify/${encodeURIComponent(key)}/`,
        method: 'POST',
        body: {},
      }),
    }),
  }),
});

export const { useVerifyEmailMutation } = verifyEmailApi;
