import type { TTargetInfo, TTargetRef } from '@perimeter/contracts';
import { targetsApi } from './targets-api.ts';

/** GET /main/user_target/get_info_by_id: one target with its last check and its history. */
export const getTargetInfoApi = targetsApi.injectEndpoints({
  endpoints: (b) => ({
    getTargetInfo: b.query<TTargetInfo, TTargetRef>({
      query: (params) => ({ url: '/main/user_target/get_info_by_id', params }),
      providesTags: (_r, _e, ref) => [{ type: 'TargetInfo', id: ref.user_target_id }],
    }),
  }),
});

export const { useGetTargetInfoQuery } = getTargetInfoApi;
