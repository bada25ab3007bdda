import type { TOk, TTwoFactorDeactivateBody } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const twoFactorDeactivateApi = api.injectEndpoints({
  endpoints: (b) => ({
    deactivateTwoFactor: b.mutation<TOk, TTwoFactorDeactivateBody>({
      query: (body) => ({ url: '/users/auth/app/deactivate/', method: 'POST', body }),
    }),
  }),
});

export const { useDeactivateTwoFactorMutation } = twoFactorDeactivateApi;
