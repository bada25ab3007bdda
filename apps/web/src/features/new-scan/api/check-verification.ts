import type { TTargetRef, TVerificationResult } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const checkVerificationApi = api.injectEndpoints({
  endpoints: (b) => ({
    checkVerification: b.mutation<TVerificationResult, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/check_verification', method: 'POST', body }),
      invalidatesTags: (result) => (result?.verified ? ['Targets', 'Dashboard'] : []),
    }),
  }),
});

export const { useCheckVerificationMutation } = checkVerificationApi;
