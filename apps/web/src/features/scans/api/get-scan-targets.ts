import type { TTargetsByType, TTargetType } from '@perimeter/contracts';
import { scansApi } from './scans-api.ts';

/** The user's enabled targets of one type: the choices of the Reports target filter. */
export const getScanTargetsApi = scansApi.injectEndpoints({
  endpoints: (b) => ({
    getScanTargets: b.query<TTargetsByType, TTargetType>({
      query: (type) => ({
        url: '/main/user_target/get_targets',
        params: { targets_type: type, disabled: false },
      }),
      providesTags: ['Targets'],
    }),
  }),
});

export const { useGetScanTargetsQuery } = getScanTargetsApi;
