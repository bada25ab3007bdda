import type { TRecoveryCodesResponse, TTotpCodeBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const twoFactorConfirmApi = api.injectEndpoints({
  endpoints: (b) => ({
    confirmTwoFactor: b.mutation<TRecoveryCodesResponse, TTotpCodeBody>({
      query: (body) => ({ url: '/users/auth/app/activate/confirm/', method: 'POST', body }),
    }),
  }),
});

export const { useConfirmTwoFactorMutation } = twoFactorConfirmApi;
