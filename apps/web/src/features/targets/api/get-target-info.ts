import type { TTargetInfo, TTargetRef } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** GET /main/user_target/get_info_by_id: one target with its last check and its history. */
export const getTargetInfoApi = api.injectEndpoints({
  endpoints: (b) => ({
    getTargetInfo: b.query<TTargetInfo, TTargetRef>({
      query: (params) => ({ url: '/main/user_target/get_info_by_id', params }),
      providesTags: (_r, _e, ref) => [{ type: 'TargetInfo', id: ref.user_target_id }],
    }),
  }),
});

export const { useGetTargetInfoQuery } = getTargetInfoApi;
