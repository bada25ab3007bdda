import type { TAvailableTariffs } from '@perimeter/contracts';
import { billingApi } from './billing-api.ts';

export const getAvailableTariffsApi = billingApi.injectEndpoints({
  endpoints: (b) => ({
    getAvailableTariffs: b.query<TAvailableTariffs, void>({
      query: () => '/users/get_available_tariffs',
      providesTags: ['Billing'],
    }),
  }),
});

export const { useGetAvailableTariffsQuery } = getAvailableTariffsApi;
