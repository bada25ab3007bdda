import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the events tag added; each operation file injects into it. */
export const eventsApi = api.enhanceEndpoints({ addTagTypes: ['Events', 'Dashboard'] });
