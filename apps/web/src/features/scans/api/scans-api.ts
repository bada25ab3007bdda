import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API (cache tags listed once in lib/api-client.ts); each operation file injects into it. */
export const scansApi = api;
