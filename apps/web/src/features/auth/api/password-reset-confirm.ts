import type { TOk, TPasswordResetConfirmBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const passwordResetConfirmApi = api.injectEndpoints({
  endpoints: (b) => ({
    confirmPasswordReset: b.mutation<TOk, TPasswordResetConfirmBody & { uid: string; token: string }>({
      query: ({ uid, token, ...body }) => ({
        url: `/account/password/reset/confirm/${encodeURIComponent(uid)}/${encodeURIComponent(token)}/`,
        method: 'POST',
        body,
      }),
    }),
  }),
});

export const { useConfirmPasswordResetMutation } = passwordResetConfirmApi;
