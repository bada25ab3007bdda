import type { TTargetRef, TVerificationResult } from '@perimeter/contracts';
import { TARGET_CHANGE_TAGS, targetsApi } from './targets-api.ts';

/**
 * POST /main/user_target/check_verification from the targets screen: a failed check changes the
 * target too (its last check, its history, a proof that disappeared), so it always refreshes.
 */
export const recheckVerificationApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    recheckVerification: b.mutation<TVerificationResult, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/check_verification', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useRecheckVerificationMutation } = recheckVerificationApi;
