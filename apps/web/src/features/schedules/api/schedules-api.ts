import { api } from '../../../lib/api-client.ts';

/** The app's one RTK Query API with the schedules tags added; each operation file injects into it. */
export const schedulesApi = api.enhanceEndpoints({ addTagTypes: ['Schedules', 'ScheduleOverview'] });
