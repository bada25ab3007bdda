import type { TTwoFactorActivateResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const twoFactorActivateApi = api.injectEndpoints({
  endpoints: (b) => ({
    activateTwoFactor: b.mutation<TTwoFactorActivateResponse, void>({
      query: () => ({ url: '/users/auth/app/activate/', method: 'POST', body: {} }),
    }),
  }),
});

export const { useActivateTwoFactorMutation } = twoFactorActivateApi;
