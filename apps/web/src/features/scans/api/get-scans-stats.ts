import type { TScan, TScanStatus, TTargetType } from '@perimeter/contracts';
import { scansApi } from './scans-api.ts';

export type TScansStatsArgs = {
  limit: number;
  offset: number;
  targets_type: TTargetType;
  status?: readonly TScanStatus[];
  /** Only the scans of this target (user_target_id) of type filter_target_type. */
  filter_user_target_id?: string;
  filter_target_type?: TTargetType;
  /** true: custom scans only; false: full scans only. */
  custom_scan_config?: boolean;
  sort_key?: 'created_at' | 'started_at' | 'finished_at' | 'status' | 'scan_type';
  sort_order?: 'asc' | 'desc';
};

export type TScansStatsResult = { items: TScan[]; total: number };

export const getScansStatsApi = scansApi.injectEndpoints({
  endpoints: (b) => ({
    getScansStats: b.query<TScansStatsResult, TScansStatsArgs>({
      query: (params) => ({ url: '/main/get_user_abstract_scans_stats', params }),
      providesTags: ['Scans'],
    }),
  }),
});

export const { useGetScansStatsQuery } = getScansStatsApi;
