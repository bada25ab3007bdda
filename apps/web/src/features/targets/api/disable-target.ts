import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';
import { TARGET_CHANGE_TAGS } from './target-change-tags.ts';

/** POST /main/user_target/disable: the target is no longer scanned (it keeps its scans). */
export const disableTargetApi = api.injectEndpoints({
  endpoints: (b) => ({
    disableTarget: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/disable', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useDisableTargetMutation } = disableTargetApi;
