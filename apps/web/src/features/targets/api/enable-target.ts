import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import { TARGET_CHANGE_TAGS } from './target-change-tags.ts';

/** POST /main/user_target/enable: a disabled target comes back, unverified, when the plan has room. */
export const enableTargetApi = api.injectEndpoints({
  endpoints: (b) => ({
    enableTarget: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/enable', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useEnableTargetMutation } = enableTargetApi;
