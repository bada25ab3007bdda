import type { TIntelDatabase } from '@perimeter/contracts';
import { api } from '../../../lib/api-client.ts';

/** GET /intel/database: whether the shared CVE database is empty, stale or current. */
export const getIntelDatabaseApi = api.injectEndpoints({
  endpoints: (b) => ({
    getIntelDatabase: b.query<TIntelDatabase, void>({ query: () => ({ url: '/intel/database' }) }),
  }),
});

export const { useGetIntelDatabaseQuery } = getIntelDatabaseApi;
