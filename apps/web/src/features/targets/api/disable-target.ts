import type { TTarget, TTargetRef } from '@perimeter/contracts';
import { TARGET_CHANGE_TAGS, targetsApi } from './targets-api.ts';

/** POST /main/user_target/disable: the target is no longer scanned (it keeps its scans). */
export const disableTargetApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    disableTarget: b.mutation<TTarget, TTargetRef>({
      query: (body) => ({ url: '/main/user_target/disable', method: 'POST', body }),
      invalidatesTags: [...TARGET_CHANGE_TAGS],
    }),
  }),
});

export const { useDisableTargetMutation } = disableTargetApi;
