import type { TScopeBody, TScopeResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const SCOPE_PAGE_SIZE = 20;

export type TScopeArgs = { limit: number; offset: number; body: TScopeBody };

export const getScanScopeApi = api.injectEndpoints({
  endpoints: (b) => ({
    getScanScope: b.query<TScopeResponse, TScopeArgs>({
      query: ({ limit, offset, body }) => ({
        url: '/main/get_one_user_abstract_scan_scope',
        method: 'POST',
        params: { limit, offset },
        body,
      }),
      providesTags: (_r, _e, { body }) => [{ type: 'ScanScope', id: body.id }],
    }),
  }),
});

export const { useGetScanScopeQuery } = getScanScopeApi;
