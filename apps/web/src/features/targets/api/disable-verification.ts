import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { TARGET_CHANGE_TAGS, targetsApi } from './targets-api.ts';

/** POST /main/user_target/disable_verification: the target becomes unverified. */
export const disableVerificationApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    disableVerification: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/disable_verification', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useDisableVerificationMutation } = disableVerificationApi;
