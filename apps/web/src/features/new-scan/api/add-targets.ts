import type { TAddTargetsBody, TTarget } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const addTargetsApi = api.injectEndpoints({
  endpoints: (b) => ({
    addTargets: b.mutation<{ added: TTarget[] }, TAddTargetsBody>({
      query: (body) => ({ url: '/main/user_target/add_targets', method: 'POST', body }),
      invalidatesTags: ['Targets', 'Dashboard', 'Billing'],
    }),
  }),
});

export const { useAddTargetsMutation } = addTargetsApi;
