import type { TAvailableTariffs } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getAvailableTariffsApi = api.injectEndpoints({
  endpoints: (b) => ({
    getAvailableTariffs: b.query<TAvailableTariffs, void>({
      query: () => '/users/get_available_tariffs',
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetAvailableTariffsQuery } = getAvailableTariffsApi;
