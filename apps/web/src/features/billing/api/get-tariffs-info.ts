import type { TTariffsInfo, TTariffType } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const getTariffsInfoApi = api.injectEndpoints({
  endpoints: (b) => ({
    getTariffsInfo: b.query<TTariffsInfo, TTariffType[] | undefined>({
      query: (types) => ({
        url: '/users/get_tariffs_info',
        params: { tariffs_types: types ?? ['subscription', 'payment'] },
      }),
    }),
  }),
});

export const { useGetTariffsInfoQuery } = getTariffsInfoApi;
