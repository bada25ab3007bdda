import type { TReplaceTargetBody, TReplaceTargetResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import { TARGET_CHANGE_TAGS } from './target-change-tags.ts';

/** POST /main/user_target/replace: a mistyped target is disabled and the right one added, in one step. */
export const replaceTargetApi = api.injectEndpoints({
  endpoints: (b) => ({
    replaceTarget: b.mutation<TReplaceTargetResponse, TReplaceTargetBody>({
      query: (body) => ({ url: '/main/user_target/replace', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useReplaceTargetMutation } = replaceTargetApi;
