import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { TARGET_CHANGE_TAGS, targetsApi } from './targets-api.ts';

/** POST /main/user_target/enable: a disabled target comes back, unverified, when the plan has room. */
export const enableTargetApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    enableTarget: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/enable', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useEnableTargetMutation } = enableTargetApi;
