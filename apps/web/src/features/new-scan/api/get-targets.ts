import { TARGET_TYPES, type TTargetsByType } from '@perimeter/contracts';
import { newScanApi } from './new-scan-api.ts';

/** GET /main/user_target/get_targets: the user's enabled targets of every type (spec §7, §9). */
export const getTargetsApi = newScanApi.injectEndpoints({
  endpoints: (b) => ({
    getTargets: b.query<TTargetsByType, void>({
      query: () => ({
        url: '/main/user_target/get_targets',
        params: { targets_type: [...TARGET_TYPES], disabled: false },
      }),
      providesTags: ['Targets'],
    }),
  }),
});

export const { useGetTargetsQuery } = getTargetsApi;
