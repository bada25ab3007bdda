import type { TTargetsByType } from '@perimeter/contracts';
import { analyticsApi } from './analytics-api.ts';

/** The user's enabled targets of every type (GET /main/user_target/get_targets, spec §7). */
export const getOwnedTargetsApi = analyticsApi.injectEndpoints({
  endpoints: (b) => ({
    getOwnedTargets: b.query<TTargetsByType, void>({
      query: () => ({
        url: '/main/user_target/get_targets',
        params: { targets_type: ['domain', 'peer', 'network'], disabled: 'false' },
      }),
      providesTags: ['OwnedTargets'],
    }),
  }),
});

export const { useGetOwnedTargetsQuery } = getOwnedTargetsApi;
