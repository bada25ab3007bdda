import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import { TARGET_CHANGE_TAGS } from './target-change-tags.ts';

/** POST /main/user_target/disable_verification: the target becomes unverified. */
export const disableVerificationApi = api.injectEndpoints({
  endpoints: (b) => ({
    disableVerification: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/disable_verification', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useDisableVerificationMutation } = disableVerificationApi;
