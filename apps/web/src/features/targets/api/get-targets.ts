import { TARGET_TYPES, type TTargetsByType, type TTargetType } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/**
 * GET /main/user_target/get_targets (spec §7, §9): the user's enabled targets, grouped by type —
 * every type unless some are asked for. The one query behind the new-scan, Reports, analytics and
 * schedules target choices; a change to a target refreshes them all ('Targets').
 */
export const getTargetsApi = api.injectEndpoints({
  endpoints: (b) => ({
    // biome-ignore lint/suspicious/noConfusingVoidType: RTK Query's way to make the argument optional
    getTargets: b.query<TTargetsByType, readonly TTargetType[] | void>({
      query: (types) => ({
        url: '/main/user_target/get_targets',
        params: { targets_type: [...(types ?? TARGET_TYPES)], disabled: false },
      }),
      providesTags: ['Targets'],
    }),
  }),
});

export const { useGetTargetsQuery } = getTargetsApi;
