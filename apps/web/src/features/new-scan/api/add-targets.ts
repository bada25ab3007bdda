import type { TAddTargetsBody, TTarget } from '@perimeter/contracts';
import { newScanApi } from './new-scan-api.ts';

export const addTargetsApi = newScanApi.injectEndpoints({
  endpoints: (b) => ({
    addTargets: b.mutation<{ added: TTarget[] }, TAddTargetsBody>({
      query: (body) => ({ url: '/main/user_target/add_targets', method: 'POST', body }),
      invalidatesTags: ['Targets', 'Dashboard', 'Billing'],
    }),
  }),
});

export const { useAddTargetsMutation } = addTargetsApi;
