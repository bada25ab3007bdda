import type { TTargetRef, TVerificationResult } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import { TARGET_CHANGE_TAGS } from './target-change-tags.ts';

/**
 * POST /main/user_target/check_verification from the targets screen: a failed check changes the
 * target too (its last check, its history, a proof that disappeared), so it always refreshes.
 */
export const recheckVerificationApi = api.injectEndpoints({
  endpoints: (b) => ({
    recheckVerification: b.mutation<TVerificationResult, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/check_verification', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useRecheckVerificationMutation } = recheckVerificationApi;
