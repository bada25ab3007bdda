import { TARGET_TYPES, type TExtendedTarget, type TTargetType } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export type TExtendedTargetsByType = Record<TTargetType, TExtendedTarget[]>;

/** GET /main/user_target/get_extend_targets_info: every target of the user, live or disabled. */
export const getExtendTargetsInfoApi = api.injectEndpoints({
  endpoints: (b) => ({
    getExtendTargetsInfo: b.query<TExtendedTargetsByType, { disabled: boolean }>({
      query: ({ disabled }) => ({
        url: '/main/user_target/get_extend_targets_info',
        params: { targets_type: [...TARGET_TYPES], disabled },
      }),
      providesTags: ['Targets'],
    }),
  }),
});

export const { useGetExtendTargetsInfoQuery } = getExtendTargetsInfoApi;
