import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the analytics and targets-list tags; each operation file injects into it. */
export const analyticsApi = api.enhanceEndpoints({ addTagTypes: ['TargetMetrics', 'OwnedTargets'] });
