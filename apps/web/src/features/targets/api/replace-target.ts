import type { TReplaceTargetBody, TReplaceTargetResponse } from '@perimeter/contracts';
import { TARGET_CHANGE_TAGS, targetsApi } from './targets-api.ts';

/** POST /main/user_target/replace: a mistyped target is disabled and the right one added, in one step. */
export const replaceTargetApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    replaceTarget: b.mutation<TReplaceTargetResponse, TReplaceTargetBody>({
      query: (body) => ({ url: '/main/user_target/replace', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useReplaceTargetMutation } = replaceTargetApi;
