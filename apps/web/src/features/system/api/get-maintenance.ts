import type { TMaintenanceResponse } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

export const maintenanceApi = api.injectEndpoints({
  endpoints: (b) => ({
    getMaintenance: b.query<TMaintenanceResponse, void>({
      query: () => '/main/message/maintenance_mode/',
      providesTags: ['Maintenance'],
    }),
  }),
});

export const { useGetMaintenanceQuery } = maintenanceApi;
